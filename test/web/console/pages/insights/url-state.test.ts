// The insight builder's state in its URL: what is encoded decodes to the same state, a link
// without `q` opens the fallback (a saved insight or a new one), and a link whose document or
// viz cannot be read falls back instead of breaking the page.
import { describe, expect, test } from "bun:test";
import { defaultViz } from "../../../../../web/console/api/insight-types.ts";
import { decodeBuilderState, encodeBuilderState, newInsightState, type BuilderState } from "../../../../../web/console/pages/insights/url-state.ts";

const funnelState: BuilderState = {
  query: {
    ir_version: 1,
    date_range: { from: "2026-11-01", to: "today" },
    filters: [{ type: "event", key: "plan", operator: "in", value: ["pro", "team & co"] }, { type: "cohort", cohort_id: "0193a7c2-0000-7000-8000-00000000000a", operator: "not_in" }],
    insight: {
      kind: "funnel",
      series: [{ event: "$pageview" }, { event: "signed_up?a=1&b=#x" }, { event: "<img src=x onerror=alert(1)>" }],
      funnel_window: { value: 3, unit: "hour" },
      funnel_order: "strict",
      exclusions: [{ event: "cancelled", from_step: 0, to_step: 1 }],
      breakdown: { type: "person", property: "país", limit: 5 },
    },
  },
  viz: { display: "table", show_legend: false, show_values: true, y_scale: "linear", stacked_percent: false },
  view: "table",
};

describe("encodeBuilderState and decodeBuilderState", () => {
  test("round trip: every kind's state comes back equal, through URL-unsafe text", () => {
    for (const state of [newInsightState(), funnelState, { ...newInsightState(), view: "table" as const }]) {
      const search = encodeBuilderState(state);
      expect(decodeBuilderState(search, newInsightState())).toEqual({ state, problem: null });
      expect(decodeBuilderState(new URL(`http://console.test/p${search}`).search, newInsightState())).toEqual({ state, problem: null });
    }
  });

  test("the kind's default viz and the chart view are left out of the URL", () => {
    const search = encodeBuilderState(newInsightState());
    expect([...new URLSearchParams(search).keys()]).toEqual(["q"]);
    expect(JSON.parse(new URLSearchParams(search).get("q")!)).toEqual(newInsightState().query);
  });

  test("without q, the fallback opens, in the view the link names", () => {
    expect(decodeBuilderState("", funnelState)).toEqual({ state: { ...funnelState, view: "chart" }, problem: null });
    expect(decodeBuilderState("?view=table", newInsightState())).toEqual({ state: { ...newInsightState(), view: "table" }, problem: null });
  });

  test("a document that cannot be read falls back and says so", () => {
    const problem = "The insight in this link could not be read, so it is not shown.";
    for (const q of ["{not json", "[]", JSON.stringify({ ir_version: 2, date_range: { from: "-7d" }, insight: { kind: "trends" } }), JSON.stringify({ ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "pie" } }), JSON.stringify({ ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "trends", series: "all" } })]) {
      expect(decodeBuilderState(`?${new URLSearchParams({ q })}`, funnelState)).toEqual({ state: { ...funnelState, view: "chart" }, problem });
    }
  });

  test("a document the engine would refuse still opens: the engine answers it where it occurs", () => {
    const query = { ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "trends", series: [{ event: "x", math: "sum" }] } };
    expect(decodeBuilderState(`?${new URLSearchParams({ q: JSON.stringify(query) })}`, funnelState).state.query).toEqual(query as BuilderState["query"]);
  });

  test("a viz that does not fit the kind, or cannot be read, is the kind's default", () => {
    const q = JSON.stringify(newInsightState().query);
    for (const viz of ["{", JSON.stringify({ ...defaultViz("trends"), display: "sankey" }), JSON.stringify({ display: "bar" })]) {
      expect(decodeBuilderState(`?${new URLSearchParams({ q, viz })}`, funnelState).state.viz).toEqual(defaultViz("trends"));
    }
  });
});
