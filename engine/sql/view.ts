// The `events` view a compiled query (and /sql) runs on: every live Parquet file of one
// project environment, with each property the query names as one typed column `p_<key>`
// (DOUBLE when every file stores numbers, else VARCHAR with the executor's text rules), and
// `person_id`, the canonical person after merges (through the `person_overrides` table).
// Files whose property columns are stored alike are read by one read_parquet call.
import type { ColumnType } from "../chunk-store.ts";
import { propertySource, type PropertySource, type ValueKind } from "../query-data.ts";
import { fixedColumnNames } from "../../storage/event-columns.ts";
import { eventPropertyColumn, numberAsText } from "./expressions.ts";
import { identifier, literal } from "./params.ts";

export interface ViewFile {
  path: string;
  schema: Map<string, ColumnType>;
}

const fixedTypes: Record<string, string> = { timestamp: "TIMESTAMPTZ", sample_rate: "DOUBLE", is_suspect: "BOOLEAN", person_index: "INTEGER" };
const fixedType = (name: string) => fixedTypes[name] ?? "VARCHAR";

function propertyExpression(source: PropertySource, key: string, kind: ValueKind): string {
  const column = identifier(eventPropertyColumn(key));
  if (kind === "number") return source === "number" ? column : "NULL::DOUBLE";
  switch (source) {
    case "text":
      return column;
    case "bool":
      return `CASE WHEN ${column} THEN 'true' WHEN NOT ${column} THEN 'false' END`;
    case "number":
      return numberAsText(column);
    case "json":
      return `json_extract_string(${identifier(`pj_${key}`)}, '$')`;
    default:
      return "NULL::VARCHAR";
  }
}

export function eventsViewSql(files: ViewFile[], properties: Map<string, ValueKind>): string {
  const fixed = fixedColumnNames.map(identifier).join(", ");
  const bySignature = new Map<string, { paths: string[]; expressions: string[] }>();
  for (const file of files) {
    const expressions = [...properties].map(([key, kind]) => `${propertyExpression(propertySource(file.schema, key), key, kind)} AS ${identifier(eventPropertyColumn(key))}`);
    const signature = expressions.join("\u0000");
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
      ...[...properties].map(([key, kind]) => `NULL::${kind === "number" ? "DOUBLE" : "VARCHAR"} AS ${identifier(eventPropertyColumn(key))}`),
    ];
    selects.push(`SELECT ${columns.join(", ")} WHERE FALSE`);
  }
  return [
    "CREATE OR REPLACE TEMP VIEW events AS",
    "SELECT f.*, coalesce(o.person_id, f.person_index) AS person_id",
    `FROM (${selects.join("\nUNION ALL BY NAME\n")}) f`,
    "LEFT JOIN person_overrides o ON o.person_index = f.person_index",
  ].join("\n");
}
