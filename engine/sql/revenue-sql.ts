// Revenue as SQL: the series' whole-number amounts, signed and weighted, summed per
// (bucket key, currency) and per currency over the range, rounded half away from zero.
import type { Query } from "../ir/query.ts";
import { BucketMap } from "../buckets.ts";
import { revenueFrom, type RevenueResult, type RevenueRow } from "../kinds/revenue.ts";
import { and, asNumber, asText, filterValue, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketKeySql, bucketLabelSql } from "./local-time.ts";
import type { Params } from "./params.ts";

export interface RevenueSqlRow {
  bucket: string | null;
  currency: string | null;
  minor: number;
}

export function revenueSql(query: Query, kinds: SqlKinds, params: Params): string {
  const parts = query.series.map((series) => {
    const amount = asNumber(filterValue({ type: "event", key: series.property! }, kinds));
    const currency = asText(filterValue({ type: "event", key: series.currencyProperty }, kinds));
    const where = [...rangeAndFilters(query, kinds, params), ...seriesConditions(series.event, series.filters, kinds, params), `${amount} = trunc(${amount})`];
    return [
      `  SELECT ${bucketKeySql(query)} AS key, upper(${currency}) AS currency, ${series.refund ? "-" : ""}${amount} * (1.0 / e.sample_rate) AS minor`,
      `  FROM ${fromEvents(query)}`,
      `  WHERE ${and(where)}`,
    ].join("\n");
  });
  return [
    "WITH amounts AS (",
    parts.join("\n  UNION ALL\n"),
    ")",
    `SELECT ${bucketLabelSql(query.interval, "key")} AS bucket, currency, round(sum(minor)) AS minor FROM amounts`,
    "GROUP BY GROUPING SETS ((key, currency), (currency))",
    "ORDER BY currency, bucket",
  ].join("\n");
}

/** Rows with a null bucket are the currency's range totals. */
export function revenueFromSql(query: Query, rows: RevenueSqlRow[]): RevenueResult {
  const labels = new BucketMap(query).labels;
  const byCurrency = new Map<string | null, RevenueRow>();
  for (const row of rows) {
    let out = byCurrency.get(row.currency);
    if (!out) byCurrency.set(row.currency, (out = { currency: row.currency, values: new Array<number>(labels.length).fill(0), total: 0 }));
    if (row.bucket === null) out.total = Number(row.minor) + 0;
    else out.values[labels.indexOf(row.bucket)] = Number(row.minor) + 0;
  }
  return revenueFrom(query, labels, [...byCurrency.values()]);
}
