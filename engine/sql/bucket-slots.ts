// The interval buckets of a query as a SQL table `buckets (key, slot)`: each bucket's key
// (local-time.ts) and its position, matching engine/buckets.ts (a local hour that a DST change
// skips is no bucket; the repeated hour is one). Rows join it on their key, so kinds that
// step from one interval to the previous or the next (retention, lifecycle) step by slot,
// never by calendar arithmetic across a gap. Keys are constants the compiler computed from
// the range, written as numbers.
import { bucketKeys } from "../buckets.ts";
import type { Query } from "../ir/query.ts";
import { ZoneOffsets } from "../zone-offsets.ts";
import { sqlBucketKey } from "./local-time.ts";

/** `buckets AS (...)` over the buckets of instants in [from, query.to). */
export function bucketSlotsCte(query: Pick<Query, "interval" | "timeZone" | "to">, from: number): string {
  const keys = bucketKeys(query.interval, ZoneOffsets.of(query.timeZone), from, query.to).map((key) => sqlBucketKey(query.interval, key));
  const step = query.interval === "week" ? 7 : 1;
  const first = keys[0]!;
  const last = keys[keys.length - 1]!;
  const present = new Set(keys);
  const skipped: number[] = [];
  for (let key = first; key <= last; key += step) if (!present.has(key)) skipped.push(key);
  return [
    "buckets AS (",
    "  SELECT key, CAST(row_number() OVER (ORDER BY key) - 1 AS INTEGER) AS slot",
    `  FROM range(${first}, ${last + 1}, ${step}) r(key)${skipped.length > 0 ? ` WHERE key NOT IN (${skipped.join(", ")})` : ""}`,
    ")",
  ].join("\n");
}
