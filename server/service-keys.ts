// Keys of the companion services (the messaging gateway, the mail API): stored as SHA-256,
// compared in constant time, and the operator's root key: configured, or made on first start
// and kept in the data directory with mode 0600 (readable by the operator only), shown once.
import { timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBase62, sha256Hex } from "./crypto.ts";

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
