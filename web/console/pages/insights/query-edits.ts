// The builder's edits of a Query IR document, as pure functions: each answers a new document.
// Changing the kind keeps what still applies (date range, filters, the series' events) and
// leaves out what the new kind does not take, so the engine never sees a member of another kind.
import { defaultViz, displaysByKind, type InsightViz } from "../../api/insight-types.ts";
import type { InsightKind, InsightSpec, QueryIrDocument, SeriesSpec } from "../../api/query-types.ts";

/** Kinds drawn over time buckets (they take an interval). */
export const kindsWithInterval: readonly InsightKind[] = ["trends", "retention", "lifecycle", "stickiness", "revenue"];
export const kindsWithBreakdown: readonly InsightKind[] = ["trends", "funnel"];
/** Kinds of exactly one series. */
const singleSeriesKinds: readonly InsightKind[] = ["lifecycle", "stickiness"];
export const funnelStepsMin = 2;
export const retentionSeriesMax = 2;

const eventsOf = (insight: InsightSpec) => (insight.series ?? []).map((series) => series.event);

function seriesFor(kind: InsightKind, events: (string | null)[], fallbackEvent: string | null): SeriesSpec[] | undefined {
  const first = events[0] ?? null;
  switch (kind) {
    case "trends":
      return (events.length ? events : [null]).map((event) => ({ event, math: "total" }));
    case "funnel": {
      // A funnel step needs an event name: "All events" becomes the environment's most frequent event.
      const steps = (events.length ? events : [first]).map((event) => event ?? fallbackEvent);
      while (steps.length < funnelStepsMin) steps.push(steps.at(-1) ?? null);
      return steps.map((event) => ({ event }));
    }
    case "retention":
      return events.slice(0, retentionSeriesMax).map((event) => ({ event })).concat(events.length ? [] : [{ event: null }]);
    case "revenue":
      return [{ event: first }];
    case "paths":
      return undefined;
    default:
      return [{ event: first }];
  }
}

/** `fallbackEvent` names funnel steps that were "All events" (null when no event is known). */
export function changeKind(query: QueryIrDocument, kind: InsightKind, fallbackEvent: string | null): QueryIrDocument {
  const previous = query.insight;
  if (previous.kind === kind) return query;
  const insight: InsightSpec = { kind };
  const series = seriesFor(kind, eventsOf(previous), fallbackEvent);
  if (series) insight.series = singleSeriesKinds.includes(kind) ? series.slice(0, 1) : series;
  if (kindsWithInterval.includes(kind)) insight.interval = previous.interval ?? "day";
  if (kindsWithBreakdown.includes(kind) && previous.breakdown) insight.breakdown = previous.breakdown;
  return { ...query, insight };
}

/** The viz after a kind change: the display stays when it still fits (as the control plane decides). */
export function vizForKind(viz: InsightViz, kind: InsightKind): InsightViz {
  return displaysByKind[kind].includes(viz.display) ? viz : { ...viz, display: defaultViz(kind).display };
}

export const withInsight = (query: QueryIrDocument, changes: Partial<InsightSpec>): QueryIrDocument => {
  const insight = { ...query.insight, ...changes };
  for (const key of Object.keys(changes) as (keyof InsightSpec)[]) if (changes[key] === undefined) delete insight[key];
  return { ...query, insight };
};

export const withSeries = (query: QueryIrDocument, series: SeriesSpec[]): QueryIrDocument => withInsight(query, { series });

export function replaceAt<T>(list: readonly T[], index: number, item: T): T[] {
  return list.map((existing, at) => (at === index ? item : existing));
}

export const removeAt = <T>(list: readonly T[], index: number): T[] => list.filter((_, at) => at !== index);

/**
 * What the person has yet to fill in before the query can run (a breakdown or filter waiting
 * for its property's name), or null. Such a query is not sent: it is unfinished, not wrong.
 */
export function awaitingInput(query: QueryIrDocument): string | null {
  const breakdown = query.insight.breakdown;
  if (breakdown && (breakdown.type === "event" || breakdown.type === "person") && !breakdown.property) return "Name the breakdown's property to see the result.";
  const unnamed = (query.filters ?? []).findIndex((filter) => filter.type !== "cohort" && filter.type !== "column" && filter.key === "");
  if (unnamed !== -1) return `Name the property of filter ${unnamed + 1} to see the result.`;
  return null;
}
