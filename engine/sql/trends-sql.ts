// Trends as SQL: one SELECT per series, its rows filtered before anything else, grouped by
// (bucket key) and () for the range total, the keys labelled once grouped; with a breakdown,
// trends-breakdown-sql.ts (by cohort: trends-cohort-sql.ts).
import type { Query, Series } from "../ir/query.ts";
import type { TrendsResult, TrendsRow } from "../kinds/trends.ts";
import { and, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketKeySql, bucketLabelSql } from "./local-time.ts";
import type { Params } from "./params.ts";
import { aggregate, numberOf, seriesInputs } from "./trends-aggregates-sql.ts";
import { trendsBreakdownSql } from "./trends-breakdown-sql.ts";
import { trendsCohortSql } from "./trends-cohort-sql.ts";

export function trendsSql(query: Query, kinds: SqlKinds, params: Params): string {
  if (query.breakdown?.type === "cohort") return trendsCohortSql(query, kinds, params);
  if (query.breakdown) return trendsBreakdownSql(query, kinds, params);
  const key = bucketKeySql(query);
  const label = bucketLabelSql(query.interval, "key");
  const where = rangeAndFilters(query, kinds, params);
  return query.series
    .map((series, index) => {
      const number = numberOf(series, kinds);
      const inputs = [`${key} AS key`, ...seriesInputs(series), ...(number === null ? [] : [`${number} AS number`])];
      return [
        `SELECT ${index} AS series, ${label} AS bucket, NULL AS rank, NULL AS breakdown_value, ${aggregate(series, "number")} AS value`,
        `FROM (SELECT ${inputs.join(", ")}`,
        `      FROM ${fromEvents(query)}`,
        `      WHERE ${and([...where, ...seriesConditions(series.event, series.filters, kinds, params)])})`,
        "GROUP BY GROUPING SETS ((key), ())",
      ].join("\n");
    })
    .join("\nUNION ALL\n") + "\nORDER BY series, rank NULLS LAST, bucket NULLS FIRST";
}

export interface TrendsSqlRow {
  series: number;
  bucket: string | null;
  rank: number | null;
  breakdown_value: string | null;
  value: number | null;
}

/** The rows of trendsSql as a TrendsResult (buckets as the executor labels them), for comparing the two. */
export function trendsFromSql(query: Query, labels: string[], rows: TrendsSqlRow[]): TrendsResult {
  const zeroWhenEmpty = (series: Series) => ["total", "sum"].includes(series.math) || series.math.startsWith("unique_");
  // A cohort breakdown has a row per cohort named, rows or not.
  const cohortIds = query.breakdown?.type === "cohort" ? query.breakdown.cohortIds : null;
  const ranks = cohortIds ? cohortIds.map((_, index) => index + 1) : [...new Set(rows.filter((row) => row.rank !== null).map((row) => Number(row.rank)))].sort((a, b) => a - b);
  const labelOf = new Map<number, string | null>(cohortIds?.map((cohortId, index) => [index + 1, cohortId]));
  if (!cohortIds) for (const row of rows) if (row.rank !== null) labelOf.set(Number(row.rank), row.breakdown_value);
  const out: TrendsRow[] = [];
  query.series.forEach((series, index) => {
    const mine = rows.filter((row) => Number(row.series) === index);
    const empty = zeroWhenEmpty(series) ? 0 : null;
    const build = (rank: number | null): TrendsRow => {
      const cells = mine.filter((row) => (row.rank === null ? null : Number(row.rank)) === rank);
      const totalRow = cells.find((row) => row.bucket === null);
      const row: TrendsRow = {
        series: index,
        event: series.event,
        math: series.math,
        values: labels.map((label) => {
          const cell = cells.find((candidate) => candidate.bucket === label);
          return cell ? toNumber(cell.value) ?? empty : empty;
        }),
        total: totalRow ? toNumber(totalRow.value) ?? empty : empty,
      };
      if (query.breakdown) {
        row.breakdown_value = rank === null ? null : labelOf.get(rank)!;
        row.breakdown_other = rank === null;
      }
      const unknown = cells.find((cell) => cell.bucket !== null && !labels.includes(cell.bucket));
      if (unknown) throw new Error(`SQL produced bucket ${unknown.bucket}, which the executor does not have`);
      return row;
    };
    if (!query.breakdown) out.push(build(null));
    else {
      for (const rank of ranks) out.push(build(rank));
      if (mine.some((row) => row.rank === null)) out.push(build(null));
    }
  });
  return { kind: "trends", interval: query.interval, time_zone: query.timeZone, buckets: labels, rows: out };
}

const toNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
