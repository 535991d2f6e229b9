// The columns of event files (sealed segments, Parquet parts) and reading rows back from
// them. Fixed columns first, then one typed column per property key (`p_<key>`: Float64,
// Bool, or dictionary-encoded Utf8), so filters and breakdowns scan a column instead of
// parsing JSON. A key whose values mix types gets `pj_<key>` (JSON text of each value);
// objects and arrays stay in `properties`, which holds the JSON of every value that did not
// go into a column. Together they give back the event's properties, except that a property
// whose value is null is stored as absent (null and "not set" mean the same in queries).
// Files are written by event-buffer.ts (new events) and table-merge.ts (compaction).
import type { Data, Table } from "apache-arrow";
import { vectorValues, type ColumnValue } from "./arrow-vectors.ts";
import type { StoredEvent } from "./event-record.ts";
import { groupTypesPerProjectMax } from "./person-store.ts";
import { setOwn } from "./own-keys.ts";

export const propertyColumnPrefix = "p_";
export const mixedPropertyColumnPrefix = "pj_";
/** Past this many keys in one file, the rarer keys stay in the JSON column only. */
export const propertyColumnsMax = 500;
/**
 * Property cells (rows x property columns) the buffers of a seal may hold. Arrow keeps a column
 * dense, one slot per row whether the row sets the key or not (8 bytes for a number), so rows
 * and request bytes do not bound the buffers: 500 keys each set on one event in 500 made 4 KB
 * per row. 2^23 cells is at most 64 MiB of number slots; the benchmark's buffers (11 keys)
 * fill it at 760k rows, so it binds only wide or sparse data.
 */
export const propertyCellsMax = 2 ** 23;

/** Bytes of a table's Arrow buffers, dictionaries included: what holding it in memory takes. */
export function tableBytes(table: Table): number {
  let bytes = 0;
  for (const batch of table.batches) for (const column of batch.data.children) bytes += dataBytes(column);
  return bytes;
}

export const dataBytes = (data: Data): number =>
  data.byteLength + (data.dictionary ? data.dictionary.data.reduce((sum, words) => sum + dataBytes(words), 0) : 0);

export type PropertyKind = "number" | "string" | "boolean" | "mixed";

/** The column of group type `slot`'s key (PostHog's name for it, so queries read familiar). */
export const groupColumn = (slot: number) => `$group_${slot}`;

/**
 * The fixed columns in file order. Types: `timestamp` is a UTC timestamp in milliseconds
 * (Parquet marks it isAdjustedToUTC, so tools read TIMESTAMP WITH TIME ZONE), `sample_rate`
 * Float64, `is_suspect` Bool, `person_index` Int32; repeated strings (`event`, `lib_*`,
 * `consent`, `geo_*`, `$group_N`) are dictionary-encoded, the rest plain Utf8.
 */
export const fixedColumnNames = [
  "uuid", "event", "timestamp", "distinct_id", "anon_id", "session_id", "window_id", "lib_name", "lib_version", "consent",
  "sample_rate", "geo_country", "geo_region", "geo_city", "geo_timezone", "is_suspect", "person_index",
  ...Array.from({ length: groupTypesPerProjectMax }, (_, slot) => groupColumn(slot)),
  "groups", "set", "set_once", "properties",
];

/** Column values of a file: fixed columns by name, property columns by key with their kind. */
interface ColumnValues {
  length: number;
  fixed: Map<string, ColumnValue[]>;
  properties: Map<string, { kind: PropertyKind; values: ColumnValue[] }>;
}

/** Every column of an event file as JS values. */
function tableColumns(table: Table): ColumnValues {
  const fixed = new Map<string, ColumnValue[]>();
  const properties: ColumnValues["properties"] = new Map();
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

function parseJson<T>(value: ColumnValue): T | null {
  return typeof value === "string" ? (JSON.parse(value) as T) : null;
}

/** Rows back from an event file (segment or Parquet part): all, or those numbered in `only`. */
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
      setOwn(properties, key, kind === "mixed" ? JSON.parse(value as string) : value);
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
