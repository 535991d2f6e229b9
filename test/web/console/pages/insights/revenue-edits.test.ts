// The revenue builder's measure and currency: kept in the builder's URL (a link opens the same
// measure and conversion), series sent only with `revenue` (the engine refuses them with the
// other measures), the project's currency passed by default for every measure but `revenue`,
// and a link naming a measure the engine does not know falls back instead of breaking the page.
import { describe, expect, test } from "bun:test";
import { defaultViz } from "../../../../../web/console/api/insight-types.ts";
import type { QueryIrDocument } from "../../../../../web/console/api/query-types.ts";
import { decodeBuilderState, encodeBuilderState, newInsightState, type BuilderState } from "../../../../../web/console/pages/insights/url-state.ts";
import { changeKind } from "../../../../../web/console/pages/insights/query-edits.ts";
import { revenueMeasureList, revenueMeasureOf, withRevenueCurrency, withRevenueMeasure } from "../../../../../web/console/pages/insights/revenue-edits.ts";

const revenue: QueryIrDocument = {
  ir_version: 1,
  date_range: { from: "-3m" },
  filters: [{ type: "event", key: "provider", operator: "eq", value: "stripe" }],
  insight: { kind: "revenue", interval: "month", series: [{ event: "purchase", property: "cents" }, { event: "refund", refund: true }] },
};
const stateOf = (query: QueryIrDocument): BuilderState => ({ query, viz: defaultViz("revenue"), view: "chart" });

describe("withRevenueMeasure", () => {
  test("a subscription measure: no series, the project's currency, the rest of the document kept", () => {
    expect(withRevenueMeasure(revenue, "mrr_movements", "EUR")).toEqual({
      ir_version: 1,
      date_range: { from: "-3m" },
      filters: [{ type: "event", key: "provider", operator: "eq", value: "stripe" }],
      insight: { kind: "revenue", interval: "month", revenue_measure: "mrr_movements", currency: "EUR" },
    });
  });

  test("every measure but revenue converts by default and sends no series", () => {
    for (const measure of revenueMeasureList.filter((value) => value !== "revenue")) {
      const next = withRevenueMeasure(revenue, measure, "JPY");
      expect(next.insight).toEqual({ kind: "revenue", interval: "month", revenue_measure: measure, currency: "JPY" });
      expect(revenueMeasureOf(next)).toBe(measure);
    }
  });

  test("back to revenue: the measure and the conversion are left out, one series comes back", () => {
    const churn = withRevenueMeasure(revenue, "churn_rate", "EUR");
    expect(withRevenueMeasure(churn, "revenue", "EUR").insight).toEqual({ kind: "revenue", interval: "month", series: [{ event: null }] });
    expect(revenueMeasureOf(revenue)).toBe("revenue");
  });

  test("the same measure again changes nothing (a conversion turned off stays off)", () => {
    const perCurrency = withRevenueCurrency(withRevenueMeasure(revenue, "mrr", "EUR"), null);
    expect(perCurrency.insight).toEqual({ kind: "revenue", interval: "month", revenue_measure: "mrr" });
    expect(withRevenueMeasure(perCurrency, "mrr", "EUR")).toBe(perCurrency);
  });

  test("withRevenueCurrency converts plain revenue too, keeping its series", () => {
    expect(withRevenueCurrency(revenue, "USD").insight).toEqual({ ...revenue.insight, currency: "USD" });
  });

  test("changing the kind leaves the measure and currency out", () => {
    const mrr = withRevenueMeasure(revenue, "mrr", "EUR");
    expect(changeKind(mrr, "trends", null).insight).toEqual({ kind: "trends", interval: "month", series: [{ event: null, math: "total" }] });
  });
});

describe("the URL state of the revenue fields", () => {
  test("round trip: every measure, converted or not, comes back equal", () => {
    for (const measure of revenueMeasureList) {
      const measured = withRevenueMeasure(revenue, measure, "EUR");
      for (const query of [measured, withRevenueCurrency(measured, null), withRevenueCurrency(measured, "EUR")]) {
        const state = stateOf(query);
        const search = encodeBuilderState(state);
        expect(decodeBuilderState(search, newInsightState())).toEqual({ state, problem: null });
        expect(JSON.parse(new URLSearchParams(search).get("q")!).insight.revenue_measure).toBe(measure === "revenue" ? undefined : measure);
      }
    }
  });

  test("an unknown measure or a currency that is not text: the fallback, with why", () => {
    for (const insight of [{ ...revenue.insight, revenue_measure: "profit" }, { ...revenue.insight, revenue_measure: 1 }, { ...revenue.insight, revenue_measure: "mrr", currency: 978 }]) {
      const search = `?${new URLSearchParams({ q: JSON.stringify({ ...revenue, insight: insight }) })}`;
      expect(decodeBuilderState(search, newInsightState())).toEqual({ state: newInsightState(), problem: "The insight in this link could not be read, so it is not shown." });
    }
  });
});
