// Paths. Per person, the range's events (those of any series when series are given, else
// all) in time order, each as a step value: a `$pageview` its URL path (`$pathname`, else the
// path of `$current_url`), a `$screen` its `$screen_name`, any other event its name. Events
// whose name or value is in `exclude_events` are dropped. A gap of more than 30 minutes
// starts a new session; within a session a value repeated at once (a reload) is one step.
// Each session gives one path: from `start_point` (its first occurrence) when set, to the
// first `end_point` after it when set; `depth` steps at most (the first ones, or with only an
// end point the last ones; with both points a longer path is dropped). Edges (step i value ->
// step i + 1 value) count distinct persons; the top `edges` are reported, most persons first,
// then by step, source and target. Events at the same millisecond are ordered by value.
// Persons are not weighted by sampling.
import type { QueryData, LoadedChunk } from "../query-data.ts";
import { baseSelection, columnsNeeded, eventSelection } from "../selection.ts";
import { StreamBuilder } from "../person-streams.ts";
import { numbersAsText, type TextColumn } from "../columns.ts";
import { WordIds } from "../../storage/word-ids.ts";
import type { Query } from "../ir/query.ts";

/** Inactivity that ends a session. */
export const sessionGapMs = 30 * 60_000;

export interface PathEdge {
  source_step: number;
  source: string;
  target_step: number;
  target: string;
  persons: number;
}

export interface PathsResult {
  kind: "paths";
  edges: PathEdge[];
}

const schemePrefix = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;
const queryAndFragment = /[?#][\s\S]*$/;

/** The path of a URL: without scheme and host, query and fragment; "/" when nothing is left. */
export const urlPath = (url: string) => url.replace(schemePrefix, "").replace(queryAndFragment, "") || "/";

export function compareEdges(a: PathEdge, b: PathEdge): number {
  if (a.persons !== b.persons) return b.persons - a.persons;
  if (a.source_step !== b.source_step) return a.source_step - b.source_step;
  if (a.source !== b.source) return a.source < b.source ? -1 : 1;
  return a.target === b.target ? 0 : a.target < b.target ? -1 : 1;
}

const asText = (chunk: LoadedChunk, key: string): TextColumn => {
  const column = chunk.eventProperty(key);
  return column.kind === "number" ? numbersAsText(column) : column;
};

/** Global value ids of the selected rows (by row), from the chunk's event names and the step properties. */
function rowValues(chunk: LoadedChunk, selection: Uint32Array, ids: WordIds): Int32Array {
  const events = chunk.text("event");
  const nameIds = ids.remap(events.words);
  const pageview = events.words.indexOf("$pageview");
  const screen = events.words.indexOf("$screen");
  const out = new Int32Array(chunk.rows);
  let pathnames: { column: TextColumn; remap: Int32Array } | null = null;
  let urls: { column: TextColumn; remap: Int32Array } | null = null;
  let screens: { column: TextColumn; remap: Int32Array } | null = null;
  const read = (key: string, map: (word: string) => string = (word) => word) => {
    const column = asText(chunk, key);
    return { column, remap: Int32Array.from(column.words, (word) => ids.id(map(word))) };
  };
  for (let i = 0; i < selection.length; i++) {
    const row = selection[i]!;
    const event = events.codes[row]!;
    let value = nameIds[event]!;
    if (event === pageview) {
      pathnames ??= read("$pathname");
      urls ??= read("$current_url", urlPath);
      const pathname = pathnames.column.codes[row]!;
      const url = urls.column.codes[row]!;
      if (pathname >= 0) value = pathnames.remap[pathname]!;
      else if (url >= 0) value = urls.remap[url]!;
    } else if (event === screen) {
      screens ??= read("$screen_name");
      const name = screens.column.codes[row]!;
      if (name >= 0) value = screens.remap[name]!;
    }
    out[row] = value;
  }
  return out;
}

/** The rows a path is made of: any series' events (all events without series). */
function pathRows(chunk: LoadedChunk, query: Query): Uint32Array {
  const base = baseSelection(chunk, query);
  if (query.series.length === 0) return base;
  const chosen = new Uint8Array(chunk.rows);
  for (const series of query.series) for (const row of eventSelection(chunk, base, series.event, series.filters)) chosen[row] = 1;
  return base.filter((row) => chosen[row] === 1);
}

/** Orders runs of equal times by value text, so ties read the same in every engine. */
function orderTies(times: Float64Array, values: Int32Array, from: number, to: number, words: string[]): void {
  for (let i = from; i < to; ) {
    let j = i + 1;
    while (j < to && times[j] === times[i]) j++;
    if (j - i > 1) {
      const run = Array.from(values.subarray(i, j)).sort((a, b) => (words[a]! < words[b]! ? -1 : words[a]! > words[b]! ? 1 : 0));
      values.set(run, i);
    }
    i = j;
  }
}

/** The [begin, end) of a session's steps that form its path, or null when it has none. */
function pathWindow(steps: number[], start: number, end: number, depth: number): [number, number] | null {
  let begin = 0;
  if (start >= 0) {
    begin = steps.indexOf(start);
    if (begin < 0) return null;
  }
  if (end < 0) return [begin, Math.min(steps.length, begin + depth)];
  const stop = steps.indexOf(end, begin);
  if (stop < 0) return null;
  if (start >= 0) return stop + 1 - begin <= depth ? [begin, stop + 1] : null;
  return [Math.max(begin, stop + 1 - depth), stop + 1];
}

export async function paths(data: QueryData): Promise<PathsResult> {
  const query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const ids = new WordIds();
  const excluded = new Set(query.paths.excludeEvents);
  // excludedValue[id]: whether value id is excluded, extended as ids appear (no string lookup per row).
  const excludedValue: boolean[] = [];
  const streams = new StreamBuilder();
  for (const ref of data.chunksToRead) {
    const chunk = await data.load(ref, columns);
    const selection = pathRows(chunk, query);
    const values = rowValues(chunk, selection, ids);
    const events = chunk.text("event");
    const dropEvent = events.words.map((word) => excluded.has(word));
    for (let id = excludedValue.length; id < ids.words.length; id++) excludedValue.push(excluded.has(ids.words[id]!));
    const persons = chunk.persons;
    const timestamps = chunk.timestamps;
    for (let i = 0; i < selection.length; i++) {
      const row = selection[i]!;
      const value = values[row]!;
      if (dropEvent[events.codes[row]!] || excludedValue[value]) continue;
      streams.push(persons[row]!, timestamps[row]!, 0, value);
    }
  }
  const { persons, starts, times, values } = streams.build();
  const words = ids.words;
  const find = (word: string | null) => (word === null ? -1 : words.indexOf(word));
  const [start, end] = [find(query.paths.startPoint), find(query.paths.endPoint)];
  const noPath = (query.paths.startPoint !== null && start < 0) || (query.paths.endPoint !== null && end < 0);
  const edgeIndex = new Map<number, number>();
  const edgeKeys: number[] = [];
  const edgePersons: number[] = [];
  const edgeLastPerson: number[] = [];
  const size = words.length;
  const steps: number[] = [];
  const addSession = (person: number) => {
    const window = pathWindow(steps, start, end, query.paths.depth);
    if (!window) return;
    for (let i = window[0]; i + 1 < window[1]; i++) {
      const key = ((i - window[0]) * size + steps[i]!) * size + steps[i + 1]!;
      let edge = edgeIndex.get(key);
      if (edge === undefined) {
        edge = edgeKeys.length;
        edgeIndex.set(key, edge);
        edgeKeys.push(key);
        edgePersons.push(0);
        edgeLastPerson.push(-1);
      }
      if (edgeLastPerson[edge] !== person) {
        edgeLastPerson[edge] = person;
        edgePersons[edge]!++;
      }
    }
  };
  for (let p = 0; p < persons.length && !noPath; p++) {
    const from = starts[p]!;
    const to = starts[p + 1]!;
    orderTies(times, values, from, to, words);
    steps.length = 0;
    for (let i = from; i < to; i++) {
      if (i > from && times[i]! - times[i - 1]! > sessionGapMs) {
        addSession(persons[p]!);
        steps.length = 0;
      }
      if (steps[steps.length - 1] !== values[i]) steps.push(values[i]!);
    }
    addSession(persons[p]!);
  }
  const edges = edgeKeys.map((key, edge): PathEdge => {
    const target = key % size;
    const source = ((key - target) / size) % size;
    const step = Math.round((key - target - source * size) / (size * size));
    return { source_step: step + 1, source: words[source]!, target_step: step + 2, target: words[target]!, persons: edgePersons[edge]! };
  });
  return { kind: "paths", edges: edges.sort(compareEdges).slice(0, query.paths.edges) };
}
