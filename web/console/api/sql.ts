// The region's SQL and schema routes (docs/sql.md): POST /sql runs one read-only SELECT;
// GET /schema/events and /schema/properties list what the project environment stores.
import { regionJson } from "./region-api.ts";
import type { RegionTokenSource } from "./region-token.ts";

/** A cell as POST /sql answers it: JSON of DuckDB's value (docs/sql.md, "Values"). */
export type SqlValue = string | number | boolean | null | SqlValue[] | { [key: string]: SqlValue };

export interface SqlResult {
  columns: string[];
  types: string[];
  rows: SqlValue[][];
  /** More rows than the answer holds (10,000, or 32 MiB of JSON). */
  truncated: boolean;
}

export interface EventSchema {
  name: string;
  volume: number;
  first_seen: string;
  last_seen: string;
}

export interface PropertySchema {
  key: string;
  type: "number" | "text" | "bool";
  volume: number;
  first_seen: string;
  last_seen: string;
}

export const runSql = (tokens: RegionTokenSource, sql: string) => regionJson<SqlResult>(tokens, "POST", "/sql", { sql });
export const listSchemaEvents = (tokens: RegionTokenSource) => regionJson<{ events: EventSchema[] }>(tokens, "GET", "/schema/events");
export const listSchemaProperties = (tokens: RegionTokenSource) => regionJson<{ properties: PropertySchema[] }>(tokens, "GET", "/schema/properties");
