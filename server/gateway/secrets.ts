// The gateway's secrets: project keys (`gw_live_…`, shown once, stored as SHA-256), webhook
// signing secrets (`whsec_…`, base64 of 32 random bytes, as Standard Webhooks receivers expect)
// and the root key. The root key comes from GATEWAY_ROOT_KEY, or is made on first start and
// kept in the data directory with mode 0600, readable by the operator only.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBase62, sha256Hex } from "../crypto.ts";

export const projectKeyPrefix = "gw_live_";
export const rootKeyPrefix = "gw_root_";
const keyRandomLength = 40;

export const newProjectKey = () => `${projectKeyPrefix}${randomBase62(keyRandomLength)}`;
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
export const keyHash = (key: string) => sha256Hex(key);

/** Compares two SHA-256 hex digests in time independent of where they differ. */
export const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export interface RootKey {
  hash: string;
  /** Set when the key was made now: shown once, then only the file holds it. */
  created: string | null;
}

/** The configured root key, else the one in `file`, else a new one written there (0600). */
export function loadRootKey(configured: string | null, file: string): RootKey {
  if (configured) return { hash: keyHash(configured), created: null };
  if (existsSync(file)) return { hash: keyHash(readFileSync(file, "utf8").trim()), created: null };
  const key = `${rootKeyPrefix}${randomBase62(keyRandomLength)}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  return { hash: keyHash(key), created: key };
}
