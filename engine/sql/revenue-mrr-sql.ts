// The subscription measures as SQL (kinds/revenue-mrr.ts says what they mean): subscription
// events before the range's end, one state per subscription and millisecond, each
// subscription's state at every instant (ASOF join), person MRR per currency at each instant,
// then MRR, movements or churn from consecutive instants.
import type { Query } from "../ir/query.ts";
import { BucketMap } from "../buckets.ts";
import { churnLabels, churnRatio, movementLabels, mrrInstants } from "../kinds/revenue-mrr.ts";
import { revenueFrom, type RevenueRow } from "../kinds/revenue-result.ts";
import { revenueProperties } from "../revenue-events.ts";
import { referenceRates } from "../revenue/rates.ts";
import { and, asNumber, asText, conditions, filterValue, fromEvents, instantParam, readsPersons, type SqlKinds } from "./expressions.ts";
import type { Params } from "./params.ts";
import { convertedSelect, ratesCtes, utcDaySql } from "./revenue-rates-sql.ts";

/** One currency's sums at one instant's slot (1..buckets; null: the range as one period). */
export interface RevenueMrrSqlRow {
  currency: string | null;
  slot: number | null;
  [column: string]: string | number | null;
}

const instantLiteral = (at: number) => `'${new Date(at).toISOString()}'::TIMESTAMPTZ`;

export function revenueMrrSql(query: Query, kinds: SqlKinds, params: Params): string {
  const measure = query.revenue.measure;
  const target = query.revenue.currency;
  const value = (key: string) => filterValue({ type: "event", key }, kinds);
  const mrr = asNumber(value(revenueProperties.mrr));
  const subscription = asText(value(revenueProperties.subscriptionId));
  const currency = asText(value(revenueProperties.currency));
  const events = query.series.map((series) => params.add(series.event!)).join(", ");
  const where = [
    `e.timestamp < ${instantParam(params, query.to)}`,
    ...conditions(query.filters, kinds, params),
    `e.event IN (${events})`,
    ...conditions(query.series[0]!.filters, kinds, params),
    `${mrr} = trunc(${mrr})`,
    `${mrr} >= 0`,
  ];
  const instants = mrrInstants(query);
  const n = instants.length - 1;
  const read = [
    "read AS (",
    `  SELECT e.person_id AS person, ${subscription} AS subscription, e.timestamp AS happened, ${utcDaySql("e.timestamp")} AS day, upper(${currency}) AS currency, ${mrr} AS mrr`,
    `  FROM ${readsPersons(query) ? fromEvents(query) : "events e"}`,
    `  WHERE ${and(where)}`,
    "),",
  ];
  const subscriptionEvents = target === null
    ? "subscription_events AS (SELECT person, subscription, happened, currency, mrr FROM read),"
    : `subscription_events AS (\n${convertedSelect("read", "mrr", ["person", "subscription", "happened"], target, referenceRates())}\n),`;
  const common = [
    ...(target === null ? [] : [ratesCtes(target, referenceRates()) + ","]),
    ...read,
    subscriptionEvents,
    "states AS (",
    "  SELECT * FROM subscription_events",
    "  QUALIFY row_number() OVER (PARTITION BY person, subscription, happened ORDER BY mrr DESC, currency DESC NULLS LAST) = 1",
    "),",
    `instants(slot, instant) AS (VALUES ${instants.map((at, slot) => `(${slot}, ${instantLiteral(at)})`).join(", ")}),`,
    "at_instants AS (",
    "  SELECT g.slot, g.person, s.currency, s.mrr",
    "  FROM (SELECT k.person, k.subscription, i.slot, i.instant FROM (SELECT DISTINCT person, subscription FROM states) k CROSS JOIN instants i) g",
    "  ASOF JOIN states s ON s.person = g.person AND s.subscription = g.subscription AND g.instant > s.happened",
    "),",
    "pairs AS (SELECT person, currency, min(happened) FILTER (WHERE mrr > 0) AS first_positive FROM states GROUP BY person, currency),",
    "person_mrr AS (",
    "  SELECT p.person, p.currency, p.first_positive, i.slot, i.instant, coalesce(sum(a.mrr), 0) AS mrr",
    "  FROM pairs p CROSS JOIN instants i",
    "  LEFT JOIN at_instants a ON a.person = p.person AND a.currency IS NOT DISTINCT FROM p.currency AND a.slot = i.slot",
    "  GROUP BY ALL",
    ")",
  ];
  const pairsOf = (slotSql: string, condition: string) => [
    `  SELECT a.currency, ${slotSql} AS slot, a.mrr AS before, b.mrr AS after, coalesce(a.first_positive < a.instant, FALSE) AS was_paying`,
    "  FROM person_mrr a JOIN person_mrr b ON b.person = a.person AND b.currency IS NOT DISTINCT FROM a.currency AND " + condition,
  ].join("\n");
  if (measure === "mrr" || measure === "arr") {
    return [
      `WITH ${common.join("\n")}`,
      `SELECT currency, slot, ${measure === "arr" ? "12 * " : ""}sum(mrr) AS value FROM person_mrr WHERE slot > 0 GROUP BY ALL ORDER BY currency, slot`,
    ].join("\n");
  }
  const steps = [",", "steps AS (", pairsOf("b.slot", "b.slot = a.slot + 1"), ...(measure === "churn_rate" ? ["  UNION ALL", pairsOf("NULL", `a.slot = 0 AND b.slot = ${n}`)] : []), ")"];
  const aggregates = measure === "mrr_movements"
    ? [
      "sum(CASE WHEN before = 0 AND after > 0 AND NOT was_paying THEN after ELSE 0 END) AS new",
      "sum(CASE WHEN before > 0 AND after > before THEN after - before ELSE 0 END) AS expansion",
      "sum(CASE WHEN before > 0 AND after > 0 AND after < before THEN after - before ELSE 0 END) AS contraction",
      "sum(CASE WHEN before > 0 AND after = 0 THEN -before ELSE 0 END) AS churned",
      "sum(CASE WHEN before = 0 AND after > 0 AND was_paying THEN after ELSE 0 END) AS reactivated",
      "sum(after - before) AS net",
    ]
    : [
      "count(*) FILTER (WHERE before > 0) AS customers",
      "count(*) FILTER (WHERE before > 0 AND after = 0) AS churned",
      "sum(before) AS start_mrr",
      "sum(CASE WHEN after < before THEN before - after ELSE 0 END) AS lost",
    ];
  return [
    `WITH ${common.join("\n")}${steps.join("\n")}`,
    `SELECT currency, slot, ${aggregates.join(", ")}`,
    "FROM steps GROUP BY ALL ORDER BY currency, slot",
  ].join("\n");
}

export function revenueMrrFromSql(query: Query, rows: RevenueMrrSqlRow[]): ReturnType<typeof revenueFrom> {
  const labels = new BucketMap(query).labels;
  const n = labels.length;
  const measure = query.revenue.measure;
  const names: readonly string[] = measure === "mrr_movements" ? movementLabels : measure === "churn_rate" ? churnLabels : ["value"];
  const byCurrency = new Map<string | null, RevenueRow[]>();
  const number = (value: unknown) => Number(value ?? 0) + 0;
  const range = new Map<string | null, RevenueMrrSqlRow>();
  for (const row of rows) {
    let out = byCurrency.get(row.currency);
    if (!out) {
      byCurrency.set(row.currency, (out = names.map((label) => ({ currency: row.currency, ...(names.length > 1 ? { label } : {}), values: new Array<number>(n).fill(0), total: 0 }))));
    }
    if (row.slot === null) {
      range.set(row.currency, row);
      continue;
    }
    const bucket = Number(row.slot) - 1;
    if (measure === "churn_rate") {
      out[0]!.values[bucket] = churnRatio(number(row.churned), number(row.customers));
      out[1]!.values[bucket] = churnRatio(number(row.lost), number(row.start_mrr));
    } else names.forEach((name, index) => (out![index]!.values[bucket] = number(row[name])));
  }
  for (const [currency, out] of byCurrency) {
    if (measure === "churn_rate") {
      const whole = range.get(currency)!;
      out[0]!.total = churnRatio(number(whole.churned), number(whole.customers));
      out[1]!.total = churnRatio(number(whole.lost), number(whole.start_mrr));
    } else if (measure === "mrr_movements") for (const row of out) row.total = row.values.reduce((sum, value) => sum + value, 0) + 0;
    else out[0]!.total = out[0]!.values[n - 1]!;
  }
  return revenueFrom(query, labels, [...byCurrency.values()].flat());
}
