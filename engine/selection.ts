// Which rows of a chunk a query looks at: the date range and the global filters give the
// base selection; each series narrows it to its event and its own filters. Also: the file
// columns a query needs, so a chunk is decoded only as far as the query reads.
import { narrow } from "./filters.ts";
import { groupColumn } from "../storage/event-columns.ts";
import type { Breakdown, Filter, Query, Series } from "./ir/query.ts";
import { partDay, sampleRateColumn } from "./chunk-store.ts";
import { mixedPropertyColumn, propertyColumn, type LoadedChunk } from "./query-data.ts";

/** 0, 1, 2, ... shared by every chunk read whole (selections are never written to). */
let identityRows = new Uint32Array(0);

function allRows(count: number): Uint32Array {
  if (identityRows.length < count) {
    identityRows = new Uint32Array(Math.max(count, identityRows.length * 2));
    for (let row = 0; row < identityRows.length; row++) identityRows[row] = row;
  }
  return identityRows.subarray(0, count);
}

/** A selection that is every row of the chunk, in order (so a pass can skip the indirection). */
const isAllRows = (chunk: LoadedChunk, selection: Uint32Array) => selection.length === chunk.rows;

/** Whether every row of the chunk is in [from, to): a part holds one UTC day. */
function insideRange(chunk: LoadedChunk, from: number, to: number): boolean {
  const day = partDay(chunk.ref);
  return day !== null && from <= day.start && day.end <= to;
}

/** The earliest and latest instant of a chunk's rows (a part's UTC day, else read from its rows). */
export function instantSpan(chunk: LoadedChunk): { low: number; high: number } {
  const day = partDay(chunk.ref);
  if (day !== null) return { low: day.start, high: day.end - 1 };
  const timestamps = chunk.timestamps;
  let low = Infinity;
  let high = -Infinity;
  for (let row = 0; row < timestamps.length; row++) {
    const at = timestamps[row]!;
    if (at < low) low = at;
    if (at > high) high = at;
  }
  return { low, high };
}

/** Rows with from <= timestamp < to that pass every global filter (`from` moves back for kinds that read earlier data). */
export function baseSelection(chunk: LoadedChunk, query: Query, from = query.from): Uint32Array {
  if (insideRange(chunk, from, query.to)) return applyFilters(chunk, allRows(chunk.rows), query.filters);
  const timestamps = chunk.timestamps;
  let selection = new Uint32Array(chunk.rows);
  let kept = 0;
  for (let row = 0; row < chunk.rows; row++) {
    const at = timestamps[row]!;
    if (at >= from && at < query.to) selection[kept++] = row;
  }
  selection = selection.subarray(0, kept);
  return applyFilters(chunk, selection, query.filters);
}

export function applyFilters(chunk: LoadedChunk, selection: Uint32Array, filters: Filter[]): Uint32Array {
  for (const filter of filters) {
    if (selection.length === 0) break;
    selection = narrow(selection, chunk.filterMask(filter));
  }
  return selection;
}

/**
 * 1 when two int32 values are equal, else 0, without a branch: `x | -x` has its sign bit set
 * exactly when x is not 0. (A conditional compiles to a jump here, mispredicted on mixed data.)
 */
export const sameBit = (a: number, b: number): number => 1 ^ (((a ^ b) | (0 - (a ^ b))) >>> 31);

/** The chunk's dictionary code of an event name, or -1 when the chunk has no such event. */
export function eventCode(chunk: LoadedChunk, name: string): number {
  return chunk.text("event").words.indexOf(name);
}

/** Rows of `base` that are the series' event and pass its filters. */
export function eventSelection(chunk: LoadedChunk, base: Uint32Array, event: string | null, filters: Filter[]): Uint32Array {
  let selection = base;
  if (event !== null) {
    const code = eventCode(chunk, event);
    if (code < 0) return new Uint32Array(0);
    const events = chunk.text("event").codes;
    const out = new Uint32Array(base.length);
    let kept = 0;
    // Written unconditionally and kept by count: a branch on the event would be mispredicted
    // for about every other row when an event is a large share of all.
    if (isAllRows(chunk, base)) {
      for (let row = 0; row < base.length; row++) {
        out[kept] = row;
        kept += sameBit(events[row]!, code);
      }
    } else {
      for (let i = 0; i < base.length; i++) {
        const row = base[i]!;
        out[kept] = row;
        kept += sameBit(events[row]!, code);
      }
    }
    selection = out.subarray(0, kept);
  }
  return applyFilters(chunk, selection, filters);
}

/**
 * The rows of `base` a series may read without building its selection: every row of `rows`
 * when `events` is null, else those whose event code is `code` (sameBit(events[row], code)).
 * A series with filters gets its selection; one without reads `base` and tests the event as
 * it goes, which saves writing a selection of about as many rows.
 */
export interface SeriesRows {
  rows: Uint32Array;
  events: Int32Array | null;
  code: number;
}

export function seriesRows(chunk: LoadedChunk, base: Uint32Array, series: Series): SeriesRows {
  if (series.event === null || series.filters.length > 0) return { rows: seriesSelection(chunk, base, series), events: null, code: 0 };
  const code = eventCode(chunk, series.event);
  if (code < 0) return { rows: new Uint32Array(0), events: null, code: 0 };
  return { rows: base, events: chunk.text("event").codes, code };
}

export const seriesSelection = (chunk: LoadedChunk, base: Uint32Array, series: Series) => eventSelection(chunk, base, series.event, series.filters);

/** The file columns a breakdown's values come from (none without a breakdown). */
export function breakdownColumns(breakdown: Breakdown | null): string[] {
  if (breakdown === null) return [];
  if (breakdown.type === "event") return [propertyColumn(breakdown.property!), mixedPropertyColumn(breakdown.property!)];
  if (breakdown.type === "person" || breakdown.type === "cohort") return ["person_index"];
  if (breakdown.type === "group") return [groupColumn(breakdown.groupTypeIndex!)];
  return [breakdown.property!];
}

/** File columns and event property keys a query reads. */
export function columnsNeeded(query: Query): { columns: string[]; eventProperties: string[] } {
  const columns = new Set(["timestamp", "event"]);
  const properties = new Set<string>();
  const filters = [...query.filters, ...query.series.flatMap((series) => series.filters)];
  for (const filter of filters) {
    if (filter.type === "event") properties.add(filter.key);
    else if (filter.type === "column") columns.add(filter.key);
  }
  // Only trends and revenue weight rows by sampling (the sample rate column stands for the
  // weights, QueryData.load); persons are read by the person-centric kinds and by whatever
  // names a person (unique persons, person filters and breakdowns).
  if (query.kind === "trends" || query.kind === "revenue") columns.add(sampleRateColumn);
  const readsPersons = !(query.kind === "trends" || query.kind === "revenue")
    || query.series.some((series) => series.math === "unique_persons")
    || filters.some((filter) => filter.type === "person" || filter.type === "cohort")
    || query.breakdown?.type === "person" || query.breakdown?.type === "cohort";
  if (readsPersons) columns.add("person_index");
  for (const series of query.series) {
    if (series.property !== null) properties.add(series.property);
    if (query.kind === "revenue") properties.add(series.currencyProperty);
    if (series.math === "unique_sessions") columns.add("session_id");
    if (series.groupTypeIndex !== null) columns.add(groupColumn(series.groupTypeIndex));
  }
  if (query.breakdown?.type === "event") properties.add(query.breakdown.property!);
  for (const column of breakdownColumns(query.breakdown)) columns.add(column);
  if (query.kind === "paths") {
    properties.add("$current_url");
    properties.add("$pathname");
    properties.add("$screen_name");
  }
  for (const key of properties) {
    columns.add(propertyColumn(key));
    columns.add(mixedPropertyColumn(key));
  }
  return { columns: [...columns], eventProperties: [...properties] };
}
