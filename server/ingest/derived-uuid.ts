// Deterministic UUIDv7s for drop-in events that arrive without one (or with another kind of
// uuid): the same input always gives the same id, so a retried request deduplicates like a
// native one. The 48-bit time field holds the given instant (ids still sort roughly by time);
// the other 74 bits come from a SHA-256 of the seed.
import { createHash } from "node:crypto";

const timeFieldMax = 2 ** 48 - 1;

export function derivedUuidV7(seed: string, epochMs: number): string {
  const bytes = createHash("sha256").update(seed).digest().subarray(0, 16);
  const time = Math.min(Math.max(0, Math.floor(epochMs)), timeFieldMax);
  for (let i = 5; i >= 0; i--) bytes[5 - i] = Math.floor(time / 2 ** (8 * i)) & 0xff;
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
