// Trends as SQL: one SELECT per series grouped by (bucket) and () for the range total; with a
// breakdown, the values are ranked once over all series (same rule as engine/breakdown.ts)
// and rows outside the top N fall into rank NULL ("other").
import type { Query, Series } from "../ir/query.ts";
import type { TrendsResult, TrendsRow } from "../kinds/trends.ts";
import { groupColumn } from "../../storage/event-columns.ts";
import {
  and, asNumber, breakdownValueSql, bucketLabelSql, filterValue, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds,
} from "./expressions.ts";
import { identifier, type Params } from "./params.ts";

const quantiles: Record<string, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };

/** The aggregate of a series over rows exposing `weight`, `person_id`, `session_id`, group keys and `n` (its number). */
function aggregate(series: Series, numberColumn: string): string {
  const weight = "(1.0 / sample_rate)";
  switch (series.math) {
    case "total":
      return `coalesce(sum(${weight}), 0)`;
    case "unique_persons":
      return "count(DISTINCT person_id)";
    case "unique_sessions":
      return "count(DISTINCT session_id)";
    case "unique_groups":
      return `count(DISTINCT ${identifier(groupColumn(series.groupTypeIndex!))})`;
    case "sum":
      return `coalesce(sum(${numberColumn} * ${weight}), 0)`;
    case "avg":
      return `sum(${numberColumn} * ${weight}) / sum(CASE WHEN ${numberColumn} IS NOT NULL THEN ${weight} END)`;
    case "min":
    case "max":
      return `${series.math}(${numberColumn})`;
    default:
      return `quantile_cont(${numberColumn}, ${quantiles[series.math]})`;
  }
}

export function trendsSql(query: Query, kinds: SqlKinds, params: Params): string {
  const zone = params.add(query.timeZone);
  const where = rangeAndFilters(query, kinds, params);
  const numberOf = (series: Series) =>
    series.property === null ? "NULL" : asNumber(filterValue({ type: "event", key: series.property }, kinds));
  if (!query.breakdown) {
    return query.series
      .map((series, index) => {
        const n = numberOf(series);
        return [
          `SELECT ${index} AS series, bucket, NULL AS rank, NULL AS breakdown_value, ${aggregate(series, "n")} AS value`,
          `FROM (SELECT ${bucketLabelSql(query, zone)} AS bucket, e.sample_rate, e.person_id, e.session_id, ${groupKeys()}, ${n} AS n`,
          `      FROM ${fromEvents(query)}`,
          `      WHERE ${and([...where, ...seriesConditions(series.event, series.filters, kinds, params)])})`,
          "GROUP BY GROUPING SETS ((bucket), ())",
        ].join("\n");
      })
      .join("\nUNION ALL\n") + "\nORDER BY series, rank NULLS LAST, bucket NULLS FIRST";
  }
  const matches = query.series.map(
    (series, index) => `coalesce(${and(seriesConditions(series.event, series.filters, kinds, params))}, FALSE) AS s${index}`,
  );
  const numbers = query.series.map((series, index) => `${numberOf(series)} AS n${index}`);
  const limit = params.add(query.breakdown.limit);
  const selects = query.series.map((series, index) =>
    [
      `SELECT ${index} AS series, bucket, rank, min(breakdown_value) FILTER (WHERE rank IS NOT NULL) AS breakdown_value, ${aggregate(series, `n${index}`)} AS value`,
      `FROM grouped WHERE s${index}`,
      "GROUP BY GROUPING SETS ((bucket, rank), (rank))",
    ].join("\n"),
  );
  return [
    "WITH matched AS (",
    `  SELECT ${bucketLabelSql(query, zone)} AS bucket, ${breakdownValueSql(query.breakdown, kinds)} AS breakdown_value,`,
    `         e.sample_rate, e.person_id, e.session_id, ${groupKeys()},`,
    `         ${[...matches, ...numbers].join(",\n         ")}`,
    `  FROM ${fromEvents(query)}`,
    `  WHERE ${and(where)}`,
    "), volumes AS (",
    `  SELECT breakdown_value, sum(${query.series.map((_, index) => `s${index}::INTEGER`).join(" + ")}) AS volume FROM matched GROUP BY breakdown_value`,
    "), ranked AS (",
    "  SELECT breakdown_value, row_number() OVER (ORDER BY volume DESC, breakdown_value ASC NULLS LAST) AS rank FROM volumes WHERE volume > 0",
    "), grouped AS (",
    `  SELECT m.*, CASE WHEN r.rank <= ${limit} THEN r.rank END AS rank`,
    "  FROM matched m LEFT JOIN ranked r ON m.breakdown_value IS NOT DISTINCT FROM r.breakdown_value",
    ")",
    selects.join("\nUNION ALL\n"),
    "ORDER BY series, rank NULLS LAST, bucket NULLS FIRST",
  ].join("\n");
}

const groupKeys = () => Array.from({ length: 5 }, (_, slot) => `e.${identifier(groupColumn(slot))}`).join(", ");

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
  const ranks = [...new Set(rows.filter((row) => row.rank !== null).map((row) => Number(row.rank)))].sort((a, b) => a - b);
  const labelOf = new Map<number, string | null>();
  for (const row of rows) if (row.rank !== null) labelOf.set(Number(row.rank), row.breakdown_value);
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
