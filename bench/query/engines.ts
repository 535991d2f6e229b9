// The executor as the benchmark runs it, through executeQuery over the same QuerySource the
// region's query service builds (a snapshot's chunks, a shared ChunkStore, the person source);
// DuckDB running the compiled SQL over the same Parquet files, set up as the differential test
// sets it up (test/engine/differential.test.ts); and the converters every baseline's rows go
// through (baselines.ts), since all answer in the compiled SQL's row shapes.
import { ChunkStore } from "../../engine/chunk-store.ts";
import { executeQuery, type InsightResult } from "../../engine/execute.ts";
import type { Query } from "../../engine/ir/query.ts";
import type { InsightKind } from "../../engine/ir/schema.ts";
import { validateQuery } from "../../engine/ir/validate.ts";
import { QueryData, queryRowsMax, type QuerySource } from "../../engine/query-data.ts";
import { columnsNeeded } from "../../engine/selection.ts";
import { compileSql, personProperties, type CompiledSql } from "../../engine/sql/compile.ts";
import type { DuckDbSession } from "../../engine/sql/duckdb.ts";
import { funnelFromSql, type FunnelSqlRow } from "../../engine/sql/funnel-sql.ts";
import { lifecycleFromSql, type LifecycleSqlRow } from "../../engine/sql/lifecycle-sql.ts";
import { pathsFromSql, type PathsSqlRow } from "../../engine/sql/paths-sql.ts";
import { retentionFromSql, type RetentionSqlRow } from "../../engine/sql/retention-sql.ts";
import { revenueFromSql, type RevenueSqlRow } from "../../engine/sql/revenue-sql.ts";
import { stickinessFromSql } from "../../engine/sql/stickiness-sql.ts";
import { trendsFromSql, type TrendsSqlRow } from "../../engine/sql/trends-sql.ts";
import type { StickinessResult } from "../../engine/kinds/stickiness.ts";
import type { TrendsResult } from "../../engine/kinds/trends.ts";
import type { BenchCase } from "./cases.ts";
import { queryNow, timeZone, type BenchData } from "./data.ts";

/** The reference: DuckDB with 2 threads. */
export const duckDbThreads = 2;
/**
 * "Warm" means every column a case reads is decoded and cached. The cases' columns take about
 * 36 bytes per event (measured at 1M), so at 100M events they pass the service's default
 * 512 MB bound (QUERY_CACHE_MB); warm raises it, and the bounded mode (measure.ts) keeps the default.
 */
export const columnCacheBytes = 6 * 2 ** 30;
/** The service's rows limit; no time limit, so slow cases are measured rather than cut off. */
const limits = { rowsMax: queryRowsMax, deadline: Number.MAX_SAFE_INTEGER };

export const benchQuery = (benchCase: BenchCase): Query => validateQuery(benchCase.document, timeZone, queryNow);

export const executorSource = (data: BenchData, store: ChunkStore): QuerySource => ({ store, chunks: data.chunks, persons: data.persons });

export async function runExecutor(query: Query, source: QuerySource): Promise<InsightResult> {
  return (await executeQuery(query, source, limits)).result;
}

/**
 * Defines the `events` view (properties typed as the executor types them), `person_created`
 * and `persons` for one query on `session`; returns the query's SQL. Reads file schemas
 * through its own ChunkStore, so setting DuckDB up warms nothing of the executor's.
 */
export async function prepareDuckDb(session: DuckDbSession, data: BenchData, query: Query): Promise<CompiledSql> {
  const queryData = new QueryData(executorSource(data, new ChunkStore()), query, limits);
  const { eventProperties } = columnsNeeded(query);
  await queryData.prepare(eventProperties);
  const files = queryData.chunks.map((ref) => {
    if (ref.kind !== "part") throw new Error(`bench data must be compacted, found a ${ref.kind}`);
    return { path: ref.path, schema: queryData.schemaOf(ref) };
  });
  await session.defineEvents(files, new Map(eventProperties.map((key) => [key, queryData.kindOf(key)])), data.persons.canonical);
  await session.definePersonCreated(data.persons.createdTimes());
  await session.definePersons(new Map(personProperties(query).map((key) => [
    key, { kind: queryData.personProperty(key).kind, values: data.personValues.get(key) ?? new Map() },
  ])));
  return compileSql(query, queryData);
}

export const runDuckDb = (session: DuckDbSession, sql: CompiledSql) => session.rowObjects<Record<string, unknown>>(sql.sql, sql.params);

/** DuckDB's rows in the shape of the executor's result, per kind, as the differential test turns them. */
const resultFromSql: Record<InsightKind, (query: Query, executed: InsightResult, rows: Record<string, unknown>[]) => unknown> = {
  trends: (query, executed, rows) => trendsFromSql(query, (executed as TrendsResult).buckets, rows as unknown as TrendsSqlRow[]),
  funnel: (query, _, rows) => funnelFromSql(query, rows as unknown as FunnelSqlRow[]),
  stickiness: (query, executed, rows) => stickinessFromSql(query, (executed as StickinessResult).intervals.length, rows as { intervals: number; persons: number }[]),
  retention: (query, _, rows) => retentionFromSql(query, rows as unknown as RetentionSqlRow[]),
  lifecycle: (query, _, rows) => lifecycleFromSql(query, rows as unknown as LifecycleSqlRow[]),
  revenue: (query, _, rows) => revenueFromSql(query, rows as unknown as RevenueSqlRow[]),
  paths: (_, __, rows) => pathsFromSql(rows as unknown as PathsSqlRow[]),
};

export const duckDbAnswer = (query: Query, executed: InsightResult, rows: Record<string, unknown>[]): unknown => resultFromSql[query.kind](query, executed, rows);
