// The region's POST /query as the console reads it (docs/query-ir.md). The Query IR types are
// the engine's own schema types (type-only imports: nothing of the engine ships to the
// browser); the result shapes mirror engine/kinds/*.ts, and
// test/web/console/api/query-types.test.ts fails the type check when the two drift apart.
import type { BreakdownSpec, FilterSpec, InsightKind, InsightSpec, Interval, MathValue, Operator, QueryIrDocument, RevenueMeasure, SeriesSpec } from "../../../engine/ir/schema.ts";

export type { BreakdownSpec, FilterSpec, InsightKind, InsightSpec, Interval, MathValue, Operator, QueryIrDocument, RevenueMeasure, SeriesSpec };

export interface TrendsRow {
  series: number;
  event: string | null;
  math: string;
  breakdown_value?: string | null;
  breakdown_other?: boolean;
  values: (number | null)[];
  total: number | null;
}

export interface TrendsResult {
  kind: "trends";
  interval: string;
  time_zone: string;
  buckets: string[];
  rows: TrendsRow[];
}

export interface FunnelStep {
  step: number;
  event: string;
  count: number;
  conversion_from_previous: number | null;
  conversion_from_first: number | null;
  median_seconds: number | null;
  average_seconds: number | null;
}

export interface FunnelBreakdown {
  breakdown_value: string | null;
  breakdown_other: boolean;
  steps: FunnelStep[];
}

export interface FunnelResult {
  kind: "funnel";
  order: string;
  window_seconds: number;
  steps: FunnelStep[];
  breakdowns?: FunnelBreakdown[];
}

export interface RetentionCohort {
  cohort: string;
  size: number;
  values: number[];
}

export interface RetentionResult {
  kind: "retention";
  interval: string;
  time_zone: string;
  retention_type: string;
  periods: number;
  cohorts: RetentionCohort[];
}

export interface PathEdge {
  source_step: number;
  source: string;
  target_step: number;
  target: string;
  persons: number;
}

export interface PathsResult {
  kind: "paths";
  edges: PathEdge[];
}

export type LifecycleStatus = "new" | "returning" | "resurrecting" | "dormant";

export interface LifecycleResult {
  kind: "lifecycle";
  interval: string;
  time_zone: string;
  buckets: string[];
  /** In the order new, returning, resurrecting, dormant; dormant values are negative. */
  rows: { status: LifecycleStatus; values: number[] }[];
}

export interface StickinessResult {
  kind: "stickiness";
  interval: string;
  time_zone: string;
  cumulative: boolean;
  intervals: number[];
  persons: number[];
}

export interface RevenueRow {
  currency: string | null;
  /** What the row counts where a measure has several rows per currency (mrr_movements, churn_rate). */
  label?: string;
  /** Minor units per interval (churn_rate: ratios). */
  values: number[];
  total: number;
}

export interface RevenueResult {
  kind: "revenue";
  interval: string;
  time_zone: string;
  /** The measure, when the document named one. */
  measure?: RevenueMeasure;
  /** The currency amounts were converted into, when the document named one. */
  currency?: string;
  buckets: string[];
  rows: RevenueRow[];
}

export type InsightResult = TrendsResult | FunnelResult | RetentionResult | PathsResult | LifecycleResult | StickinessResult | RevenueResult;

/** The answer of POST {region_api_url}/query. */
export interface QueryAnswer {
  result: InsightResult;
  /** Only with include_sql: the DuckDB SQL and its parameters ($1, $2, …). */
  sql?: string;
  params?: (string | number | boolean)[];
  cached: boolean;
  computed_at: string;
  rows_read: number;
}

/** GET {region_api_url}/schema/events (docs/sql.md). */
export interface EventSchema {
  name: string;
  volume: number;
  first_seen: string;
  last_seen: string;
}

/** GET {region_api_url}/schema/properties (docs/sql.md). */
export interface PropertySchema {
  key: string;
  type: "number" | "text" | "bool";
  volume: number;
  first_seen: string;
  last_seen: string;
}
