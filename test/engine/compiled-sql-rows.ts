// DuckDB's rows for a query's compiled SQL over a test dataset: defines the views and tables
// the SQL reads (events over the same Parquet files, person creation times, person
// properties) as the executor typed them, then runs the SQL the executor returned.
import type { Query } from "../../engine/ir/query.ts";
import type { QueryLimits } from "../../engine/execute.ts";
import { QueryData } from "../../engine/query-data.ts";
import { columnsNeeded } from "../../engine/selection.ts";
import { personProperties, type CompiledSql } from "../../engine/sql/compile.ts";
import type { DuckDbSession } from "../../engine/sql/duckdb.ts";
import type { Dataset } from "./dataset.ts";

export async function compiledSqlRows<Row>(duck: DuckDbSession, dataset: Dataset, query: Query, limits: QueryLimits, sql: CompiledSql): Promise<Row[]> {
  const data = new QueryData(dataset.source(), query, limits);
  const { eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const files = data.chunks.map((ref) => ({ path: (ref as { path: string }).path, schema: data.schemaOf(ref) }));
  await duck.defineEvents(files, new Map(eventProperties.map((key) => [key, data.kindOf(key)])), dataset.canonical);
  await duck.definePersonCreated(dataset.created);
  await duck.definePersons(new Map(personProperties(query).map((key) => [key, { kind: data.personProperty(key).kind, values: dataset.personValues.get(key) ?? new Map() }])));
  return duck.rowObjects<Row>(sql.sql, sql.params);
}
