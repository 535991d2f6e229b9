// Lifecycle as SQL: each person's distinct active slots (slot 0 is the interval before the
// range), classified against the previous slot and the slot of the person's creation; a
// slot whose next slot is inactive makes the person dormant in that next slot.
import type { Query } from "../ir/query.ts";
import { BucketMap } from "../buckets.ts";
import { firstIntervalStart, lifecycleFrom, lifecycleStatuses, type LifecycleResult } from "../kinds/lifecycle.ts";
import { and, conditions, fromEvents, instantParam, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketSlotsCte } from "./bucket-slots.ts";
import { bucketKeySql } from "./local-time.ts";
import type { Params } from "./params.ts";

export interface LifecycleSqlRow {
  slot: number;
  status: string;
  persons: number;
}

export function lifecycleSql(query: Query, kinds: SqlKinds, params: Params): string {
  const instant = (at: number) => instantParam(params, at);
  const series = query.series[0]!;
  const [scanFrom, rangeStart, from, to] = [query.scanFrom, firstIntervalStart(query), query.from, query.to].map(instant);
  const read = `((e.timestamp >= ${scanFrom} AND e.timestamp < ${rangeStart}) OR (e.timestamp >= ${from} AND e.timestamp < ${to}))`;
  // Slot 0 is the interval before the range.
  const span = { ...query, from: query.scanFrom };
  return [
    `WITH ${bucketSlotsCte(query, query.scanFrom)},`,
    "active AS (",
    "  SELECT DISTINCT a.person_id, b.slot FROM (",
    `    SELECT e.person_id, ${bucketKeySql(span)} AS key`,
    `    FROM ${fromEvents(query)}`,
    `    WHERE ${and([read, ...conditions(query.filters, kinds, params), ...seriesConditions(series.event, series.filters, kinds, params)])}`,
    "  ) a JOIN buckets b ON b.key = a.key",
    "),",
    "born AS (",
    `  SELECT c.person_id, b.slot FROM person_created c JOIN buckets b ON b.key = ${bucketKeySql(span, "c.created_at")}`,
    `  WHERE c.created_at >= ${scanFrom} AND c.created_at < ${to}`,
    "),",
    "statuses AS (",
    "  SELECT a.slot, CASE WHEN b.slot = a.slot THEN 'new' WHEN p.person_id IS NOT NULL THEN 'returning' ELSE 'resurrecting' END AS status",
    "  FROM active a",
    "  LEFT JOIN active p ON p.person_id = a.person_id AND p.slot = a.slot - 1",
    "  LEFT JOIN born b ON b.person_id = a.person_id",
    "  WHERE a.slot > 0",
    "  UNION ALL",
    "  SELECT a.slot + 1 AS slot, 'dormant' AS status",
    "  FROM active a LEFT JOIN active n ON n.person_id = a.person_id AND n.slot = a.slot + 1",
    "  WHERE n.person_id IS NULL AND a.slot + 1 < (SELECT count(*) FROM buckets)",
    ")",
    "SELECT slot, status, count(*) AS persons FROM statuses GROUP BY ALL ORDER BY slot, status",
  ].join("\n");
}

export function lifecycleFromSql(query: Query, rows: LifecycleSqlRow[]): LifecycleResult {
  const labels = new BucketMap({ ...query, from: query.scanFrom }).labels.slice(1);
  const counts = lifecycleStatuses.map(() => new Array<number>(labels.length).fill(0));
  for (const row of rows) counts[lifecycleStatuses.indexOf(row.status as (typeof lifecycleStatuses)[number])]![row.slot - 1] = Number(row.persons);
  return lifecycleFrom(query, labels, counts);
}
