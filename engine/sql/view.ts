// The views a compiled query (and /sql) runs on: `stored_events`, every live Parquet file of
// one project environment, with each property the query names as one typed column `p_<key>`
// (DOUBLE when every file stores numbers, else VARCHAR with the executor's text rules; named
// by column-names.ts), and `events`, the same rows with `person_id`, the canonical person
// after merges (through the `person_overrides` table). DuckDB keeps a join whose columns no
// one reads, so SQL that needs no person reads `stored_events` and skips it. Files whose property columns are stored alike are read by one
// read_parquet call. A file holding columns whose names differ only in letter case (keys
// `plan` and `Plan`) has them renamed by DuckDB as it reads (`p_Plan_1`), so its property
// columns are read by position instead, with files of exactly its columns.
import type { ColumnType } from "../chunk-store.ts";
import { propertySource, type PropertySource, type ValueKind } from "../query-data.ts";
import { fixedColumnNames, mixedPropertyColumnPrefix, propertyColumnPrefix } from "../../storage/event-columns.ts";
import { foldIdentifier, propertyColumnNames } from "./column-names.ts";
import { numberAsText } from "./expressions.ts";
import { identifier, literal } from "./params.ts";

export interface ViewFile {
  path: string;
  schema: Map<string, ColumnType>;
}

const fixedTypes: Record<string, string> = { timestamp: "TIMESTAMPTZ", sample_rate: "DOUBLE", is_suspect: "BOOLEAN", person_index: "INTEGER" };
const fixedType = (name: string) => fixedTypes[name] ?? "VARCHAR";

/** How a file's column is spelled in SQL: by name, or by position when the file's names collide. */
type ColumnReference = (name: string) => string;

function propertyExpression(source: PropertySource, key: string, kind: ValueKind, reference: ColumnReference): string {
  const column = reference(propertyColumnPrefix + key);
  if (kind === "number") return source === "number" ? column : "NULL::DOUBLE";
  switch (source) {
    case "text":
      return column;
    case "bool":
      return `CASE WHEN ${column} THEN 'true' WHEN NOT ${column} THEN 'false' END`;
    case "number":
      return numberAsText(column);
    case "json":
      return `json_extract_string(${reference(mixedPropertyColumnPrefix + key)}, '$')`;
    default:
      return "NULL::VARCHAR";
  }
}

/** Positional references (#1, #2, ...) when two of the file's column names fold alike, else quoted names. */
function columnReference(file: ViewFile): ColumnReference {
  const names = [...file.schema.keys()];
  if (new Set(names.map(foldIdentifier)).size === names.length) return identifier;
  return (name) => `#${names.indexOf(name) + 1}`;
}

/** Each property's column is named by column-names.ts; properties without one (keys with NUL) are left out. */
export function eventsViewSql(files: ViewFile[], properties: Map<string, ValueKind>): string {
  const fixed = fixedColumnNames.map(identifier).join(", ");
  const names = propertyColumnNames(propertyColumnPrefix, properties.keys());
  const named = [...properties].filter(([key]) => names.has(key));
  const bySignature = new Map<string, { paths: string[]; expressions: string[] }>();
  for (const file of files) {
    const reference = columnReference(file);
    const expressions = named.map(([key, kind]) => `${propertyExpression(propertySource(file.schema, key), key, kind, reference)} AS ${identifier(names.get(key)!)}`);
    // Positions hold only among files of the same columns.
    const positional = reference !== identifier ? [...file.schema.keys()] : [];
    const signature = [...positional, ...expressions].join("\u0000");
    const group = bySignature.get(signature) ?? { paths: [], expressions };
    group.paths.push(file.path);
    bySignature.set(signature, group);
  }
  const selects = [...bySignature.values()].map(
    ({ paths, expressions }) => `SELECT ${[fixed, ...expressions].join(", ")} FROM read_parquet([${paths.map(literal).join(", ")}])`,
  );
  if (selects.length === 0) {
    const columns = [
      ...fixedColumnNames.map((name) => `NULL::${fixedType(name)} AS ${identifier(name)}`),
      ...named.map(([key, kind]) => `NULL::${kind === "number" ? "DOUBLE" : "VARCHAR"} AS ${identifier(names.get(key)!)}`),
    ];
    selects.push(`SELECT ${columns.join(", ")} WHERE FALSE`);
  }
  return [
    "CREATE OR REPLACE TEMP VIEW stored_events AS",
    `${selects.join("\nUNION ALL BY NAME\n")};`,
    "CREATE OR REPLACE TEMP VIEW events AS",
    "SELECT s.*, coalesce(o.person_id, s.person_index) AS person_id",
    "FROM stored_events s LEFT JOIN person_overrides o ON o.person_index = s.person_index;",
  ].join("\n");
}
