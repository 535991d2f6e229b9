// Keys of the companion services (the messaging gateway, the mail API): stored as SHA-256,
// compared in constant time, and the operator's root key: configured, or made on first start
// and kept in the data directory with mode 0600 (readable by the operator only), shown once.
import { timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBase62, sha256Hex } from "./crypto.ts";
import { unavailable } from "./http/errors.ts";

export const serviceKeyRandomLength = 40;

export const keyHash = (key: string) => sha256Hex(key);

/** Compares two SHA-256 hex digests in time independent of where they differ. */
export const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export interface RootKey {
  hash: string;
  /** Set when the key was made now: shown once, then only the file holds it. */
  created: string | null;
}

/** The configured root key, else the one in `file`, else a new one (`prefix` + random) written there (0600). */
export function loadRootKey(configured: string | null, file: string, prefix: string): RootKey {
  if (configured) return { hash: keyHash(configured), created: null };
  if (existsSync(file)) return { hash: keyHash(readFileSync(file, "utf8").trim()), created: null };
  const key = `${prefix}${randomBase62(serviceKeyRandomLength)}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  return { hash: keyHash(key), created: key };
}

const storeDown = Symbol("store down");

/**
 * Who a key is: the root key, a live key `lookup` finds by its hash, or nobody (null). The
 * lookup runs even for the root key and an empty token, so each answer costs the same work (a
 * hash and one indexed lookup) and its time tells nothing. The root key does not need the store:
 * while it is down an operator still gets in, anyone else gets 503 `storeDownMessage`.
 */
export async function identifyKey<K>(token: string, rootKeyHash: string, lookup: (hash: string) => Promise<K | null>, storeDownMessage: string): Promise<{ kind: "root" } | { kind: "key"; key: K } | null> {
  const hash = keyHash(token);
  const root = sameHash(hash, rootKeyHash);
  const key = await lookup(hash).catch(() => storeDown);
  if (root) return { kind: "root" };
  if (key === storeDown) throw unavailable(storeDownMessage);
  return key === null ? null : { kind: "key", key: key as K };
}
