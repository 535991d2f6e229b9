// What a query reads, for skipping stored data before reading it (parquet/row-group-pruning.ts):
// rows in [scanFrom, to), and, when every row any part of the query looks at is one of some
// named events, those events. Kinds that look at rows of any event name no events:
// - a series, step or path series without an event (null matches every event);
// - strict funnels: any event of a person between two steps breaks the sequence;
// - paths without series: a path is made of every event.
// Filters (global or a series') only narrow the rows a series selects, so they never widen
// the events and are not used to narrow them either. Retention (first-time included: its
// history before `from` is of the start event only) and lifecycle (activity is the series'
// event; persons' creation comes from the person store) read only their series' events.
import type { Query } from "./ir/query.ts";
import type { ReadScope } from "./parquet/row-group-pruning.ts";

/** The events every row the query reads is one of, or null when it may read any event. */
export function eventsRead(query: Query): ReadonlySet<string> | null {
  if (query.kind === "funnel" && query.funnel.order === "strict") return null;
  if (query.kind === "paths" && query.series.length === 0) return null;
  const events = new Set<string>();
  for (const series of query.series) {
    if (series.event === null) return null;
    events.add(series.event);
  }
  if (query.kind === "funnel") for (const exclusion of query.funnel.exclusions) events.add(exclusion.event);
  return events;
}

export const readScope = (query: Query): ReadScope => ({ from: query.scanFrom, to: query.to, events: eventsRead(query) });
