// What one chunk holds, for the schema routes: per event name its rows and first and last
// timestamp, and per property key with a column (see property-keys.ts) where its values come
// from and the same figures per event name over the rows where it is set. Columns are read
// through the ChunkStore. Parts and sealed segments never change, so their summaries are kept
// (the most recent chunkSummariesMax); unsealed rows are summarised on every request.
import type { ChunkRef, ChunkStore } from "./chunk-store.ts";
import type { Column, TextColumn } from "./columns.ts";
import { propertyKeys } from "./property-keys.ts";
import { mixedPropertyColumn, propertyColumn, propertySource, type PropertySource } from "./query-data.ts";

export interface Seen {
  rows: number;
  /** Epoch ms of the earliest and latest row. */
  first: number;
  last: number;
}

export interface ChunkSummary {
  events: Map<string, Seen>;
  properties: Map<string, { source: PropertySource; byEvent: Map<string, Seen> }>;
}

export const chunkSummariesMax = 10_000;

const isSet = (column: Column, row: number) =>
  column.kind === "text" ? column.codes[row] !== -1 : column.present === null || column.present[row] === 1;

/** Rows and time span per event name, over the rows where `column` is set (every row without one). */
function seenByEvent(events: TextColumn, timestamps: Float64Array, column: Column | null): Map<string, Seen> {
  const size = events.words.length;
  const rows = new Float64Array(size);
  const first = new Float64Array(size).fill(Infinity);
  const last = new Float64Array(size).fill(-Infinity);
  for (let row = 0; row < events.codes.length; row++) {
    const code = events.codes[row]!;
    if (code < 0 || (column && !isSet(column, row))) continue;
    const at = timestamps[row]!;
    rows[code]!++;
    if (at < first[code]!) first[code] = at;
    if (at > last[code]!) last[code] = at;
  }
  const seen = new Map<string, Seen>();
  for (let code = 0; code < size; code++) {
    if (rows[code]! > 0) seen.set(events.words[code]!, { rows: rows[code]!, first: first[code]!, last: last[code]! });
  }
  return seen;
}

export class ChunkSummaries {
  private readonly kept = new Map<string, ChunkSummary>();

  constructor(private readonly store: ChunkStore) {}

  async summary(ref: ChunkRef): Promise<ChunkSummary> {
    const known = this.kept.get(ref.id);
    if (known) return known;
    const schema = await this.store.schema(ref);
    const columnOf = (key: string) => (schema.has(propertyColumn(key)) ? propertyColumn(key) : mixedPropertyColumn(key));
    const keys = propertyKeys(schema);
    const decoded = await this.store.columns(ref, ["event", "timestamp", ...keys.map(columnOf)]);
    const events = decoded.get("event") as TextColumn;
    const timestamps = decoded.get("timestamp") as Float64Array;
    const summary: ChunkSummary = {
      events: seenByEvent(events, timestamps, null),
      properties: new Map(keys.map((key) => [key, { source: propertySource(schema, key), byEvent: seenByEvent(events, timestamps, decoded.get(columnOf(key)) as Column) }])),
    };
    if (ref.kind !== "buffer") {
      this.kept.set(ref.id, summary);
      if (this.kept.size > chunkSummariesMax) this.kept.delete(this.kept.keys().next().value!);
    }
    return summary;
  }

  /** Forgets the buffered rows of a finished request (see ChunkStore.release). */
  release(refs: ChunkRef[]): void {
    this.store.release(refs);
  }
}
