// Query IR v1 as a JSON Schema (built with TypeBox, so the published schema and the checks
// are one definition). Structural rules live here; rules that need more than a schema (date
// expressions, regular expressions, step numbers, ranges) are in validate.ts.
import { Type as t, type Static } from "@sinclair/typebox";

export const irVersion = 1;

/** Limits of one query document: named here, enforced by the schema or validate.ts. */
export const seriesMax = 20;
export const funnelStepsMin = 2;
export const funnelExclusionsMax = 10;
export const filtersMax = 50;
export const filterValuesMax = 1000;
export const breakdownLimitDefault = 25;
export const breakdownLimitMax = 1000;
export const retentionPeriodsDefault = 7;
export const retentionPeriodsMax = 366;
export const pathsDepthDefault = 5;
export const pathsDepthMax = 20;
export const pathsEdgesDefault = 50;
export const pathsEdgesMax = 1000;
/** Cohorts a cohort breakdown names at most (each is a row per series; a person may be in several). */
export const breakdownCohortsMax = 20;
export const funnelWindowDefault = { value: 14, unit: "day" } as const;
export const intervalBucketsMax = 10_000;
const keyLengthMax = 400;
const textLengthMax = 1000;

export const operators = [
  "eq", "neq", "in", "not_in", "contains", "not_contains", "regex", "not_regex", "gt", "gte", "lt", "lte", "is_set", "is_not_set",
] as const;
export const mathValues = ["total", "unique_persons", "unique_sessions", "unique_groups", "sum", "avg", "min", "max", "p50", "p90", "p99"] as const;
export const insightKinds = ["trends", "funnel", "retention", "paths", "lifecycle", "stickiness", "revenue"] as const;
export const intervals = ["hour", "day", "week", "month"] as const;
/** What a revenue insight measures (docs/revenue-measures.md); `revenue` is the default. */
export const revenueMeasures = ["revenue", "mrr", "arr", "mrr_movements", "churn_rate", "refunds", "revenue_per_person"] as const;

/** Fixed event columns a filter or breakdown may name (type `column`). */
export const filterableColumns = [
  "event", "distinct_id", "anon_id", "session_id", "window_id", "lib_name", "lib_version", "consent",
  "geo_country", "geo_region", "geo_city", "geo_timezone", "is_suspect",
] as const;

export const literal = <T extends string>(values: readonly T[]) => t.Union(values.map((value) => t.Literal(value)));

export const Key = t.String({ minLength: 1, maxLength: keyLengthMax });
const Scalar = t.Union([t.String({ maxLength: textLengthMax }), t.Number(), t.Boolean()]);
/** A filter's value: one scalar, or a list for in / not_in (validate.ts says which operator takes which). */
export const FilterValue = t.Union([Scalar, t.Array(Scalar, { minItems: 1, maxItems: filterValuesMax })]);
export const GroupTypeIndex = t.Integer({ minimum: 0, maximum: 4 });
/** Cohort ids are UUIDs (any letter case; validation keeps them in lower case). */
export const cohortIdPattern = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
export const CohortId = t.String({ pattern: cohortIdPattern, description: "a cohort's id (UUID)" });

export const Filter = t.Union([
  t.Object({
    type: t.Union([t.Literal("event"), t.Literal("person")]),
    key: Key,
    operator: literal(operators),
    value: t.Optional(FilterValue),
  }, { additionalProperties: false }),
  t.Object({
    type: t.Literal("column"),
    key: literal(filterableColumns),
    operator: literal(operators),
    value: t.Optional(FilterValue),
  }, { additionalProperties: false }),
  t.Object({
    type: t.Literal("cohort"),
    cohort_id: CohortId,
    operator: t.Union([t.Literal("in"), t.Literal("not_in")]),
  }, { additionalProperties: false, description: "The event's person is (in) or is not (not_in) a member of the cohort, as last calculated in the environment." }),
], { description: "A condition on an event property, a person property, a fixed event column or the person's cohort membership." });

const Filters = t.Array(Filter, { maxItems: filtersMax });

export const Series = t.Object({
  event: t.Union([t.String({ minLength: 1, maxLength: keyLengthMax }), t.Null()], { description: "event name; null matches every event" }),
  math: t.Optional(literal(mathValues)),
  property: t.Optional(Key),
  group_type_index: t.Optional(GroupTypeIndex),
  filters: t.Optional(Filters),
  currency_property: t.Optional(Key),
  refund: t.Optional(t.Boolean()),
}, { additionalProperties: false });

export const Breakdown = t.Object({
  type: t.Union([t.Literal("event"), t.Literal("person"), t.Literal("group"), t.Literal("column"), t.Literal("cohort")]),
  property: t.Optional(Key),
  group_type_index: t.Optional(GroupTypeIndex),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: breakdownLimitMax })),
  cohort_ids: t.Optional(t.Array(CohortId, { minItems: 1, maxItems: breakdownCohortsMax, description: "a cohort breakdown: one row per cohort, in this order; a person in several cohorts counts in each" })),
}, { additionalProperties: false });

const FunnelWindow = t.Object({
  value: t.Integer({ minimum: 1, maximum: 10_000 }),
  unit: t.Union([t.Literal("minute"), t.Literal("hour"), t.Literal("day"), t.Literal("week"), t.Literal("month")]),
}, { additionalProperties: false });

const Exclusion = t.Object({
  event: t.String({ minLength: 1, maxLength: keyLengthMax }),
  from_step: t.Integer({ minimum: 0 }),
  to_step: t.Integer({ minimum: 1 }),
}, { additionalProperties: false });

export const Insight = t.Object({
  kind: literal(insightKinds),
  interval: t.Optional(literal(intervals)),
  series: t.Optional(t.Array(Series, { minItems: 1, maxItems: seriesMax })),
  breakdown: t.Optional(Breakdown),
  funnel_window: t.Optional(FunnelWindow),
  funnel_order: t.Optional(t.Union([t.Literal("ordered"), t.Literal("strict"), t.Literal("unordered")])),
  exclusions: t.Optional(t.Array(Exclusion, { maxItems: funnelExclusionsMax })),
  periods: t.Optional(t.Integer({ minimum: 1, maximum: retentionPeriodsMax })),
  retention_type: t.Optional(t.Union([t.Literal("recurring"), t.Literal("first_time")])),
  depth: t.Optional(t.Integer({ minimum: 2, maximum: pathsDepthMax })),
  edges: t.Optional(t.Integer({ minimum: 1, maximum: pathsEdgesMax })),
  start_point: t.Optional(t.String({ minLength: 1, maxLength: textLengthMax })),
  end_point: t.Optional(t.String({ minLength: 1, maxLength: textLengthMax })),
  exclude_events: t.Optional(t.Array(t.String({ minLength: 1, maxLength: keyLengthMax }), { maxItems: filtersMax })),
  cumulative: t.Optional(t.Boolean()),
  revenue_measure: t.Optional(literal(revenueMeasures)),
  currency: t.Optional(t.String({ minLength: 1, maxLength: 16, description: "revenue: an ISO 4217 code; every amount is converted into it at the ECB reference rate of its UTC day" })),
}, { additionalProperties: false });

export const QueryIr = t.Object({
  ir_version: t.Literal(irVersion),
  date_range: t.Object({
    from: t.String({ minLength: 1, maxLength: 64, description: "date expression: now, today, yesterday, -7d, -12w, -3m, -1y, -24h, YYYY-MM-DD or an ISO 8601 timestamp" }),
    to: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "date expression; default now. A day (today, -1d, a date) means the end of that day" })),
  }, { additionalProperties: false }),
  filters: t.Optional(Filters),
  insight: Insight,
}, { additionalProperties: false, $id: "https://svc-analytics.dev/schema/query-ir-v1.json", title: "Query IR v1" });

export type QueryIrDocument = Static<typeof QueryIr>;
export type FilterSpec = Static<typeof Filter>;
export type PropertyFilterSpec = Exclude<FilterSpec, { type: "cohort" }>;
export type CohortFilterSpec = Extract<FilterSpec, { type: "cohort" }>;
export type SeriesSpec = Static<typeof Series>;
export type BreakdownSpec = Static<typeof Breakdown>;
export type InsightSpec = Static<typeof Insight>;
export type Operator = (typeof operators)[number];
export type MathValue = (typeof mathValues)[number];
export type Interval = (typeof intervals)[number];
export type InsightKind = (typeof insightKinds)[number];
export type RevenueMeasure = (typeof revenueMeasures)[number];
