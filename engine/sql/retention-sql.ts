// Retention as SQL: each person's distinct cohort slots (first-time: the slot of their
// first-ever start event, when it lies in the range) and return slots, joined within
// `periods` slots, counted per (cohort, period); period -1 carries the cohort sizes.
import type { Query } from "../ir/query.ts";
import { BucketMap } from "../buckets.ts";
import { retentionFrom, type RetentionResult } from "../kinds/retention.ts";
import { and, conditions, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketSlotsCte, inBucket } from "./bucket-slots.ts";
import type { Params } from "./params.ts";

export interface RetentionSqlRow {
  cohort: number;
  period: number;
  persons: number;
}

export function retentionSql(query: Query, kinds: SqlKinds, params: Params): string {
  const zone = params.add(query.timeZone);
  const start = query.series[0]!;
  const back = query.series[1] ?? start;
  const slotsOf = (series: typeof start) => [
    "  SELECT DISTINCT e.person_id, bk.slot",
    `  FROM ${fromEvents(query)} JOIN buckets bk ON ${inBucket(query, zone, "bk")}`,
    `  WHERE ${and([...rangeAndFilters(query, kinds, params), ...seriesConditions(series.event, series.filters, kinds, params)])}`,
  ];
  const cohorts =
    query.retention.type === "first_time"
      ? [
        "firsts AS (",
        "  SELECT e.person_id, min(e.timestamp) AS first",
        `  FROM ${fromEvents(query)}`,
        `  WHERE ${and([
          `e.timestamp < ${params.add(new Date(query.to).toISOString())}::TIMESTAMPTZ`,
          ...conditions(query.filters, kinds, params),
          ...seriesConditions(start.event, start.filters, kinds, params),
        ])}`,
        "  GROUP BY e.person_id",
        `  HAVING min(e.timestamp) >= ${params.add(new Date(query.from).toISOString())}::TIMESTAMPTZ`,
        "),",
        "cohorts AS (",
        `  SELECT f.person_id, bk.slot FROM firsts f JOIN buckets bk ON ${inBucket(query, zone, "bk", "f.first")}`,
        "),",
      ]
      : ["cohorts AS (", ...slotsOf(start), "),"];
  return [
    `WITH ${bucketSlotsCte(query, zone, params, query.from)},`,
    ...cohorts,
    "returns AS (",
    ...slotsOf(back),
    ")",
    "SELECT c.slot AS cohort, r.slot - c.slot AS period, count(*) AS persons",
    "FROM cohorts c JOIN returns r ON r.person_id = c.person_id",
    `  AND r.slot >= c.slot AND r.slot - c.slot < ${params.add(query.retention.periods)}`,
    "GROUP BY ALL",
    "UNION ALL",
    "SELECT slot AS cohort, -1 AS period, count(*) AS persons FROM cohorts GROUP BY ALL",
    "ORDER BY cohort, period",
  ].join("\n");
}

export function retentionFromSql(query: Query, rows: RetentionSqlRow[]): RetentionResult {
  const labels = new BucketMap(query).labels;
  const sizes = new Array<number>(labels.length).fill(0);
  const counts = labels.map(() => new Array<number>(query.retention.periods).fill(0));
  for (const row of rows) {
    if (row.period < 0) sizes[row.cohort] = Number(row.persons);
    else counts[row.cohort]![row.period] = Number(row.persons);
  }
  return retentionFrom(query, labels, sizes, counts);
}
