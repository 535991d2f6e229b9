// The insight builder's state in its URL, so a link can be shared and a reload restores it:
// `q` the Query IR document as compact JSON, `viz` the viz object when it is not the kind's
// default, `view=table` for the table view. Decoding checks the document's outline (enough
// for the builder to show it); what the engine refuses it answers itself, where it occurs.
import { defaultViz, displaysByKind, type Display, type InsightViz } from "../../api/insight-types.ts";
import type { InsightKind, QueryIrDocument } from "../../api/query-types.ts";
import { isRevenueMeasure } from "./revenue-edits.ts";

export type ResultViewMode = "chart" | "table";

export interface BuilderState {
  query: QueryIrDocument;
  viz: InsightViz;
  view: ResultViewMode;
}

export const insightKindList = Object.keys(displaysByKind) as InsightKind[];

export const newInsightState = (): BuilderState => ({
  query: { ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "trends", interval: "day", series: [{ event: null, math: "total" }] } },
  viz: defaultViz("trends"),
  view: "chart",
});

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isListOf = (value: unknown, check: (item: unknown) => boolean) => value === undefined || (Array.isArray(value) && value.every(check));

/** The outline the builder reads: the engine checks the rest when the query runs. */
export function isQueryOutline(value: unknown): value is QueryIrDocument {
  if (!isObject(value) || value.ir_version !== 1) return false;
  const { date_range: range, insight, filters } = value;
  if (!isObject(range) || typeof range.from !== "string" || (range.to !== undefined && typeof range.to !== "string")) return false;
  if (!isObject(insight) || !insightKindList.includes(insight.kind as InsightKind)) return false;
  const series = (item: unknown) => isObject(item) && (item.event === null || typeof item.event === "string") && isListOf(item.filters, isObject);
  return (
    isListOf(filters, isObject) &&
    isListOf(insight.series, series) &&
    isListOf(insight.exclusions, isObject) &&
    isListOf(insight.exclude_events, (item) => typeof item === "string") &&
    (insight.breakdown === undefined || (isObject(insight.breakdown) && typeof insight.breakdown.type === "string")) &&
    (insight.funnel_window === undefined || isObject(insight.funnel_window)) &&
    (insight.revenue_measure === undefined || isRevenueMeasure(insight.revenue_measure)) &&
    (insight.currency === undefined || typeof insight.currency === "string")
  );
}

function isVizFor(value: unknown, kind: InsightKind): value is InsightViz {
  return (
    isObject(value) &&
    displaysByKind[kind].includes(value.display as Display) &&
    typeof value.show_legend === "boolean" &&
    typeof value.show_values === "boolean" &&
    (value.y_scale === "linear" || value.y_scale === "log") &&
    typeof value.stacked_percent === "boolean"
  );
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The query string (with its `?`, or "" for none) that holds `state`. */
export function encodeBuilderState(state: BuilderState): string {
  const params = new URLSearchParams();
  params.set("q", JSON.stringify(state.query));
  if (!sameJson(state.viz, defaultViz(state.query.insight.kind))) params.set("viz", JSON.stringify(state.viz));
  if (state.view === "table") params.set("view", "table");
  return `?${params}`;
}

export interface DecodedState {
  state: BuilderState;
  /** Why the link's insight could not be read (the fallback is shown instead), or null. */
  problem: string | null;
}

/** The state a query string holds; without `q`, `fallback` (a saved insight, or a new one). */
export function decodeBuilderState(search: string, fallback: BuilderState): DecodedState {
  const params = new URLSearchParams(search);
  const view: ResultViewMode = params.get("view") === "table" ? "table" : "chart";
  const text = params.get("q");
  if (text === null) return { state: { ...fallback, view }, problem: null };
  let query: unknown;
  try {
    query = JSON.parse(text);
  } catch {
    query = undefined;
  }
  if (!isQueryOutline(query)) return { state: { ...fallback, view }, problem: "The insight in this link could not be read, so it is not shown." };
  const kind = query.insight.kind;
  const vizText = params.get("viz");
  let viz: unknown = undefined;
  try {
    viz = vizText === null ? undefined : JSON.parse(vizText);
  } catch {
    viz = undefined;
  }
  return { state: { query, viz: isVizFor(viz, kind) ? viz : defaultViz(kind), view }, problem: null };
}
