// Baileys' auth state (credentials plus the signal key store) kept in the gateway's
// AuthStateStore, so a restart or another replica resumes the session without a new scan.
// Names: `creds` for the credentials, `<type>:<id>` for each signal key. Values are JSON written
// with Baileys' own BufferJSON replacer and read with its reviver, because the state is full of
// Buffers and Uint8Arrays that plain JSON would turn into number arrays.
import { BufferJSON, initAuthCreds, proto } from "baileys";
import type { AuthenticationCreds, AuthenticationState, SignalDataSet, SignalDataTypeMap, SignalKeyStore } from "baileys";
import type { AuthStateStore } from "../network.ts";

export const credsName = "creds";

export function signalKeyName(type: keyof SignalDataTypeMap, id: string): string {
  return `${type}:${id}`;
}

export interface BaileysAuthState {
  state: AuthenticationState;
  /** Writes the current credentials (Baileys mutates `state.creds` in place, then emits `creds.update`). */
  saveCreds(): Promise<void>;
  /** Forgets everything: credentials and keys. */
  clear(): Promise<void>;
}

function serialise(value: unknown): string {
  return JSON.stringify(value, BufferJSON.replacer);
}

function deserialise(text: string): unknown {
  return JSON.parse(text, BufferJSON.reviver);
}

/** Reads the saved credentials, or creates fresh ones (with Baileys' initAuthCreds) for a new pairing. */
export async function loadBaileysAuthState(store: AuthStateStore): Promise<BaileysAuthState> {
  const saved = (await store.read([credsName])).get(credsName);
  const creds = saved === undefined ? initAuthCreds() : (deserialise(saved) as AuthenticationCreds);

  const keys: SignalKeyStore = {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const found = await store.read(ids.map((id) => signalKeyName(type, id)));
      const result: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const text = found.get(signalKeyName(type, id));
        if (text === undefined) continue;
        const value = deserialise(text);
        // Baileys reads this one as a protobuf object (it calls its methods), not a plain object.
        result[id] = (type === "app-state-sync-key" ? proto.Message.AppStateSyncKeyData.fromObject(value as object) : value) as SignalDataTypeMap[T];
      }
      return result;
    },
    async set(data: SignalDataSet) {
      const entries = new Map<string, string | null>();
      for (const type of Object.keys(data) as (keyof SignalDataTypeMap)[]) {
        const byId = data[type];
        if (!byId) continue;
        for (const [id, value] of Object.entries(byId)) entries.set(signalKeyName(type, id), value === null || value === undefined ? null : serialise(value));
      }
      if (entries.size > 0) await store.write(entries);
    },
    clear: () => store.clear(),
  };

  return {
    state: { creds, keys },
    saveCreds: () => store.write(new Map([[credsName, serialise(creds)]])),
    clear: () => store.clear(),
  };
}
