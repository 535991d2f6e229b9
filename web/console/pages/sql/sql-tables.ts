// The tables a statement can read (docs/sql.md, "The events view"), with the project
// environment's property columns named exactly as the view names them: `p_<key>` through the
// engine's own naming (keys that differ only in letter case get `_2`, `_3`, …).
import type { PropertySchema } from "../../api/sql.ts";
import { propertyColumnNames } from "../../../../engine/sql/column-names.ts";

export interface SqlColumn {
  name: string;
  type: string;
}

export interface SqlTable {
  name: string;
  description: string;
  columns: SqlColumn[];
}

/** Group type slots: `$group_0` … `$group_4`. */
const groupSlots = 5;

/** The fixed columns every event file has, in the view's order (storage/event-columns.ts). */
export const fixedEventColumns: readonly SqlColumn[] = [
  { name: "uuid", type: "VARCHAR" },
  { name: "event", type: "VARCHAR" },
  { name: "timestamp", type: "TIMESTAMPTZ" },
  { name: "distinct_id", type: "VARCHAR" },
  { name: "anon_id", type: "VARCHAR" },
  { name: "session_id", type: "VARCHAR" },
  { name: "window_id", type: "VARCHAR" },
  { name: "lib_name", type: "VARCHAR" },
  { name: "lib_version", type: "VARCHAR" },
  { name: "consent", type: "VARCHAR" },
  { name: "sample_rate", type: "DOUBLE" },
  { name: "geo_country", type: "VARCHAR" },
  { name: "geo_region", type: "VARCHAR" },
  { name: "geo_city", type: "VARCHAR" },
  { name: "geo_timezone", type: "VARCHAR" },
  { name: "is_suspect", type: "BOOLEAN" },
  { name: "person_index", type: "INTEGER" },
  ...Array.from({ length: groupSlots }, (_, slot) => ({ name: `$group_${slot}`, type: "VARCHAR" })),
  { name: "groups", type: "VARCHAR" },
  { name: "set", type: "VARCHAR" },
  { name: "set_once", type: "VARCHAR" },
  { name: "properties", type: "VARCHAR" },
];

/** A property's column: DOUBLE when every file stores numbers, otherwise VARCHAR (booleans read 'true'/'false'). */
export function propertyColumns(properties: readonly PropertySchema[]): SqlColumn[] {
  const names = propertyColumnNames("p_", properties.map(({ key }) => key));
  return properties
    .filter(({ key }) => names.has(key))
    .map(({ key, type }) => ({ name: names.get(key)!, type: type === "number" ? "DOUBLE" : "VARCHAR" }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function sqlTables(properties: readonly PropertySchema[]): SqlTable[] {
  const byProperty = propertyColumns(properties);
  return [
    { name: "events", description: "Every stored event, with the person after merges", columns: [...fixedEventColumns, ...byProperty, { name: "person_id", type: "INTEGER" }] },
    { name: "stored_events", description: "The same rows without person_id (faster)", columns: [...fixedEventColumns, ...byProperty] },
    { name: "person_overrides", description: "Merged-away person indexes", columns: [{ name: "person_index", type: "INTEGER" }, { name: "person_id", type: "INTEGER" }] },
  ];
}

/** A name as SQL text: bare when it is a plain identifier (none of the view's is a keyword), else double-quoted with quotes doubled. */
export const sqlIdentifier = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`);
