// Secrets are random base62 strings; only their SHA-256 is stored.
import { createHash, randomBytes } from "node:crypto";

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62 string (rejection sampling avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += base62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const sha256Hex = (value: string): string => createHash("sha256").update(value).digest("hex");
