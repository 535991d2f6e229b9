import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initAuthCreds, proto } from "baileys";
import { credsName, loadBaileysAuthState } from "../../../server/gateway/network/baileys/auth-state.ts";
import type { AuthStateStore } from "../../../server/gateway/network/network.ts";
import { openGatewayDatabase, type GatewayDatabase } from "../../../server/gateway/store/database.ts";
import { SqlAuthStateStore } from "../../../server/gateway/store/auth-state.ts";

let directory: string;
let database: GatewayDatabase;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "baileys-auth-"));
  database = await openGatewayDatabase(join(directory, "g.sqlite"));
});

afterEach(async () => {
  await database.close();
  await rm(directory, { recursive: true, force: true });
});

/** Counts the store's write calls, to prove one `set` is one transaction. */
class CountingStore implements AuthStateStore {
  writes: ReadonlyMap<string, string | null>[] = [];
  constructor(private readonly inner: AuthStateStore) {}
  read(names: readonly string[]) {
    return this.inner.read(names);
  }
  write(entries: ReadonlyMap<string, string | null>) {
    this.writes.push(entries);
    return this.inner.write(entries);
  }
  clear() {
    return this.inner.clear();
  }
}

const appStateKey = { keyData: Buffer.from([1, 2, 3]), fingerprint: { rawId: 7, currentIndex: 2, deviceIndexes: [0, 1] }, timestamp: 1_700_000_000 };

function pairedCreds() {
  const creds = initAuthCreds();
  creds.me = { id: "4915112345678:3@s.whatsapp.net", lid: "123456789:3@lid", name: "Shop" };
  creds.routingInfo = Buffer.from([9, 8, 7, 6]);
  creds.account = { details: Buffer.from([1, 1]), accountSignatureKey: Buffer.from([2, 2]), accountSignature: Buffer.from([3, 3]), deviceSignature: Buffer.from([4, 4]) };
  creds.registered = true;
  return creds;
}

describe("Baileys auth state on the gateway store", () => {
  test("a fresh instance gets new credentials from initAuthCreds, and nothing is written until saveCreds", async () => {
    const store = new CountingStore(new SqlAuthStateStore(database.sql, "inst-1"));
    const auth = await loadBaileysAuthState(store);
    expect(auth.state.creds.registered).toBe(false);
    expect(auth.state.creds.noiseKey.public).toBeInstanceOf(Buffer);
    expect(auth.state.creds.noiseKey.public.byteLength).toBe(32);
    expect(store.writes).toEqual([]);
    expect(await store.read([credsName])).toEqual(new Map());
  });

  test("credentials round-trip with every Buffer field equal", async () => {
    const store = new SqlAuthStateStore(database.sql, "inst-1");
    const auth = await loadBaileysAuthState(store);
    Object.assign(auth.state.creds, pairedCreds());
    await auth.saveCreds();

    const reloaded = await loadBaileysAuthState(store);
    expect(reloaded.state.creds).toEqual(auth.state.creds);
    expect(reloaded.state.creds.routingInfo).toEqual(Buffer.from([9, 8, 7, 6]));
    expect(reloaded.state.creds.signedPreKey.signature).toBeInstanceOf(Buffer);
  });

  test("keys of several types are set, read back with their types, and deleted by null", async () => {
    const store = new CountingStore(new SqlAuthStateStore(database.sql, "inst-1"));
    const { state } = await loadBaileysAuthState(store);
    const preKey = { public: Buffer.from([1, 2]), private: Buffer.from([3, 4]) };
    await state.keys.set({
      "pre-key": { "1": preKey, "2": { public: Buffer.from([5]), private: Buffer.from([6]) } },
      session: { "4915112345678.0": new Uint8Array([10, 11, 12]) },
      "app-state-sync-key": { AAAA: appStateKey },
      "lid-mapping": { "4915112345678": "123456789" },
      "device-list": { "4915112345678": ["0", "3"] },
      "sender-key-memory": { "group@g.us": { "4915112345678@s.whatsapp.net": true } },
    });
    expect(store.writes.length).toBe(1);
    expect([...store.writes[0]!.keys()]).toEqual([
      "pre-key:1",
      "pre-key:2",
      "session:4915112345678.0",
      "app-state-sync-key:AAAA",
      "lid-mapping:4915112345678",
      "device-list:4915112345678",
      "sender-key-memory:group@g.us",
    ]);

    expect(await state.keys.get("pre-key", ["1", "3"])).toEqual({ "1": preKey });
    // A Uint8Array comes back as a Buffer with the same bytes.
    expect(await state.keys.get("session", ["4915112345678.0"])).toEqual({ "4915112345678.0": Buffer.from([10, 11, 12]) });
    const syncKeys = await state.keys.get("app-state-sync-key", ["AAAA"]);
    expect(syncKeys.AAAA).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
    expect(proto.Message.AppStateSyncKeyData.toObject(syncKeys.AAAA as proto.Message.AppStateSyncKeyData, { longs: Number })).toEqual({
      keyData: new Uint8Array([1, 2, 3]),
      fingerprint: { rawId: 7, currentIndex: 2, deviceIndexes: [0, 1] },
      timestamp: 1_700_000_000,
    });
    expect(await state.keys.get("lid-mapping", ["4915112345678"])).toEqual({ "4915112345678": "123456789" });
    expect(await state.keys.get("device-list", ["4915112345678"])).toEqual({ "4915112345678": ["0", "3"] });
    expect(await state.keys.get("sender-key-memory", ["group@g.us"])).toEqual({ "group@g.us": { "4915112345678@s.whatsapp.net": true } });

    await state.keys.set({ "pre-key": { "1": null, "5": { public: Buffer.from([7]), private: Buffer.from([8]) } }, session: { "4915112345678.0": null } });
    expect(store.writes.length).toBe(2);
    expect(store.writes[1]).toEqual(new Map<string, string | null>([["pre-key:1", null], ["pre-key:5", expect.any(String)], ["session:4915112345678.0", null]]));
    expect(await state.keys.get("pre-key", ["1", "2", "5"])).toEqual({ "2": { public: Buffer.from([5]), private: Buffer.from([6]) }, "5": { public: Buffer.from([7]), private: Buffer.from([8]) } });
    expect(await state.keys.get("session", ["4915112345678.0"])).toEqual({});
  });

  test("an empty set writes nothing and a get of no ids reads nothing", async () => {
    const store = new CountingStore(new SqlAuthStateStore(database.sql, "inst-1"));
    const { state } = await loadBaileysAuthState(store);
    await state.keys.set({});
    expect(await state.keys.get("pre-key", [])).toEqual({});
    expect(store.writes).toEqual([]);
  });

  test("survives a restart: the database closed and opened again, every object new", async () => {
    const first = await loadBaileysAuthState(new SqlAuthStateStore(database.sql, "inst-1"));
    Object.assign(first.state.creds, pairedCreds());
    await first.saveCreds();
    await first.state.keys.set({ "pre-key": { "9": { public: Buffer.from([1]), private: Buffer.from([2]) } } });
    const credsBefore = first.state.creds;
    await database.close();

    database = await openGatewayDatabase(join(directory, "g.sqlite"));
    const second = await loadBaileysAuthState(new SqlAuthStateStore(database.sql, "inst-1"));
    expect(second.state.creds).toEqual(credsBefore);
    expect(await second.state.keys.get("pre-key", ["9"])).toEqual({ "9": { public: Buffer.from([1]), private: Buffer.from([2]) } });
  });

  test("two instances do not see each other's state", async () => {
    const one = await loadBaileysAuthState(new SqlAuthStateStore(database.sql, "inst-1"));
    Object.assign(one.state.creds, pairedCreds());
    await one.saveCreds();
    await one.state.keys.set({ session: { a: Buffer.from([1]) } });

    const two = await loadBaileysAuthState(new SqlAuthStateStore(database.sql, "inst-2"));
    expect(two.state.creds.registered).toBe(false);
    expect(two.state.creds.me).toBeUndefined();
    expect(two.state.creds.noiseKey).not.toEqual(one.state.creds.noiseKey);
    expect(await two.state.keys.get("session", ["a"])).toEqual({});

    await two.state.keys.set({ session: { a: Buffer.from([2]) } });
    expect(await one.state.keys.get("session", ["a"])).toEqual({ a: Buffer.from([1]) });
  });

  test("clear() forgets credentials and keys of this instance only", async () => {
    const one = await loadBaileysAuthState(new SqlAuthStateStore(database.sql, "inst-1"));
    Object.assign(one.state.creds, pairedCreds());
    await one.saveCreds();
    await one.state.keys.set({ session: { a: Buffer.from([1]) } });
    const two = await loadBaileysAuthState(new SqlAuthStateStore(database.sql, "inst-2"));
    await two.saveCreds();
    await two.state.keys.set({ session: { a: Buffer.from([2]) } });

    await one.clear();
    const oneAgain = await loadBaileysAuthState(new SqlAuthStateStore(database.sql, "inst-1"));
    expect(oneAgain.state.creds.registered).toBe(false);
    expect(oneAgain.state.creds.noiseKey).not.toEqual(one.state.creds.noiseKey);
    expect(await oneAgain.state.keys.get("session", ["a"])).toEqual({});

    const twoAgain = await loadBaileysAuthState(new SqlAuthStateStore(database.sql, "inst-2"));
    expect(twoAgain.state.creds).toEqual(two.state.creds);
    expect(await twoAgain.state.keys.get("session", ["a"])).toEqual({ a: Buffer.from([2]) });
  });

  test("a corrupt saved credential is an error, not silently a new pairing", async () => {
    const store = new SqlAuthStateStore(database.sql, "inst-1");
    await store.write(new Map([[credsName, "{not json"]]));
    await expect(loadBaileysAuthState(store)).rejects.toThrow(SyntaxError);
  });
});
