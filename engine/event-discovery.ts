// What a project environment has sent lately, for the tracking plan (GET /catalog/discovery):
// per event name its rows, first and last time seen in a window, and its rows over a second,
// "recent" window (the catalog's volume_30d); per event the property keys set on it with the
// value types met and a few distinct example values. Read from the typed property columns of
// each chunk (property-keys.ts), never from the `properties` JSON: keys whose values are objects
// or arrays, or past the per-file column limit, are not discovered. Parts wholly before both
// windows are never opened. Examples are the sender's values: callers hand them on as JSON only.
import { mayHoldRange, type ChunkRef, type ChunkStore } from "./chunk-store.ts";
import type { Column, NumberColumn, TextColumn } from "./columns.ts";
import { propertyKeys } from "./property-keys.ts";
import { mixedPropertyColumn, propertyColumn, propertySource } from "./query-data.ts";

export type ObservedType = "string" | "number" | "boolean";
export type ExampleValue = string | number | boolean;

const typeBits: Record<ObservedType, number> = { string: 1, number: 2, boolean: 4 };
const observedTypes = Object.keys(typeBits) as ObservedType[];

export interface DiscoveryLimits {
  /** Distinct example values kept per property of an event. */
  examplesMax: number;
  /** Longer example strings are cut to this many characters. */
  exampleLengthMax: number;
}

export interface DiscoveryWindow {
  /** Epoch ms: rows from here on are "seen". */
  from: number;
  /** Epoch ms: rows from here on count in `recentVolume`, seen or not. */
  recentFrom: number;
}

export interface DiscoveredProperty {
  name: string;
  /** Value types met, in the order string, number, boolean. */
  types: ObservedType[];
  /** Rows of the event in the window that set it. */
  volume: number;
  examples: ExampleValue[];
}

export interface DiscoveredEvent {
  name: string;
  volume: number;
  recentVolume: number;
  /** Epoch ms of the first and last row in the window. */
  first: number;
  last: number;
  properties: DiscoveredProperty[];
}

interface PropertyFigures {
  rows: number;
  types: number;
  examples: ExampleValue[];
}

interface EventFigures {
  rows: number;
  recent: number;
  first: number;
  last: number;
  properties: Map<string, PropertyFigures>;
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Accumulates chunks one at a time (memory follows one chunk's columns), then ranks what it met. */
export class EventDiscovery {
  private readonly events = new Map<string, EventFigures>();

  constructor(private readonly window: DiscoveryWindow, private readonly limits: DiscoveryLimits) {}

  async add(store: ChunkStore, ref: ChunkRef): Promise<void> {
    const readFrom = Math.min(this.window.from, this.window.recentFrom);
    if (!mayHoldRange(ref, readFrom, Infinity)) return;
    const schema = await store.schema(ref);
    const keys = propertyKeys(schema);
    const columnOf = (key: string) => (schema.has(propertyColumn(key)) ? propertyColumn(key) : mixedPropertyColumn(key));
    const decoded = await store.columns(ref, ["event", "timestamp", ...keys.map(columnOf)]);
    const events = decoded.get("event") as TextColumn;
    const timestamps = decoded.get("timestamp") as Float64Array;
    const seen = this.seenRows(events, timestamps);
    for (const key of keys) {
      const source = propertySource(schema, key);
      const column = decoded.get(columnOf(key)) as Column;
      if (source === "number") this.addNumbers(key, events, column as NumberColumn, seen);
      else this.addTexts(key, events, column as TextColumn, seen, source === "json" ? "json" : source === "bool" ? "boolean" : "string");
    }
  }

  /** Events seen in the window, most rows first (then by name), with their properties likewise; at most `eventsMax` and `propertiesMax` of each. */
  result(eventsMax: number, propertiesMax: number): DiscoveredEvent[] {
    const ranked = [...this.events].filter(([, figures]) => figures.rows > 0).sort(([a, x], [b, y]) => y.rows - x.rows || byName(a, b));
    return ranked.slice(0, eventsMax).map(([name, figures]) => ({
      name,
      volume: figures.rows,
      recentVolume: figures.recent,
      first: figures.first,
      last: figures.last,
      properties: [...figures.properties]
        .sort(([a, x], [b, y]) => y.rows - x.rows || byName(a, b))
        .slice(0, propertiesMax)
        .map(([key, property]) => ({ name: key, types: observedTypes.filter((type) => (property.types & typeBits[type]) !== 0), volume: property.rows, examples: property.examples })),
    }));
  }

  /** Counts each event's rows in both windows; the rows in the seen window, as 1 per row. */
  private seenRows(events: TextColumn, timestamps: Float64Array): Uint8Array {
    const seen = new Uint8Array(events.codes.length);
    const figures = events.words.map((word) => this.figuresOf(word));
    for (let row = 0; row < events.codes.length; row++) {
      const code = events.codes[row]!;
      if (code < 0) continue;
      const at = timestamps[row]!;
      const event = figures[code]!;
      if (at >= this.window.recentFrom) event.recent++;
      if (at < this.window.from) continue;
      seen[row] = 1;
      event.rows++;
      if (at < event.first) event.first = at;
      if (at > event.last) event.last = at;
    }
    return seen;
  }

  private figuresOf(name: string): EventFigures {
    let figures = this.events.get(name);
    if (!figures) this.events.set(name, (figures = { rows: 0, recent: 0, first: Infinity, last: -Infinity, properties: new Map() }));
    return figures;
  }

  private propertyOf(event: string, key: string): PropertyFigures {
    const properties = this.events.get(event)!.properties;
    let figures = properties.get(key);
    if (!figures) properties.set(key, (figures = { rows: 0, types: 0, examples: [] }));
    return figures;
  }

  private addNumbers(key: string, events: TextColumn, column: NumberColumn, seen: Uint8Array): void {
    const figures: (PropertyFigures | undefined)[] = [];
    for (let row = 0; row < seen.length; row++) {
      if (seen[row] === 0 || (column.present !== null && column.present[row] === 0)) continue;
      const code = events.codes[row]!;
      const property = (figures[code] ??= this.propertyOf(events.words[code]!, key));
      property.rows++;
      property.types |= typeBits.number;
      this.keepExample(property, column.values[row]!);
    }
  }

  /** A text column: strings, booleans (read "true" / "false"), or JSON texts of mixed types. */
  private addTexts(key: string, events: TextColumn, column: TextColumn, seen: Uint8Array, kind: "string" | "boolean" | "json"): void {
    const values: ExampleValue[] = column.words.map((word) => (kind === "json" ? (JSON.parse(word) as ExampleValue) : kind === "boolean" ? word === "true" : word));
    const figures: (PropertyFigures | undefined)[] = [];
    for (let row = 0; row < seen.length; row++) {
      const word = column.codes[row]!;
      if (seen[row] === 0 || word < 0) continue;
      const value = values[word]!;
      const type = typeof value;
      if (type !== "string" && type !== "number" && type !== "boolean") continue;
      const code = events.codes[row]!;
      const property = (figures[code] ??= this.propertyOf(events.words[code]!, key));
      property.rows++;
      property.types |= typeBits[type as ObservedType];
      this.keepExample(property, value);
    }
  }

  private keepExample(property: PropertyFigures, value: ExampleValue): void {
    if (property.examples.length >= this.limits.examplesMax) return;
    const example = typeof value === "string" && value.length > this.limits.exampleLengthMax ? cut(value, this.limits.exampleLengthMax) : value;
    if (!property.examples.includes(example)) property.examples.push(example);
  }
}

/** The first `length` characters (code points, so no surrogate pair is split). */
function cut(text: string, length: number): string {
  return Array.from(text).slice(0, length).join("");
}
