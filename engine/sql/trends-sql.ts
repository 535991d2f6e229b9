// Trends as SQL: one SELECT per series, its rows filtered before anything else, grouped by
// (bucket key) and () for the range total, the keys labelled once grouped; with a breakdown,
// the rows of any series are read once, their values ranked once over all series (same rule
// as engine/breakdown.ts), and rows outside the top N fall into rank NULL ("other").
import type { Query, Series } from "../ir/query.ts";
import type { TrendsResult, TrendsRow } from "../kinds/trends.ts";
import { groupColumn } from "../../storage/event-columns.ts";
import { and, asNumber, breakdownValueSql, filterValue, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketKeySql, bucketLabelSql } from "./local-time.ts";
import { identifier, type Params } from "./params.ts";

const quantiles: Record<string, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };
const weight = "(1.0 / sample_rate)";

/** The aggregate of a series over rows exposing what seriesInputs names, its number as `number`. */
function aggregate(series: Series, number: string): string {
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
      return `coalesce(sum(${number} * ${weight}), 0)`;
    case "avg":
      return `sum(${number} * ${weight}) / sum(CASE WHEN ${number} IS NOT NULL THEN ${weight} END)`;
    case "min":
    case "max":
      return `${series.math}(${number})`;
    default:
      return `quantile_cont(${number}, ${quantiles[series.math]})`;
  }
}

/** The event columns a series' aggregate reads (its number is selected on its own). */
function seriesInputs(series: Series): string[] {
  switch (series.math) {
    case "total":
    case "sum":
    case "avg":
      return ["e.sample_rate"];
    case "unique_persons":
      return ["e.person_id"];
    case "unique_sessions":
      return ["e.session_id"];
    case "unique_groups":
      return [`e.${identifier(groupColumn(series.groupTypeIndex!))}`];
    default:
      return [];
  }
}

const numberOf = (series: Series, kinds: SqlKinds) => (series.property === null ? null : asNumber(filterValue({ type: "event", key: series.property }, kinds)));

export function trendsSql(query: Query, kinds: SqlKinds, params: Params): string {
  const key = bucketKeySql(query);
  const label = bucketLabelSql(query.interval, "key");
  const where = rangeAndFilters(query, kinds, params);
  if (!query.breakdown) {
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
  const matches = query.series.map((series, index) => `coalesce(${and(seriesConditions(series.event, series.filters, kinds, params))}, FALSE) AS s${index}`);
  const numbers = query.series.flatMap((series, index) => {
    const number = numberOf(series, kinds);
    return number === null ? [] : [`${number} AS n${index}`];
  });
  const inputs = [...new Set(query.series.flatMap(seriesInputs))];
  const limit = params.add(query.breakdown.limit);
  const selects = query.series.map((series, index) =>
    [
      `SELECT ${index} AS series, ${label} AS bucket, rank, min(breakdown_value) FILTER (WHERE rank IS NOT NULL) AS breakdown_value, ${aggregate(series, `n${index}`)} AS value`,
      `FROM grouped WHERE s${index}`,
      "GROUP BY GROUPING SETS ((key, rank), (rank))",
    ].join("\n"),
  );
  return [
    "WITH matched AS (",
    `  SELECT ${key} AS key, ${breakdownValueSql(query.breakdown, kinds)} AS breakdown_value,`,
    `         ${[...inputs, ...matches, ...numbers].join(",\n         ")}`,
    `  FROM ${fromEvents(query)}`,
    `  WHERE ${and([...where, `(${query.series.map((_, index) => `s${index}`).join(" OR ")})`])}`,
    "), volumes AS (",
    `  SELECT breakdown_value, sum(${query.series.map((_, index) => `s${index}::INTEGER`).join(" + ")}) AS volume FROM matched GROUP BY breakdown_value`,
    "), ranked AS (",
    "  SELECT breakdown_value, row_number() OVER (ORDER BY volume DESC, breakdown_value ASC NULLS LAST) AS rank FROM volumes",
    "), grouped AS (",
    `  SELECT m.*, CASE WHEN r.rank <= ${limit} THEN r.rank END AS rank`,
    "  FROM matched m JOIN ranked r ON m.breakdown_value IS NOT DISTINCT FROM r.breakdown_value",
    ")",
    selects.join("\nUNION ALL\n"),
    "ORDER BY series, rank NULLS LAST, bucket NULLS FIRST",
  ].join("\n");
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
