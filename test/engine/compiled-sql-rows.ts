// The executor against DuckDB on a test dataset: DuckDB's rows for a query's compiled SQL
// (the views and tables the SQL reads defined as the executor typed them: events over the
// same Parquet files, person creation times, person properties, cohort memberships), and
// random documents compared through both engines.
import type { Query } from "../../engine/ir/query.ts";
import { executeQuery, type Execution, type QueryLimits } from "../../engine/execute.ts";
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
  await definePersonTables(duck, dataset);
  await duck.definePersons(new Map(personProperties(query).map((key) => [key, { kind: data.personProperty(key).kind, values: dataset.personValues.get(key) ?? new Map() }])));
  return duck.rowObjects<Row>(sql.sql, sql.params);
}

/** What each session's `person_created` and `cohort_members` were last defined from (copies, compared by value). */
const personTablesDefined = new WeakMap<DuckDbSession, { created: Float64Array; canonical: Int32Array; cohorts: [string, Int32Array][] }>();

const sameValues = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.prototype.every.call(a, (value, index) => Object.is(value, b[index]));

/**
 * Defines `person_created` and `cohort_members` from the dataset, unless the session already
 * holds them from equal values: they do not depend on the query, and redefining them for
 * every document of a run of hundreds took about a fifth of DuckDB's share of the time. Compared by
 * value, so a test that changes the dataset's memberships or creation times between queries
 * gets them redefined.
 */
async function definePersonTables(duck: DuckDbSession, dataset: Dataset): Promise<void> {
  const cohorts = [...dataset.cohorts];
  const defined = personTablesDefined.get(duck);
  const unchanged = defined !== undefined && sameValues(defined.created, dataset.created) && sameValues(defined.canonical, dataset.canonical)
    && defined.cohorts.length === cohorts.length
    && defined.cohorts.every(([id, members], index) => cohorts[index]![0] === id && sameValues(members, cohorts[index]![1]));
  if (unchanged) return;
  // Forgotten first: if a definition fails, the next call defines both again.
  personTablesDefined.delete(duck);
  await duck.definePersonCreated(dataset.created);
  await duck.defineCohortMembers(dataset.cohorts, dataset.canonical);
  personTablesDefined.set(duck, { created: dataset.created.slice(), canonical: dataset.canonical.slice(), cohorts: cohorts.map(([id, members]) => [id, members.slice()]) });
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
 *
 * DuckDB runs on its own threads: while it answers one document's SQL, the executor (on this
 * thread) runs the next document, so the two engines share the machine's cores instead of
 * taking turns. Documents are still drawn, compared and counted in order, and a difference
 * fails before the document after the next one runs.
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
  const compare = async (i: number, document: Record<string, unknown>, query: Query, execution: Execution, other: Result | null): Promise<void> => {
    const result = execution.result as Result;
    const rows = await compiledSqlRows<Row>(duck, dataset, query, limits, execution.sql!);
    const problem = resultDifference(result, fromSql(query, result, rows), "result");
    if (problem) throw new Error(`query ${i} ${JSON.stringify(document)}\n${problem}\nSQL:\n${execution.sql!.sql}\n${JSON.stringify(execution.sql!.params)}`);
    if (other !== null) {
      const otherProblem = resultDifference(other, fromSql(query, other, rows), "result");
      if (otherProblem) throw new Error(`query ${i} with ${JSON.stringify(alsoWith)} ${JSON.stringify(document)}\n${otherProblem}`);
    }
    if (found(result)) withData++;
  };
  let previous: Promise<void> = Promise.resolve();
  try {
    for (let i = 0; i < queries; i++) {
      const document = generate(random);
      const query = validateQuery(document, zone, now);
      const execution = await executeQuery(query, dataset.source(), limits, true);
      const other = alsoWith ? (await executeQuery(query, dataset.source(), { ...limits, ...alsoWith })).result as Result : null;
      await previous;
      previous = compare(i, document, query, execution, other);
      // Handled here so a failure while the next document runs is not reported as unhandled; awaited above.
      previous.catch(() => {});
    }
  } finally {
    // Settles the last comparison (or the one running when the executor threw) before the
    // session and the dataset can be closed; its failure, if any, is the one reported.
    await previous;
  }
  return withData;
}
