// Runs a validated Query: the insight kind's executor over the query's data, and, on
// request, the equivalent SQL (the compiler needs the property types the run settled on).
import type { Query } from "./ir/query.ts";
import type { InsightKind } from "./ir/schema.ts";
import { trends, type TrendsResult } from "./kinds/trends.ts";
import { funnel, type FunnelResult } from "./kinds/funnel.ts";
import { stickiness, type StickinessResult } from "./kinds/stickiness.ts";
import { retention, type RetentionResult } from "./kinds/retention.ts";
import { lifecycle, type LifecycleResult } from "./kinds/lifecycle.ts";
import { revenue, type RevenueResult } from "./kinds/revenue.ts";
import { paths, type PathsResult } from "./kinds/paths.ts";
import { QueryData, type QuerySource } from "./query-data.ts";
import { compileSql, type CompiledSql } from "./sql/compile.ts";

export type InsightResult = TrendsResult | FunnelResult | StickinessResult | RetentionResult | LifecycleResult | RevenueResult | PathsResult;

export interface QueryLimits {
  /** The query fails with query_too_large past this many rows. */
  rowsMax: number;
  /** Epoch ms after which the query fails with timeout. */
  deadline: number;
  /** Memory bound of one pass of per-person interval bitsets (default personSlotBytesMax). */
  personSlotBytesMax?: number;
  /** Cells of trends' single pass by breakdown value, over all its series (default trendsValueCellsMax). */
  trendsValueCellsMax?: number;
  /** Values an answer may hold (default answerCellsMax). */
  answerCellsMax?: number;
  /** Reads every part of the range, skipping none by its footer (tests and benchmarks compare against it). */
  readEveryPart?: boolean;
}

export interface Execution {
  result: InsightResult;
  rowsRead: number;
  sql: CompiledSql | null;
}

const executors: Record<InsightKind, (data: QueryData) => Promise<InsightResult>> = { trends, funnel, stickiness, retention, lifecycle, revenue, paths };

export async function executeQuery(query: Query, source: QuerySource, limits: QueryLimits, includeSql = false): Promise<Execution> {
  const data = new QueryData(source, query, limits);
  const result = await executors[query.kind](data);
  return { result, rowsRead: data.rowsRead, sql: includeSql ? await compileSql(query, data) : null };
}
