// The executor against DuckDB on a test dataset: DuckDB's rows for a query's compiled SQL
// (the views and tables the SQL reads defined as the executor typed them: events over the
// same Parquet files, person creation times, person properties, cohort memberships), and
// random documents compared through both engines.
import type { Query } from "../../engine/ir/query.ts";
import { executeQuery, type QueryLimits } from "../../engine/execute.ts";
import { validateQuery } from "../../engine/ir/validate.ts";
import { resultDifference } from "../../bench/query/same-result.ts";
import { QueryData } from "../../engine/query-data.ts";
import { columnsNeeded } from "../../engine/selection.ts";
import { personProperties, type CompiledSql } from "../../engine/sql/compile.ts";
import type { DuckDbSession } from "../../engine/sql/duckdb.ts";
import { seededRandom, type Dataset } from "./dataset.ts";

export async function compiledSqlRows<Row>(duck: DuckDbSession, dataset: Dataset, query: Query, limits: QueryLimits, sql: CompiledSql): Promise<Row[]> {
  const data = new QueryData(dataset.source(), query, limits);
  const { eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const files = data.chunks.map((ref) => ({ path: (ref as { path: string }).path, schema: data.schemaOf(ref) }));
  await duck.defineEvents(files, new Map(eventProperties.map((key) => [key, data.kindOf(key)])), dataset.canonical);
  await duck.definePersonCreated(dataset.created);
  await duck.definePersons(new Map(personProperties(query).map((key) => [key, { kind: data.personProperty(key).kind, values: dataset.personValues.get(key) ?? new Map() }])));
  await duck.defineCohortMembers(dataset.cohorts, dataset.canonical);
  return duck.rowObjects<Row>(sql.sql, sql.params);
}

/** Where random documents are compared: the dataset, its DuckDB session, and how queries are validated and bounded. */
export interface Comparison {
  duck: DuckDbSession;
  dataset: Dataset;
  zone: string;
  now: number;
  limits: QueryLimits;
  queries: number;
}

/**
 * Runs `queries` random documents through the executor and through DuckDB; the first
 * difference fails with the document, the path of the difference and the SQL. With
 * `alsoWith`, the executor's answer under those limits must equal DuckDB's too. Returns how
 * many results `found` says found data (the generator must find data, or the comparison proves little).
 */
export async function compareRandomQueries<Result, Row>(
  { duck, dataset, zone, now, limits, queries }: Comparison,
  seed: number,
  generate: (random: () => number) => Record<string, unknown>,
  fromSql: (query: Query, result: Result, rows: Row[]) => unknown,
  found: (result: Result) => boolean,
  alsoWith: Partial<QueryLimits> | null = null,
): Promise<number> {
  const random = seededRandom(seed);
  let withData = 0;
  for (let i = 0; i < queries; i++) {
    const document = generate(random);
    const query = validateQuery(document, zone, now);
    const execution = await executeQuery(query, dataset.source(), limits, true);
    const result = execution.result as Result;
    const rows = await compiledSqlRows<Row>(duck, dataset, query, limits, execution.sql!);
    const problem = resultDifference(result, fromSql(query, result, rows), "result");
    if (problem) throw new Error(`query ${i} ${JSON.stringify(document)}\n${problem}\nSQL:\n${execution.sql!.sql}\n${JSON.stringify(execution.sql!.params)}`);
    if (alsoWith) {
      const other = (await executeQuery(query, dataset.source(), { ...limits, ...alsoWith })).result as Result;
      const otherProblem = resultDifference(other, fromSql(query, other, rows), "result");
      if (otherProblem) throw new Error(`query ${i} with ${JSON.stringify(alsoWith)} ${JSON.stringify(document)}\n${otherProblem}`);
    }
    if (found(result)) withData++;
  }
  return withData;
}
