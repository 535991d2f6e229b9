// Query -> parameterised DuckDB SQL over the `events` view (and `persons` when the query reads
// person properties), with the property types of the executor's run so both read values alike.
import type { Query } from "../ir/query.ts";
import type { InsightKind } from "../ir/schema.ts";
import type { QueryData } from "../query-data.ts";
import { columnsNeeded } from "../selection.ts";
import type { SqlKinds } from "./expressions.ts";
import { Params } from "./params.ts";
import { trendsSql } from "./trends-sql.ts";
import { funnelSql } from "./funnel-sql.ts";
import { stickinessSql } from "./stickiness-sql.ts";
import { retentionSql } from "./retention-sql.ts";
import { lifecycleSql } from "./lifecycle-sql.ts";
import { revenueSql } from "./revenue-sql.ts";
import { pathsSql } from "./paths-sql.ts";

export interface CompiledSql {
  sql: string;
  params: (string | number | boolean)[];
}

/** Person property keys a query reads. */
export function personProperties(query: Query): string[] {
  const keys = new Set<string>();
  for (const filter of [...query.filters, ...query.series.flatMap((series) => series.filters)]) if (filter.type === "person") keys.add(filter.key);
  if (query.breakdown?.type === "person") keys.add(query.breakdown.property!);
  return [...keys];
}

export function sqlKinds(query: Query, data: QueryData): SqlKinds {
  return {
    event: new Map(columnsNeeded(query).eventProperties.map((key) => [key, data.kindOf(key)])),
    person: new Map(personProperties(query).map((key) => [key, data.personProperty(key).kind])),
  };
}

const compilers: Record<InsightKind, (query: Query, kinds: SqlKinds, params: Params) => string> = { trends: trendsSql, funnel: funnelSql, stickiness: stickinessSql, retention: retentionSql, lifecycle: lifecycleSql, revenue: revenueSql, paths: pathsSql };

export function compileSql(query: Query, data: QueryData): CompiledSql {
  const params = new Params();
  const sql = compilers[query.kind](query, sqlKinds(query, data), params);
  return { sql, params: params.values };
}
