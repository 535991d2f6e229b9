// The revenue measures on a small hand-made history, answers computed by hand (and DuckDB's
// answer on the compiled SQL must be the same); the validation of the new members.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { executeQuery } from "../../../engine/execute.ts";
import { QueryLimitError } from "../../../engine/query-data.ts";
import { InvalidQueryError, validateQuery } from "../../../engine/ir/validate.ts";
import { DuckDbSession } from "../../../engine/sql/duckdb.ts";
import { revenueFromSql, type RevenueSqlRow } from "../../../engine/sql/revenue-sql.ts";
import { storedEvent } from "../../storage/fixtures.ts";
import { datasetOf, type Dataset } from "../dataset.ts";
import { compiledSqlRows } from "../compiled-sql-rows.ts";

const limits = { rowsMax: 1_000_000, deadline: Number.MAX_SAFE_INTEGER };
const now = Date.parse("2026-04-01T00:00:00Z");
const at = (text: string) => Date.parse(text);
let dataset: Dataset;
let duck: DuckDbSession;

const event = (person: number, name: string, time: string, properties: Record<string, unknown>) =>
  storedEvent({ event: name, timestamp: at(time), distinct_id: `user-${person}`, person_index: person, properties });

beforeAll(async () => {
  dataset = await datasetOf([
    // Alice (EUR): subscribed in February, upgrades, expires, comes back with a new subscription.
    event(0, "$subscription_started", "2026-02-01T10:00:00Z", { subscription_id: "a1", mrr: 1000, currency: "EUR" }),
    event(0, "$charge", "2026-03-02T09:00:00Z", { amount: 1000, currency: "EUR" }),
    event(0, "$subscription_upgraded", "2026-03-02T10:00:00Z", { subscription_id: "a1", mrr: 1500, currency: "EUR" }),
    event(0, "$subscription_expired", "2026-03-03T12:00:00Z", { subscription_id: "a1", mrr: 0, currency: "EUR" }),
    event(0, "$subscription_started", "2026-03-04T08:00:00Z", { subscription_id: "a2", mrr: 2000, currency: "eur" }),
    // Bob (EUR): a trial, converted; two events at one millisecond (the greater mrr counts).
    event(1, "$trial_started", "2026-03-02T09:00:00Z", { subscription_id: "b1", mrr: 0, currency: "EUR" }),
    event(1, "$trial_converted", "2026-03-03T09:00:00Z", { subscription_id: "b1", mrr: 900, currency: "EUR" }),
    event(1, "$charge", "2026-03-03T09:00:00Z", { amount: 500, currency: "EUR" }),
    event(1, "$refund", "2026-03-03T10:00:00Z", { amount: 200, currency: "EUR" }),
    event(1, "$subscription_downgraded", "2026-03-04T10:00:00Z", { subscription_id: "b1", mrr: 500, currency: "EUR" }),
    event(1, "$subscription_renewed", "2026-03-04T10:00:00Z", { subscription_id: "b1", mrr: 900, currency: "EUR" }),
    // Carol (USD): subscribed in January, downgrades.
    event(2, "$subscription_started", "2026-01-10T00:00:00Z", { subscription_id: "c1", mrr: 2000, currency: "USD" }),
    event(2, "$subscription_downgraded", "2026-03-04T11:00:00Z", { subscription_id: "c1", mrr: 1200, currency: "USD" }),
    // Hostile or incomplete: left out.
    event(3, "$subscription_started", "2026-03-02T11:00:00Z", { subscription_id: "d1", mrr: "abc", currency: "EUR" }),
    event(3, "$subscription_started", "2026-03-02T12:00:00Z", { subscription_id: "d2", mrr: 12.5, currency: "EUR" }),
    event(3, "$subscription_started", "2026-03-02T13:00:00Z", { subscription_id: "d3", mrr: -100, currency: "EUR" }),
    event(3, "$subscription_started", "2026-03-02T14:00:00Z", { mrr: 700, currency: "EUR" }),
    event(3, "page_viewed", "2026-03-02T15:00:00Z", { subscription_id: "d4", mrr: 700, currency: "EUR" }),
  ]);
  duck = await DuckDbSession.open(1);
});

afterAll(async () => {
  duck.close();
  await dataset.close();
});

const document = (insight: Record<string, unknown>) => ({
  ir_version: 1, date_range: { from: "2026-03-02", to: "2026-03-04" }, insight: { kind: "revenue", interval: "day", ...insight },
});

/** The executor's answer, after checking DuckDB's answer on the compiled SQL is the same. */
async function answer(insight: Record<string, unknown>): Promise<unknown> {
  const query = validateQuery(document(insight), "UTC", now);
  const execution = await executeQuery(query, dataset.source(), limits, true);
  const rows = await compiledSqlRows<RevenueSqlRow>(duck, dataset, query, limits, execution.sql!);
  expect(revenueFromSql(query, rows)).toEqual(execution.result as never);
  return execution.result;
}

const base = { kind: "revenue", interval: "day", time_zone: "UTC", buckets: ["2026-03-02", "2026-03-03", "2026-03-04"] };

describe("subscription measures", () => {
  test("mrr: each subscription's latest state before each interval's end, history before the range included", async () => {
    expect(await answer({ revenue_measure: "mrr" })).toEqual({
      ...base, measure: "mrr",
      rows: [{ currency: "EUR", values: [1500, 900, 2900], total: 2900 }, { currency: "USD", values: [2000, 2000, 1200], total: 1200 }],
    });
  });

  test("arr is 12 x mrr", async () => {
    expect(await answer({ revenue_measure: "arr" })).toEqual({
      ...base, measure: "arr",
      rows: [{ currency: "EUR", values: [18000, 10800, 34800], total: 34800 }, { currency: "USD", values: [24000, 24000, 14400], total: 14400 }],
    });
  });

  test("mrr_movements: new, expansion, contraction, churned, reactivated and net per person and interval", async () => {
    const rows = (currency: string, values: Record<string, number[]>) => Object.entries(values).map(([label, row]) => ({ currency, label, values: row, total: row.reduce((a, b) => a + b, 0) }));
    expect(await answer({ revenue_measure: "mrr_movements" })).toEqual({
      ...base, measure: "mrr_movements",
      rows: [
        ...rows("EUR", { new: [0, 900, 0], expansion: [500, 0, 0], contraction: [0, 0, 0], churned: [0, -1500, 0], reactivated: [0, 0, 2000], net: [500, -600, 2000] }),
        ...rows("USD", { new: [0, 0, 0], expansion: [0, 0, 0], contraction: [0, 0, -800], churned: [0, 0, 0], reactivated: [0, 0, 0], net: [0, 0, -800] }),
      ],
    });
  });

  test("churn_rate: customers and MRR lost over those paying at each interval's start; the range as one period for the totals", async () => {
    expect(await answer({ revenue_measure: "churn_rate" })).toEqual({
      ...base, measure: "churn_rate",
      rows: [
        { currency: "EUR", label: "customer_churn", values: [0, 1, 0], total: 0 },
        { currency: "EUR", label: "revenue_churn", values: [0, 1, 0], total: 0 },
        { currency: "USD", label: "customer_churn", values: [0, 0, 0], total: 0 },
        { currency: "USD", label: "revenue_churn", values: [0, 0, 0.4], total: 0.4 },
      ],
    });
  });

  test("with a target currency, every amount is converted at its day's rate into one row", async () => {
    // 2026 is past the bundled table's last day (2025-05-09): its last USD rate is used.
    const usdPerEuro = 1.1252;
    const euros = (cents: number) => Math.round(cents * (1 / usdPerEuro));
    const result = await answer({ revenue_measure: "mrr", currency: "eur" });
    expect(result).toEqual({ ...base, measure: "mrr", currency: "EUR", rows: [{ currency: "EUR", values: [1500 + euros(2000), 900 + euros(2000), 2900 + euros(1200)], total: 2900 + euros(1200) }] });
  });
});

describe("answer size", () => {
  test("rows (currencies x labels) x intervals at the bound: 2 x 6 x 3 = 36 values pass at 36, not at 35", async () => {
    const query = validateQuery(document({ revenue_measure: "mrr_movements" }), "UTC", now);
    expect((await executeQuery(query, dataset.source(), { ...limits, answerCellsMax: 36 })).result.kind).toBe("revenue");
    const refused = await executeQuery(query, dataset.source(), { ...limits, answerCellsMax: 35 }).then(() => null, (error: Error) => error);
    expect(refused).toBeInstanceOf(QueryLimitError);
    expect(refused!.message).toBe(
      "the answer would hold 12 rows (currencies x labels) x 3 day intervals = 36 values; at most 35 (use a longer interval or a shorter date range, or filter on fewer currencies)",
    );
  });
});

describe("sums", () => {
  test("refunds are positive sums of $refund amounts; revenue per person divides charges less refunds by the persons who paid", async () => {
    expect(await answer({ revenue_measure: "refunds" })).toEqual({ ...base, measure: "refunds", rows: [{ currency: "EUR", values: [0, 200, 0], total: 200 }] });
    expect(await answer({ revenue_measure: "revenue_per_person" })).toEqual({
      ...base, measure: "revenue_per_person", rows: [{ currency: "EUR", values: [1000, 300, 0], total: 650 }],
    });
  });

  test("a document without the new members answers as before (no measure, no currency)", async () => {
    expect(await answer({ series: [{ event: "$charge" }, { event: "$refund", refund: true }] })).toEqual({ ...base, rows: [{ currency: "EUR", values: [1000, 300, 0], total: 1300 }] });
  });
});

describe("validation", () => {
  const problem = (insight: Record<string, unknown>) => {
    try {
      validateQuery(document(insight), "UTC", now);
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidQueryError);
      return (error as Error).message;
    }
  };

  test("currency: an ISO 4217 code the rate table has", () => {
    expect(problem({ revenue_measure: "mrr", currency: "XYZ" })).toBe('/insight/currency: "XYZ" is not an ISO 4217 currency code');
    expect(problem({ revenue_measure: "mrr", currency: "EURO" })).toBe('/insight/currency: "EURO" is not an ISO 4217 currency code');
    expect(problem({ revenue_measure: "mrr", currency: "ARS" })).toStartWith("/insight/currency: the reference rate table (ECB) has no rates for ARS; it has AUD, BGN, BRL, CAD, CHF, CNY, CZK, DKK, EUR, GBP,");
    expect(problem({ revenue_measure: "mrr", currency: "usd" })).toBeNull();
  });

  test("series belong to revenue_measure revenue; the new members to revenue insights", () => {
    expect(problem({ revenue_measure: "mrr", series: [{ event: "$charge" }] })).toBe("/insight/series: applies to revenue_measure revenue only (mrr reads the revenue events the payment providers write)");
    expect(problem({ revenue_measure: "revenue" })).toBe("/insight/series: revenue needs at least 1 series");
    expect(problem({ revenue_measure: "median" })).toBe("/insight/revenue_measure: must be one of revenue, mrr, arr, mrr_movements, churn_rate, refunds, revenue_per_person");
    const trends = { ir_version: 1, date_range: { from: "2026-03-02" }, insight: { kind: "trends", series: [{ event: "x" }], currency: "EUR" } };
    expect(() => validateQuery(trends, "UTC", now)).toThrow("/insight/currency: applies to revenue insights only");
  });

  test("the subscription measures read from the beginning; the sums their range", () => {
    expect(validateQuery(document({ revenue_measure: "churn_rate" }), "UTC", now).scanFrom).toBe(Number.NEGATIVE_INFINITY);
    expect(validateQuery(document({ revenue_measure: "refunds" }), "UTC", now).scanFrom).toBe(at("2026-03-02T00:00:00Z"));
  });
});
