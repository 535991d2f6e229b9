// Revenue measures as a chart reads them: money in each row's currency, MRR movements as bars
// stacked per currency with net drawn as a line over them, churn rates as percentages, and
// each row named by its label (with its currency when the answer has several).
import { describe, expect, test } from "bun:test";
import type { RevenueResult } from "../../../../web/console/api/query-types.ts";
import { seriesShape } from "../../../../web/console/charts/series-data.ts";
import { revenueSeries } from "../../../../web/console/charts/series-set.ts";
import { formatMoney, formatPercent } from "../../../../web/console/format/numbers.ts";

const base = { kind: "revenue" as const, interval: "month", time_zone: "UTC", buckets: ["2026-09-01", "2026-10-01"] };
const movements = ["new", "expansion", "contraction", "churned", "reactivated", "net"];

const movementRows = (currency: string | null, scale: number) =>
  movements.map((label, at) => ({ currency, label, values: [at * scale, -at * scale], total: 0 }));

describe("revenueSeries", () => {
  test("MRR movements in one currency: labels as names, money, stacked bars with net as a line", () => {
    const result: RevenueResult = { ...base, measure: "mrr_movements", currency: "EUR", rows: movementRows("EUR", 100) };
    const set = revenueSeries(result, "EUR");
    expect(set.style).toBe("stacked_bar");
    expect(set.series.map((series) => [series.key, series.name, series.stack, series.overlay])).toEqual([
      ["currency-EUR-new", "New", "EUR", false],
      ["currency-EUR-expansion", "Expansion", "EUR", false],
      ["currency-EUR-contraction", "Contraction", "EUR", false],
      ["currency-EUR-churned", "Churned", "EUR", false],
      ["currency-EUR-reactivated", "Reactivated", "EUR", false],
      ["currency-EUR-net", "Net", "EUR", true],
    ]);
    expect(set.series[3]!.format(-2500)).toBe(formatMoney(-2500, "EUR"));
    expect(set.axisFormat(1000)).toBe(formatMoney(1000, "EUR"));
    expect(set.series.map((series) => [series.name, seriesShape(series, "stacked_bar"), seriesShape(series, "area").type])).toEqual([
      ["New", { type: "bar", stack: "EUR" }, "line"],
      ["Expansion", { type: "bar", stack: "EUR" }, "line"],
      ["Contraction", { type: "bar", stack: "EUR" }, "line"],
      ["Churned", { type: "bar", stack: "EUR" }, "line"],
      ["Reactivated", { type: "bar", stack: "EUR" }, "line"],
      ["Net", { type: "line", stack: undefined }, "line"],
    ]);
  });

  test("MRR movements in two currencies (one not converted): a stack per currency, names with the currency", () => {
    const result: RevenueResult = { ...base, measure: "mrr_movements", currency: "EUR", rows: [...movementRows("EUR", 100), ...movementRows(null, 1)] };
    const set = revenueSeries(result, "EUR");
    expect(set.series.map((series) => [series.name, series.stack])).toEqual([
      ...["New", "Expansion", "Contraction", "Churned", "Reactivated", "Net"].map((name) => [`${name} (EUR)`, "EUR"]),
      ...["New", "Expansion", "Contraction", "Churned", "Reactivated", "Net"].map((name) => [`${name} (No currency (as EUR))`, "EUR"]),
    ]);
    expect(new Set(set.series.map((series) => series.key)).size).toBe(12);
  });

  test("churn rate: ratios as percentages on a line, rows named by their label", () => {
    const result: RevenueResult = {
      ...base,
      measure: "churn_rate",
      currency: "EUR",
      rows: [
        { currency: "EUR", label: "customer_churn", values: [0.333333, 0], total: 0.5 },
        { currency: "EUR", label: "revenue_churn", values: [0.142857, 0.25], total: 0.2 },
      ],
    };
    const set = revenueSeries(result, "EUR");
    expect(set.style).toBeUndefined();
    expect(set.series.map((series) => [series.name, series.total, series.format(series.values[0]!), series.overlay])).toEqual([
      ["Customer churn", 0.5, formatPercent(0.333333), undefined],
      ["Revenue churn", 0.2, formatPercent(0.142857), undefined],
    ]);
    expect(set.axisFormat(0.25)).toBe(formatPercent(0.25));
  });

  test("MRR and plain revenue: a row per currency named by it, money in its currency", () => {
    const result: RevenueResult = { ...base, measure: "mrr", currency: "EUR", rows: [{ currency: "EUR", values: [1000, 1500], total: 1500 }, { currency: "JPY", values: [500, 500], total: 500 }, { currency: null, values: [1, 2], total: 2 }] };
    const set = revenueSeries(result, "EUR");
    expect(set.series.map((series) => [series.key, series.name, series.format(series.total!)])).toEqual([
      ["currency-EUR", "EUR", formatMoney(1500, "EUR")],
      ["currency-JPY", "JPY", formatMoney(500, "JPY")],
      ["currency-", "No currency (as EUR)", formatMoney(2, "EUR")],
    ]);
  });
});

describe("seriesShape", () => {
  test("series without a stack share one; bar and line styles draw them unstacked", () => {
    const plain = { key: "a", name: "a", values: [1], total: 1, format: String };
    expect(seriesShape(plain, "stacked_bar")).toEqual({ type: "bar", stack: "all" });
    expect(seriesShape(plain, "bar")).toEqual({ type: "bar", stack: undefined });
    expect(seriesShape({ ...plain, stack: "USD" }, "bar")).toEqual({ type: "bar", stack: undefined });
    expect(seriesShape(plain, "line")).toEqual({ type: "line", stack: undefined });
  });
});
