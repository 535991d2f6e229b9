// Query -> parameterised DuckDB SQL over the `events` view (and `persons` when the query reads
// person properties), with the property types of the executor's run so both read values alike.
import type { Query } from "../ir/query.ts";
import type { InsightKind } from "../ir/schema.ts";
import type { QueryData } from "../query-data.ts";
import { columnsNeeded } from "../selection.ts";
import { personPropertyPrefix, type SqlKinds } from "./expressions.ts";
import { propertyColumnNames } from "./column-names.ts";
import { propertyColumnPrefix } from "../../storage/event-columns.ts";
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

/**
 * The query's property kinds, and column names as the `events` view of every file of the
 * partition names them (as /sql's view does), so the SQL reads the same columns there.
 */
export async function sqlKinds(query: Query, data: QueryData): Promise<SqlKinds> {
  const personKeys = personProperties(query);
  const eventKeys = columnsNeeded(query).eventProperties;
  return {
    event: new Map(eventKeys.map((key) => [key, data.kindOf(key)])),
    person: new Map(personKeys.map((key) => [key, data.personProperty(key).kind])),
    // Keys no file holds are named too: the view gives them a column of NULLs.
    eventColumns: propertyColumnNames(propertyColumnPrefix, [...(await data.allEventPropertyKeys()), ...eventKeys]),
    personColumns: propertyColumnNames(personPropertyPrefix, personKeys),
  };
}

const compilers: Record<InsightKind, (query: Query, kinds: SqlKinds, params: Params) => string> = { trends: trendsSql, funnel: funnelSql, stickiness: stickinessSql, retention: retentionSql, lifecycle: lifecycleSql, revenue: revenueSql, paths: pathsSql };

export async function compileSql(query: Query, data: QueryData): Promise<CompiledSql> {
  const params = new Params();
  const sql = compilers[query.kind](query, await sqlKinds(query, data), params);
  return { sql, params: params.values };
}
