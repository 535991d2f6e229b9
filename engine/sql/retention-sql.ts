// Retention as SQL: each person's distinct cohort slots (first-time: the slot of their
// first-ever start event, when it lies in the range) and return slots, joined within
// `periods` slots, counted per (cohort, period); period -1 carries the cohort sizes. Rows
// become (person, bucket key) pairs first, so only the distinct pairs meet the bucket table.
import type { Query } from "../ir/query.ts";
import { BucketMap } from "../buckets.ts";
import { retentionFrom, type RetentionResult } from "../kinds/retention.ts";
import { and, conditions, fromEvents, instantParam, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketSlotsCte } from "./bucket-slots.ts";
import { bucketKeySql } from "./local-time.ts";
import type { Params } from "./params.ts";

export interface RetentionSqlRow {
  cohort: number;
  period: number;
  persons: number;
}

export function retentionSql(query: Query, kinds: SqlKinds, params: Params): string {
  const start = query.series[0]!;
  const back = query.series[1] ?? start;
  const instant = (at: number) => instantParam(params, at);
  /** Distinct (person, slot) of the range's rows of a series. */
  const slotsOf = (series: typeof start) => [
    `  SELECT DISTINCT a.person_id, b.slot FROM (`,
    `    SELECT e.person_id, ${bucketKeySql(query)} AS key`,
    `    FROM ${fromEvents(query)}`,
    `    WHERE ${and([...rangeAndFilters(query, kinds, params), ...seriesConditions(series.event, series.filters, kinds, params)])}`,
    "  ) a JOIN buckets b ON b.key = a.key",
  ];
  const ctes = [bucketSlotsCte(query, query.from)];
  if (query.retention.type === "first_time") {
    ctes.push(
      [
        "firsts AS (",
        "  SELECT e.person_id, min(e.timestamp) AS first",
        `  FROM ${fromEvents(query)}`,
        `  WHERE ${and([`e.timestamp < ${instant(query.to)}`, ...conditions(query.filters, kinds, params), ...seriesConditions(start.event, start.filters, kinds, params)])}`,
        "  GROUP BY e.person_id",
        `  HAVING min(e.timestamp) >= ${instant(query.from)}`,
        ")",
      ].join("\n"),
      `cohorts AS (\n  SELECT f.person_id, b.slot FROM firsts f JOIN buckets b ON b.key = ${bucketKeySql(query, "f.first")}\n)`,
    );
  } else ctes.push(["cohorts AS (", ...slotsOf(start), ")"].join("\n"));
  // With one series, the start event is also the return event: recurring cohorts are the returns.
  const sameRows = query.series.length === 1 && query.retention.type !== "first_time";
  ctes.push(sameRows ? "returns AS (SELECT * FROM cohorts)" : ["returns AS (", ...slotsOf(back), ")"].join("\n"));
  return [
    `WITH ${ctes.join(",\n")}`,
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
