// The interval buckets of a query as a SQL table `buckets (b, slot)`: each bucket's local
// start (a naive TIMESTAMP in the project's zone) and its position, matching engine/buckets.ts
// (a local hour that a DST change skips is no bucket; the repeated hour is one). Events join
// it on their local bucket start, so kinds that step from one interval to the previous or the
// next (retention, lifecycle) step by slot, never by calendar arithmetic across a gap.
import type { Query } from "../ir/query.ts";
import { bucketKeyAt, bucketNaiveStart } from "../time-zone.ts";
import type { Params } from "./params.ts";

const naiveText = (naive: number) => new Date(naive).toISOString().slice(0, 19).replace("T", " ");

/** `buckets AS (...)` over the buckets from the one holding `from` to the one holding the range's last instant. */
export function bucketSlotsCte(query: Pick<Query, "interval" | "timeZone" | "to">, zoneParam: string, params: Params, from: number): string {
  const first = bucketNaiveStart(query.interval, bucketKeyAt(query.interval, query.timeZone, from));
  const last = bucketNaiveStart(query.interval, bucketKeyAt(query.interval, query.timeZone, query.to - 1));
  const unit = query.interval;
  return [
    "buckets AS (",
    "  SELECT b, CAST(row_number() OVER (ORDER BY b) - 1 AS INTEGER) AS slot",
    `  FROM generate_series(${params.add(naiveText(first))}::TIMESTAMP, ${params.add(naiveText(last))}::TIMESTAMP, INTERVAL 1 ${unit}) g(b)`,
    `  WHERE date_trunc('${unit}', timezone(${zoneParam}, timezone(${zoneParam}, b))) = b`,
    ")",
  ].join("\n");
}

/** The join condition placing a row (its instant in `column`) in its bucket `alias`. */
export const inBucket = (query: Pick<Query, "interval">, zoneParam: string, alias: string, column = "e.timestamp") =>
  `${alias}.b = date_trunc('${query.interval}', timezone(${zoneParam}, ${column}))`;
