// StoredEvent rows <-> Arrow tables. Fixed columns first, then one typed column per property
// key (`p_<key>`: Float64, Utf8 or Bool), so filters and breakdowns scan a column instead of
// parsing JSON. A key whose values mix types gets `pj_<key>` (JSON text of each value);
// objects and arrays stay in `properties`, which holds the JSON of every key that did not
// become a column. Together they give back the event's properties, except that a property
// whose value is null is stored as absent (null and "not set" mean the same in queries).
import {
  Bool, Dictionary, Float64, Int32, Table, TimestampMillisecond, Utf8, vectorFromArray, type Vector,
} from "apache-arrow";
import type { StoredEvent } from "./event-record.ts";

export const propertyColumnPrefix = "p_";
export const mixedPropertyColumnPrefix = "pj_";
/** Past this many keys in one file, the rarer keys stay in the JSON column only. */
export const propertyColumnsMax = 500;

type PropertyKind = "number" | "string" | "boolean" | "mixed";

const dictionaryUtf8 = () => new Dictionary(new Utf8(), new Int32());
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** Property keys worth a column: scalar values, most frequent first, at most propertyColumnsMax. */
function propertyColumns(rows: StoredEvent[]): Map<string, PropertyKind> {
  const counts = new Map<string, { count: number; kind: PropertyKind | null; nested: boolean }>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(row.properties)) {
      if (value === null || value === undefined) continue;
      const entry = counts.get(key) ?? { count: 0, kind: null, nested: false };
      entry.count++;
      const type = typeof value;
      if (type === "object") entry.nested = true;
      else {
        const kind: PropertyKind = type === "number" ? "number" : type === "boolean" ? "boolean" : "string";
        entry.kind = entry.kind === null || entry.kind === kind ? kind : "mixed";
      }
      counts.set(key, entry);
    }
  }
  const chosen = [...counts.entries()]
    .filter(([, entry]) => !entry.nested && entry.kind !== null)
    .sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1))
    .slice(0, propertyColumnsMax);
  return new Map(chosen.map(([key, entry]) => [key, entry.kind!]));
}

export function eventsToTable(rows: StoredEvent[]): Table {
  const columns = propertyColumns(rows);
  const pick = <T>(get: (row: StoredEvent) => T) => rows.map(get);
  const vectors: Record<string, Vector> = {
    uuid: vectorFromArray(pick((r) => r.uuid), new Utf8()),
    event: vectorFromArray(pick((r) => r.event), dictionaryUtf8()),
    // UTC instants: Parquet marks them isAdjustedToUTC, so tools read TIMESTAMP WITH TIME ZONE.
    timestamp: vectorFromArray(pick((r) => r.timestamp), new TimestampMillisecond("UTC")),
    distinct_id: vectorFromArray(pick((r) => r.distinct_id), new Utf8()),
    anon_id: vectorFromArray(pick((r) => r.anon_id), new Utf8()),
    session_id: vectorFromArray(pick((r) => r.session_id), new Utf8()),
    window_id: vectorFromArray(pick((r) => r.window_id), new Utf8()),
    lib_name: vectorFromArray(pick((r) => r.lib_name), dictionaryUtf8()),
    lib_version: vectorFromArray(pick((r) => r.lib_version), dictionaryUtf8()),
    consent: vectorFromArray(pick((r) => r.consent), dictionaryUtf8()),
    sample_rate: vectorFromArray(pick((r) => r.sample_rate), new Float64()),
    geo_country: vectorFromArray(pick((r) => r.geo_country), dictionaryUtf8()),
    geo_region: vectorFromArray(pick((r) => r.geo_region), dictionaryUtf8()),
    geo_city: vectorFromArray(pick((r) => r.geo_city), dictionaryUtf8()),
    geo_timezone: vectorFromArray(pick((r) => r.geo_timezone), dictionaryUtf8()),
    is_suspect: vectorFromArray(pick((r) => r.is_suspect), new Bool()),
    groups: vectorFromArray(pick((r) => json(r.groups)), new Utf8()),
    set: vectorFromArray(pick((r) => json(r.set)), new Utf8()),
    set_once: vectorFromArray(pick((r) => json(r.set_once)), new Utf8()),
    properties: vectorFromArray(
      pick((r) => {
        const rest = Object.fromEntries(Object.entries(r.properties).filter(([key, value]) => !columns.has(key) && value !== null && value !== undefined));
        return Object.keys(rest).length ? JSON.stringify(rest) : null;
      }),
      new Utf8(),
    ),
  };
  for (const [key, kind] of columns) {
    const values = rows.map((row) => {
      const value = row.properties[key];
      if (value === undefined || value === null) return null;
      return kind === "mixed" ? JSON.stringify(value) : value;
    });
    const type = kind === "number" ? new Float64() : kind === "boolean" ? new Bool() : new Utf8();
    vectors[(kind === "mixed" ? mixedPropertyColumnPrefix : propertyColumnPrefix) + key] = vectorFromArray(values as never[], type as never);
  }
  return new Table(vectors);
}

function parseJson<T>(value: unknown): T | null {
  return typeof value === "string" ? (JSON.parse(value) as T) : null;
}

/** Rows back from a table written by eventsToTable (segments and Parquet alike). */
export function tableToEvents(table: Table): StoredEvent[] {
  const names = table.schema.fields.map((field) => field.name);
  const arrays = new Map(names.map((name) => [name, table.getChild(name)!.toArray() as ArrayLike<unknown>]));
  const validity = new Map(names.map((name) => [name, table.getChild(name)!]));
  const column = (name: string, row: number): unknown => (validity.get(name)!.isValid(row) ? validity.get(name)!.get(row) : null);
  const propertyNames = names.filter((name) => name.startsWith(propertyColumnPrefix) || name.startsWith(mixedPropertyColumnPrefix));
  const rows: StoredEvent[] = [];
  for (let row = 0; row < table.numRows; row++) {
    const properties: Record<string, unknown> = parseJson<Record<string, unknown>>(column("properties", row)) ?? {};
    for (const name of propertyNames) {
      const value = column(name, row);
      if (value === null) continue;
      if (name.startsWith(mixedPropertyColumnPrefix)) properties[name.slice(mixedPropertyColumnPrefix.length)] = JSON.parse(value as string);
      else properties[name.slice(propertyColumnPrefix.length)] = value;
    }
    rows.push({
      uuid: column("uuid", row) as string,
      event: column("event", row) as string,
      timestamp: Number(arrays.get("timestamp")![row]),
      distinct_id: column("distinct_id", row) as string,
      anon_id: column("anon_id", row) as string | null,
      session_id: column("session_id", row) as string | null,
      window_id: column("window_id", row) as string | null,
      lib_name: column("lib_name", row) as string,
      lib_version: column("lib_version", row) as string,
      consent: column("consent", row) as StoredEvent["consent"],
      sample_rate: column("sample_rate", row) as number,
      geo_country: column("geo_country", row) as string | null,
      geo_region: column("geo_region", row) as string | null,
      geo_city: column("geo_city", row) as string | null,
      geo_timezone: column("geo_timezone", row) as string | null,
      is_suspect: column("is_suspect", row) as boolean,
      groups: parseJson(column("groups", row)),
      set: parseJson(column("set", row)),
      set_once: parseJson(column("set_once", row)),
      properties,
    });
  }
  return rows;
}
