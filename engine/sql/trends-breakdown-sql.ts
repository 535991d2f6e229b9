// Trends by a breakdown as SQL: the rows of any series are read once, the values ranked once
// over all series by their rows (same rule as engine/breakdown.ts), and rows outside the top
// N fall into rank NULL ("other"). When every series' aggregate can be combined from parts
// (counts, sums, minima, maxima; distinct counts by grouping on the counted id), the rows are
// first reduced to one cell per (bucket, value[, id]) and only the cells are ranked and
// joined, as a DuckDB user would write it; quantiles need every row, so a query with one
// ranks and groups the rows themselves.
import type { Query, Series } from "../ir/query.ts";
import { and, breakdownValueSql, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketKeySql, bucketLabelSql } from "./local-time.ts";
import type { Params } from "./params.ts";
import { aggregate, numberOf, seriesInputs, weight } from "./trends-aggregates-sql.ts";

const combinable = (series: Series) => !["p50", "p90", "p99"].includes(series.math);

/** Each series' partial aggregates over a cell's rows (`s<i>`: the row is the series'). */
function partials(series: Series, index: number): string[] {
  const mine = (sql: string) => `${sql} FILTER (WHERE s${index})`;
  const rows = `${mine("count(*)")} AS rows${index}`;
  const number = `n${index}`;
  switch (series.math) {
    case "total":
      return [rows, `${mine(`sum(${weight})`)} AS weight${index}`];
    case "sum":
      return [rows, `${mine(`sum(${number} * ${weight})`)} AS sum${index}`];
    case "avg":
      return [rows, `${mine(`sum(${number} * ${weight})`)} AS sum${index}`, `${mine(`sum(CASE WHEN ${number} IS NOT NULL THEN ${weight} END)`)} AS weighted${index}`];
    case "min":
    case "max":
      return [rows, `${mine(`${series.math}(${number})`)} AS ${series.math}${index}`];
    default:
      return [rows];
  }
}

/** A series' value over the cells of one (bucket, rank), from its partials. */
function combined(series: Series, index: number): string {
  switch (series.math) {
    case "total":
      return `coalesce(sum(weight${index}), 0)`;
    case "sum":
      return `coalesce(sum(sum${index}), 0)`;
    case "avg":
      return `sum(sum${index}) / sum(weighted${index})`;
    case "min":
    case "max":
      return `${series.math}(${series.math}${index})`;
    default:
      // A distinct count: the counted id is part of each cell's key.
      return aggregate(series, "");
  }
}

export function trendsBreakdownSql(query: Query, kinds: SqlKinds, params: Params): string {
  const breakdown = query.breakdown!;
  const label = bucketLabelSql(query.interval, "key");
  const matches = query.series.map((series, index) => `coalesce(${and(seriesConditions(series.event, series.filters, kinds, params))}, FALSE) AS s${index}`);
  const numbers = query.series.flatMap((series, index) => {
    const number = numberOf(series, kinds);
    return number === null ? [] : [`${number} AS n${index}`];
  });
  const inputs = [...new Set(query.series.flatMap(seriesInputs))];
  const where = and([...rangeAndFilters(query, kinds, params), `(${query.series.map((_, index) => `s${index}`).join(" OR ")})`]);
  const rowsSql = (indent: string) => [
    `${indent}SELECT ${bucketKeySql(query)} AS key, ${breakdownValueSql(breakdown, kinds)} AS breakdown_value,`,
    `${indent}       ${[...inputs, ...matches, ...numbers].join(`,\n${indent}       `)}`,
    `${indent}FROM ${fromEvents(query)}`,
    `${indent}WHERE ${where}`,
  ];
  const limit = params.add(breakdown.limit);
  const ranking = (volume: string, source: string) => [
    "), ranked AS (",
    `  SELECT breakdown_value, row_number() OVER (ORDER BY ${volume} DESC, breakdown_value ASC NULLS LAST) AS rank FROM ${source} GROUP BY breakdown_value`,
    "), grouped AS (",
    `  SELECT m.*, CASE WHEN r.rank <= ${limit} THEN r.rank END AS rank`,
    `  FROM ${source} m JOIN ranked r ON m.breakdown_value IS NOT DISTINCT FROM r.breakdown_value`,
    ")",
  ];
  const perSeries = (value: (series: Series, index: number) => string, rowsOf: (index: number) => string) =>
    query.series.map((series, index) =>
      [
        `SELECT ${index} AS series, ${label} AS bucket, rank, min(breakdown_value) FILTER (WHERE rank IS NOT NULL) AS breakdown_value, ${value(series, index)} AS value`,
        `FROM grouped WHERE ${rowsOf(index)}`,
        "GROUP BY GROUPING SETS ((key, rank), (rank))",
      ].join("\n"),
    );
  const order = "ORDER BY series, rank NULLS LAST, bucket NULLS FIRST";
  if (!query.series.every(combinable)) {
    const volume = `sum(${query.series.map((_, index) => `s${index}::INTEGER`).join(" + ")})`;
    return ["WITH matched AS (", ...rowsSql("  "), ...ranking(volume, "matched"), perSeries((series, index) => aggregate(series, `n${index}`), (index) => `s${index}`).join("\nUNION ALL\n"), order].join("\n");
  }
  const ids = inputs.filter((input) => input !== "e.sample_rate").map((input) => input.slice("e.".length));
  const volume = `sum(${query.series.map((_, index) => `rows${index}`).join(" + ")})`;
  return [
    "WITH cells AS (",
    `  SELECT key, breakdown_value, ${[...ids, ...query.series.flatMap(partials)].join(", ")}`,
    "  FROM (",
    ...rowsSql("    "),
    "  )",
    "  GROUP BY ALL",
    ...ranking(volume, "cells"),
    perSeries(combined, (index) => `rows${index} > 0`).join("\nUNION ALL\n"),
    order,
  ].join("\n");
}
