// Revenue as SQL: the series' whole-number amounts, signed and weighted, summed per
// (bucket key, currency) and per currency over the range, rounded half away from zero. With a
// target currency, each amount is converted first (revenue-rates-sql.ts); revenue per person
// divides by the distinct persons with a charge. The subscription measures are in
// revenue-mrr-sql.ts.
import type { Query } from "../ir/query.ts";
import { BucketMap } from "../buckets.ts";
import { readsSubscriptionHistory } from "../ir/revenue-options.ts";
import { revenueFrom, type RevenueResult, type RevenueRow } from "../kinds/revenue-result.ts";
import { referenceRates } from "../revenue/rates.ts";
import { and, asNumber, asText, filterValue, fromEvents, rangeAndFilters, seriesConditions, type SqlKinds } from "./expressions.ts";
import { bucketKeySql, bucketLabelSql } from "./local-time.ts";
import type { Params } from "./params.ts";
import { convertedSelect, ratesCtes, utcDaySql } from "./revenue-rates-sql.ts";
import { revenueMrrFromSql, revenueMrrSql, type RevenueMrrSqlRow } from "./revenue-mrr-sql.ts";

export interface RevenueSqlRow {
  bucket: string | null;
  currency: string | null;
  minor: number;
}

export function revenueSql(query: Query, kinds: SqlKinds, params: Params): string {
  if (readsSubscriptionHistory(query.revenue)) return revenueMrrSql(query, kinds, params);
  const target = query.revenue.currency;
  const perPerson = query.revenue.measure === "revenue_per_person";
  const from = perPerson && !fromEvents(query).startsWith("events e") ? "events e" : fromEvents(query);
  const parts = query.series.map((series) => {
    const amount = asNumber(filterValue({ type: "event", key: series.property! }, kinds));
    const currency = asText(filterValue({ type: "event", key: series.currencyProperty }, kinds));
    const where = [...rangeAndFilters(query, kinds, params), ...seriesConditions(series.event, series.filters, kinds, params), `${amount} = trunc(${amount})`];
    const columns = target === null
      ? [`${bucketKeySql(query)} AS key`, `upper(${currency}) AS currency`, `${series.refund ? "-" : ""}${amount} * (1.0 / e.sample_rate) AS minor`]
      : [`${bucketKeySql(query)} AS key`, `upper(${currency}) AS currency`, `${amount} AS amount`, `${series.refund ? -1 : 1} AS sign`, "1.0 / e.sample_rate AS weight", `${utcDaySql("e.timestamp")} AS day`];
    if (perPerson) columns.push("e.person_id AS person", `${!series.refund} AS paid`);
    return [`  SELECT ${columns.join(", ")}`, `  FROM ${from}`, `  WHERE ${and(where)}`].join("\n");
  });
  const payerColumns = perPerson ? ["person", "paid"] : [];
  const ctes = target === null
    ? ["amounts AS (", parts.join("\n  UNION ALL\n"), ")"]
    : [
      ratesCtes(target, referenceRates()) + ",",
      "read AS (", parts.join("\n  UNION ALL\n"), "),",
      "converted AS (", convertedSelect("read", "amount", ["key", "sign", "weight", ...payerColumns], target, referenceRates()), "),",
      `amounts AS (SELECT key, currency, sign * amount * weight AS minor${payerColumns.map((column) => `, ${column}`).join("")} FROM converted)`,
    ];
  const payers = "count(DISTINCT person) FILTER (WHERE paid)";
  const value = perPerson ? `CASE WHEN ${payers} = 0 THEN 0 ELSE round(sum(minor) / ${payers}) END` : "round(sum(minor))";
  return [
    `WITH ${ctes.join("\n")}`,
    `SELECT ${bucketLabelSql(query.interval, "key")} AS bucket, currency, ${value} AS minor FROM amounts`,
    "GROUP BY GROUPING SETS ((key, currency), (currency))",
    "ORDER BY currency, bucket",
  ].join("\n");
}

/** Rows with a null bucket are the currency's range totals. */
export function revenueFromSql(query: Query, rows: RevenueSqlRow[] | RevenueMrrSqlRow[]): RevenueResult {
  if (readsSubscriptionHistory(query.revenue)) return revenueMrrFromSql(query, rows as RevenueMrrSqlRow[]);
  const labels = new BucketMap(query).labels;
  const byCurrency = new Map<string | null, RevenueRow>();
  for (const row of rows as RevenueSqlRow[]) {
    let out = byCurrency.get(row.currency);
    if (!out) byCurrency.set(row.currency, (out = { currency: row.currency, values: new Array<number>(labels.length).fill(0), total: 0 }));
    if (row.bucket === null) out.total = Number(row.minor) + 0;
    else out.values[labels.indexOf(row.bucket)] = Number(row.minor) + 0;
  }
  return revenueFrom(query, labels, [...byCurrency.values()]);
}
