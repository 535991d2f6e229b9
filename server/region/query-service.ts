// Runs POST /query for one region: validates the Query IR in the project's time zone, answers
// from the result cache when it can, holds the per-project concurrency limit, reads a
// snapshot of the partition from the storage worker (files plus rows not sealed yet, so
// results are fresh to the second) and runs the executor over the shared column cache. The
// answer is bounded (engine/answer-size.ts) and leaves as the JSON text the cache keeps.
import { answerBytesMax, answerJson } from "../../engine/answer-size.ts";
import { snapshotChunks, type ChunkRef, type ChunkStore } from "../../engine/chunk-store.ts";
import { executeQuery, type InsightResult } from "../../engine/execute.ts";
import { InvalidQueryError, validateQuery } from "../../engine/ir/validate.ts";
import { RevenueRateError } from "../../engine/revenue/conversion.ts";
import { QueryLimitError } from "../../engine/query-data.ts";
import { instantOf, localTime } from "../../engine/time-zone.ts";
import { ApiError } from "../http/errors.ts";
import type { RegionClaims } from "./region-auth.ts";
import type { RegionNode } from "./region-node.ts";
import { cohortStamps, missingCohortConflict, regionPersons } from "./region-persons.ts";
import { MissingCohortError, queryCohorts } from "../../engine/cohorts/membership.ts";
import { resultCacheHistoricalMs, resultCacheRecentMs, type ResultCache } from "./result-cache.ts";

/** Spec 2, Limits: the query time-out (QUERY_TIMEOUT_MS may lower it). */
export const queryTimeoutMs = 30_000;
export const concurrentQueriesPerProjectMax = 2;

export interface QueryRequest {
  query: unknown;
  include_sql?: boolean;
  refresh?: boolean;
}

/** An answer without its `cached` flag, which is spelled when it is sent (withCachedFlag). */
export interface QueryAnswer {
  result: InsightResult;
  sql?: string;
  params?: (string | number | boolean)[];
  computed_at: string;
  rows_read: number;
}

/** The JSON of an answer (an object's text) with `cached` as its first member. */
const withCachedFlag = (json: string, cached: boolean) => `{"cached":${cached},${json.slice(1)}`;

/** JSON with object keys sorted, so equal documents give equal cache keys. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The answer past concurrentQueriesPerProjectMax (POST /query, /sql and the schema routes share the gate). */
export const tooManyConcurrentQueries = () =>
  new ApiError(429, "too_many_concurrent_queries", `a project runs at most ${concurrentQueriesPerProjectMax} queries at once; retry when one has finished`, { "Retry-After": "1" });

/** How many queries each project has running. */
export class QueryGate {
  private readonly running = new Map<string, number>();

  /** A release function, or null when the project already runs its maximum. */
  tryAcquire(projectId: string): (() => void) | null {
    const count = this.running.get(projectId) ?? 0;
    if (count >= concurrentQueriesPerProjectMax) return null;
    this.running.set(projectId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(projectId) ?? 1) - 1;
      if (left === 0) this.running.delete(projectId);
      else this.running.set(projectId, left);
    };
  }
}

export class QueryService {
  readonly gate = new QueryGate();

  constructor(
    private readonly node: RegionNode,
    readonly columns: ChunkStore,
    private readonly cache: ResultCache,
    private readonly rowsMax: number,
    /** Every query route of the region runs at most this long. */
    readonly timeoutMs = queryTimeoutMs,
  ) {}

  /** The answer as JSON text. */
  async run(claims: RegionClaims, request: QueryRequest): Promise<string> {
    const now = Date.now();
    const timeZone = this.node.store.projectTimeZone(claims.projectId);
    let query;
    try {
      query = validateQuery(request.query, timeZone, now);
    } catch (error) {
      if (error instanceof InvalidQueryError) throw new ApiError(400, "invalid_query", error.message);
      throw error;
    }
    const includeSql = request.include_sql === true;
    // A cohort's recalculation changes the answer of every query naming it.
    const cohorts = cohortStamps(this.node, claims.projectId, claims.environment, queryCohorts(query));
    const cacheKey = `${claims.projectId}\u0000${claims.environment}\u0000${includeSql}\u0000${canonicalJson(request.query)}\u0000${cohorts}`;
    const hit = request.refresh === true ? null : this.cache.get(cacheKey, now);
    if (hit !== null) return withCachedFlag(hit, true);

    const release = this.gate.tryAcquire(claims.projectId);
    if (!release) throw tooManyConcurrentQueries();
    let chunks: ChunkRef[] = [];
    const generation = this.cache.generation(claims.projectId);
    try {
      chunks = snapshotChunks(await this.node.events.snapshot(claims.dataId, claims.environment), this.node.dataDir);
      const persons = regionPersons(this.node, claims.projectId, claims.environment);
      const execution = await executeQuery(query, { store: this.columns, chunks, persons }, { rowsMax: this.rowsMax, deadline: now + this.timeoutMs }, includeSql);
      const answer: QueryAnswer = {
        result: execution.result,
        ...(execution.sql ? { sql: execution.sql.sql, params: execution.sql.params } : {}),
        computed_at: new Date(now).toISOString(),
        rows_read: execution.rowsRead,
      };
      const json = answerJson(answer, answerBytesMax, "narrow the date range or the filters, or lower the breakdown limit or the paths' edges");
      this.cache.set(cacheKey, json, now + (this.touchesToday(query.to, timeZone, now) ? resultCacheRecentMs : resultCacheHistoricalMs), generation);
      return withCachedFlag(json, false);
    } catch (error) {
      if (error instanceof MissingCohortError) throw missingCohortConflict(error, claims.environment);
      // A revenue amount to convert on a day before the reference rate table starts.
      if (error instanceof RevenueRateError) throw new ApiError(400, "invalid_query", error.message);
      if (error instanceof QueryLimitError) {
        throw new ApiError(422, "query_too_large", error.code === "timeout" ? `the query ran past the ${this.timeoutMs / 1000} s limit; narrow the date range or the filters` : error.message);
      }
      throw error;
    } finally {
      this.columns.release(chunks);
      release();
    }
  }

  private touchesToday(to: number, timeZone: string, now: number): boolean {
    const today = localTime(timeZone, now);
    return to > instantOf(timeZone, today.year, today.month, today.day);
  }
}
