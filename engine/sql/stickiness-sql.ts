// Stickiness as SQL: each person's number of distinct active intervals, then persons per number.
import type { Query } from "../ir/query.ts";
import { stickinessFrom, type StickinessResult } from "../kinds/stickiness.ts";
import { and, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketKeySql } from "./local-time.ts";
import type { Params } from "./params.ts";

export function stickinessSql(query: Query, kinds: SqlKinds, params: Params): string {
  const series = query.series[0]!;
  const where = [...rangeAndFilters(query, kinds, params), ...seriesConditions(series.event, series.filters, kinds, params)];
  return [
    "WITH active AS (",
    `  SELECT e.person_id, count(DISTINCT ${bucketKeySql(query)}) AS intervals`,
    `  FROM ${fromEvents(query)}`,
    `  WHERE ${and(where)}`,
    "  GROUP BY e.person_id",
    ")",
    "SELECT intervals, count(*) AS persons FROM active GROUP BY intervals ORDER BY intervals",
  ].join("\n");
}

/** The rows of stickinessSql as a StickinessResult with `intervalCount` intervals in the range. */
export function stickinessFromSql(query: Query, intervalCount: number, rows: { intervals: number; persons: number }[]): StickinessResult {
  const exactly = new Array<number>(intervalCount).fill(0);
  for (const row of rows) exactly[Number(row.intervals) - 1] = Number(row.persons);
  return stickinessFrom({ query }, exactly, intervalCount);
}
