// StoredEvent rows <-> Arrow tables. Fixed columns first, then one typed column per property
// key (`p_<key>`: Float64, Utf8 or Bool), so filters and breakdowns scan a column instead of
// parsing JSON. A key whose values mix types gets `pj_<key>` (JSON text of each value);
// objects and arrays stay in `properties`, which holds the JSON of every key that did not
// become a column. Together they give back the event's properties, except that a property
// whose value is null is stored as absent (null and "not set" mean the same in queries).
import { Table, type Vector } from "apache-arrow";
import {
  boolVector, dictionaryVector, float64Vector, int32Vector, timestampVector, utf8Vector, vectorValues, type ColumnValue,
} from "./arrow-vectors.ts";
import type { StoredEvent } from "./event-record.ts";
import { groupTypesPerProjectMax } from "./person-store.ts";

export const propertyColumnPrefix = "p_";
export const mixedPropertyColumnPrefix = "pj_";
/** Past this many keys in one file, the rarer keys stay in the JSON column only. */
export const propertyColumnsMax = 500;

export type PropertyKind = "number" | "string" | "boolean" | "mixed";

const utf8 = (values: ColumnValue[]) => utf8Vector(values as (string | null)[]);
const dictionary = (values: ColumnValue[]) => dictionaryVector(values as (string | null)[]);
const float64 = (values: ColumnValue[]) => float64Vector(values as (number | null)[]);
const bool = (values: ColumnValue[]) => boolVector(values as (boolean | null)[]);
const timestamp = (values: ColumnValue[]) => timestampVector(values as number[]);
const int32 = (values: ColumnValue[]) => int32Vector(values as number[]);
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** The column of group type `slot`'s key (PostHog's name for it, so queries read familiar). */
export const groupColumn = (slot: number) => `$group_${slot}`;

/**
 * The fixed columns in file order: how each vector is built and how a row gives its value
 * (`properties`, the JSON of the keys without a column, depends on the file's columns).
 */
type FixedColumn = [name: string, build: (values: ColumnValue[]) => Vector, get: ((row: StoredEvent) => ColumnValue) | null];
const fixedColumns: FixedColumn[] = [
  ["uuid", utf8, (r) => r.uuid],
  ["event", dictionary, (r) => r.event],
  // UTC instants: Parquet marks them isAdjustedToUTC, so tools read TIMESTAMP WITH TIME ZONE.
  ["timestamp", timestamp, (r) => r.timestamp],
  ["distinct_id", utf8, (r) => r.distinct_id],
  ["anon_id", utf8, (r) => r.anon_id],
  ["session_id", utf8, (r) => r.session_id],
  ["window_id", utf8, (r) => r.window_id],
  ["lib_name", dictionary, (r) => r.lib_name],
  ["lib_version", dictionary, (r) => r.lib_version],
  ["consent", dictionary, (r) => r.consent],
  ["sample_rate", float64, (r) => r.sample_rate],
  ["geo_country", dictionary, (r) => r.geo_country],
  ["geo_region", dictionary, (r) => r.geo_region],
  ["geo_city", dictionary, (r) => r.geo_city],
  ["geo_timezone", dictionary, (r) => r.geo_timezone],
  ["is_suspect", bool, (r) => r.is_suspect],
  ["person_index", int32, (r) => r.person_index],
  ...Array.from({ length: groupTypesPerProjectMax }, (_, slot) => [groupColumn(slot), dictionary, (r) => r.group_keys[slot]!] satisfies FixedColumn),
  ["groups", utf8, (r) => json(r.groups)],
  ["set", utf8, (r) => json(r.set)],
  ["set_once", utf8, (r) => json(r.set_once)],
  ["properties", utf8, null],
];
export const fixedColumnNames = fixedColumns.map(([name]) => name);

/** Column values of a file: fixed columns by name, property columns by key with their kind. */
export interface EventColumns {
  length: number;
  fixed: Map<string, ColumnValue[]>;
  properties: Map<string, { kind: PropertyKind; values: ColumnValue[] }>;
}

const kindOf = (value: unknown): PropertyKind | "nested" =>
  typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : typeof value === "string" ? "string" : "nested";

/** Property keys worth a column: scalar values, most frequent first, at most propertyColumnsMax. */
function propertyColumns(rows: StoredEvent[]): Map<string, PropertyKind> {
  const counts = new Map<string, { count: number; kind: PropertyKind | "nested" }>();
  for (const row of rows) {
    const properties = row.properties;
    for (const key in properties) {
      const value = properties[key];
      if (value === null || value === undefined) continue;
      const kind = kindOf(value);
      const entry = counts.get(key);
      if (!entry) counts.set(key, { count: 1, kind });
      else {
        entry.count++;
        if (entry.kind !== kind && entry.kind !== "nested") entry.kind = kind === "nested" ? "nested" : "mixed";
      }
    }
  }
  return mostFrequent([...counts.entries()].filter(([, entry]) => entry.kind !== "nested") as [string, { count: number; kind: PropertyKind }][]);
}

function mostFrequent(entries: [string, { count: number; kind: PropertyKind }][]): Map<string, PropertyKind> {
  const chosen = entries.sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1)).slice(0, propertyColumnsMax);
  return new Map(chosen.map(([key, entry]) => [key, entry.kind]));
}

export function eventsToColumns(rows: StoredEvent[]): EventColumns {
  const columns = propertyColumns(rows);
  const length = rows.length;
  const fixed = new Map<string, ColumnValue[]>();
  const remainder = (row: StoredEvent): ColumnValue => {
    let rest: Record<string, unknown> | null = null;
    for (const key in row.properties) {
      const value = row.properties[key];
      if (value === null || value === undefined || columns.has(key)) continue;
      (rest ??= {})[key] = value;
    }
    return rest ? JSON.stringify(rest) : null;
  };
  for (const [name, , get] of fixedColumns) fixed.set(name, rows.map(get ?? remainder));
  const properties: EventColumns["properties"] = new Map();
  for (const [key, kind] of columns) {
    const values: ColumnValue[] = new Array(length);
    for (let i = 0; i < length; i++) {
      const value = rows[i]!.properties[key];
      values[i] = value === undefined || value === null ? null : kind === "mixed" ? JSON.stringify(value) : (value as ColumnValue);
    }
    properties.set(key, { kind, values });
  }
  return { length, fixed, properties };
}

const propertyVector = (kind: PropertyKind, values: ColumnValue[]): Vector =>
  kind === "number" ? float64(values) : kind === "boolean" ? bool(values) : utf8(values);

/** A table of the rows `order` picks (all rows in order when omitted). */
export function columnsToTable(columns: EventColumns, order?: ArrayLike<number>): Table {
  const pick = (values: ColumnValue[]) => {
    if (!order) return values;
    const picked: ColumnValue[] = new Array(order.length);
    for (let i = 0; i < order.length; i++) picked[i] = values[order[i]!]!;
    return picked;
  };
  const vectors: Record<string, Vector> = {};
  for (const [name, build] of fixedColumns) vectors[name] = build(pick(columns.fixed.get(name)!));
  for (const [key, { kind, values }] of columns.properties) {
    vectors[(kind === "mixed" ? mixedPropertyColumnPrefix : propertyColumnPrefix) + key] = propertyVector(kind, pick(values));
  }
  return new Table(vectors);
}

export const eventsToTable = (rows: StoredEvent[]): Table => columnsToTable(eventsToColumns(rows));

/** The column values of a table written by eventsToTable (segments and Parquet alike). */
export function tableColumns(table: Table): EventColumns {
  const fixed = new Map<string, ColumnValue[]>();
  const properties: EventColumns["properties"] = new Map();
  for (const field of table.schema.fields) {
    const values = vectorValues(table.getChild(field.name)!);
    if (field.name.startsWith(mixedPropertyColumnPrefix)) {
      properties.set(field.name.slice(mixedPropertyColumnPrefix.length), { kind: "mixed", values });
    } else if (field.name.startsWith(propertyColumnPrefix)) {
      const type = String(field.type);
      const kind: PropertyKind = type === "Float64" ? "number" : type === "Bool" ? "boolean" : "string";
      properties.set(field.name.slice(propertyColumnPrefix.length), { kind, values });
    } else fixed.set(field.name, values);
  }
  return { length: table.numRows, fixed, properties };
}

/**
 * Several files' columns as one, rows in the given order. A key typed differently in two
 * files becomes mixed (JSON text). Returns null when the files hold more property keys than
 * one file may have as columns: then some must move into the JSON column, row by row.
 */
export function concatColumns(parts: EventColumns[]): EventColumns | null {
  const kinds = new Map<string, { count: number; kind: PropertyKind }>();
  for (const part of parts) {
    for (const [key, { kind, values }] of part.properties) {
      let present = 0;
      for (const value of values) if (value !== null) present++;
      const entry = kinds.get(key);
      if (!entry) kinds.set(key, { count: present, kind });
      else {
        entry.count += present;
        if (entry.kind !== kind) entry.kind = "mixed";
      }
    }
  }
  if (kinds.size > propertyColumnsMax) return null;
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const fixed = new Map<string, ColumnValue[]>();
  for (const name of fixedColumnNames) {
    const values: ColumnValue[] = [];
    for (const part of parts) for (const value of part.fixed.get(name)!) values.push(value);
    fixed.set(name, values);
  }
  const properties: EventColumns["properties"] = new Map();
  for (const [key, kind] of mostFrequent([...kinds.entries()])) {
    const values: ColumnValue[] = [];
    for (const part of parts) {
      const column = part.properties.get(key);
      if (!column) for (let i = 0; i < part.length; i++) values.push(null);
      else if (kind === "mixed" && column.kind !== "mixed") for (const value of column.values) values.push(json(value));
      else for (const value of column.values) values.push(value);
    }
    properties.set(key, { kind, values });
  }
  return { length, fixed, properties };
}

function parseJson<T>(value: ColumnValue): T | null {
  return typeof value === "string" ? (JSON.parse(value) as T) : null;
}

/** Rows back from a table written by eventsToTable (segments and Parquet alike): all, or those numbered in `only`. */
export function tableToEvents(table: Table, only?: readonly number[]): StoredEvent[] {
  const columns = tableColumns(table);
  const column = (name: string) => columns.fixed.get(name)!;
  const [uuid, event, timestamp, distinctId, anonId, sessionId, windowId, libName, libVersion, consent, sampleRate] = [
    "uuid", "event", "timestamp", "distinct_id", "anon_id", "session_id", "window_id", "lib_name", "lib_version", "consent", "sample_rate",
  ].map(column) as ColumnValue[][];
  const [country, region, city, timezone, suspect, personIndex, groups, set, setOnce, rest] = [
    "geo_country", "geo_region", "geo_city", "geo_timezone", "is_suspect", "person_index", "groups", "set", "set_once", "properties",
  ].map(column) as ColumnValue[][];
  const groupKeys = Array.from({ length: groupTypesPerProjectMax }, (_, slot) => column(groupColumn(slot)) as (string | null)[]);
  const picked = only ?? Array.from({ length: columns.length }, (_, row) => row);
  const rows: StoredEvent[] = new Array(picked.length);
  for (let at = 0; at < picked.length; at++) {
    const row = picked[at]!;
    const properties: Record<string, unknown> = parseJson<Record<string, unknown>>(rest![row]!) ?? {};
    for (const [key, { kind, values }] of columns.properties) {
      const value = values[row];
      if (value === null || value === undefined) continue;
      properties[key] = kind === "mixed" ? JSON.parse(value as string) : value;
    }
    rows[at] = {
      uuid: uuid![row] as string,
      event: event![row] as string,
      timestamp: timestamp![row] as number,
      distinct_id: distinctId![row] as string,
      anon_id: anonId![row] as string | null,
      session_id: sessionId![row] as string | null,
      window_id: windowId![row] as string | null,
      lib_name: libName![row] as string,
      lib_version: libVersion![row] as string,
      consent: consent![row] as StoredEvent["consent"],
      sample_rate: sampleRate![row] as number,
      geo_country: country![row] as string | null,
      geo_region: region![row] as string | null,
      geo_city: city![row] as string | null,
      geo_timezone: timezone![row] as string | null,
      is_suspect: suspect![row] as boolean,
      person_index: personIndex![row] as number,
      groups: parseJson(groups![row]!),
      group_keys: groupKeys.map((keys) => keys[row]!),
      set: parseJson(set![row]!),
      set_once: parseJson(setOnce![row]!),
      properties,
    };
  }
  return rows;
}
