// Checks a Query IR v1 document and turns it into a Query. Every problem is an
// InvalidQueryError naming the JSON path of the offending member (RFC 6901), so a client can
// point at it: "/insight/series/1/math: must be one of total, unique_persons, ...".
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import type { TSchema } from "@sinclair/typebox";
import { bucketCount } from "../buckets.ts";
import { bucketStartAt, isTimeZone, type BucketInterval } from "../time-zone.ts";
import { DateExpressionError, evaluateDate } from "./dates.ts";
import { sqlSpellable } from "../sql/column-names.ts";
import type { Breakdown, Filter, PropertyFilter, Query, RevenueOptions, Series } from "./query.ts";
import { currencyProblem, measureSeries, readsSubscriptionHistory, revenueOptions } from "./revenue-options.ts";
import {
  breakdownLimitDefault, Filter as FilterSchema, filterableColumns, funnelStepsMin, funnelWindowDefault, intervalBucketsMax,
  pathsDepthDefault, pathsEdgesDefault, QueryIr, retentionPeriodsDefault, type BreakdownSpec, type InsightKind, type InsightSpec, type Operator, type QueryIrDocument, type SeriesSpec,
} from "./schema.ts";

export class InvalidQueryError extends Error {
  readonly code = "invalid_query";
  readonly status = 400;
  constructor(readonly path: string, problem: string) {
    super(`${path || "/"}: ${problem}`);
  }
}

const checkDocument = TypeCompiler.Compile(QueryIr);
const [checkPropertyFilter, checkColumnFilter, checkCohortFilter] = FilterSchema.anyOf.map((branch) => TypeCompiler.Compile(branch));
const filterBranches: Record<string, typeof checkPropertyFilter> = { event: checkPropertyFilter!, person: checkPropertyFilter!, column: checkColumnFilter!, cohort: checkCohortFilter! };

const literalValues = (schema: TSchema): string[] | null => {
  const members = (schema as { anyOf?: TSchema[] }).anyOf;
  if (!members || !members.every((member) => typeof (member as { const?: unknown }).const === "string")) return null;
  return members.map((member) => (member as unknown as { const: string }).const);
};

/** A TypeBox error in the words the Query IR's messages use. */
export function describeValueError(error: ValueError): string {
  const allowed = literalValues(error.schema);
  if (allowed) return `must be one of ${allowed.join(", ")}`;
  if (error.type === ValueErrorType.ObjectRequiredProperty) return "is required";
  if (error.type === ValueErrorType.ObjectAdditionalProperties || error.message === "Unexpected property") return "is not a member of this object";
  return error.message.charAt(0).toLowerCase() + error.message.slice(1);
}

/** The most precise structural problem: a filter is checked against the branch its `type` names. */
function firstStructuralError(document: unknown): InvalidQueryError | null {
  const first = checkDocument.Errors(document).First();
  if (!first) return null;
  if (/^\/(insight\/series\/\d+\/)?filters\/\d+$/.test(first.path)) {
    const filter = valueAt(document, first.path);
    if (typeof filter !== "object" || filter === null || Array.isArray(filter)) return new InvalidQueryError(first.path, "must be a filter object");
    const type = (filter as { type?: unknown }).type;
    const branch = typeof type === "string" && Object.hasOwn(filterBranches, type) ? filterBranches[type] : null;
    if (!branch) return new InvalidQueryError(`${first.path}/type`, `must be one of ${Object.keys(filterBranches).join(", ")}`);
    const inner = branch.Errors(filter).First();
    if (inner) return new InvalidQueryError(`${first.path}${inner.path}`, describeValueError(inner));
  }
  return new InvalidQueryError(first.path, describeValueError(first));
}

function valueAt(document: unknown, path: string): unknown {
  let value = document;
  for (const part of path.split("/").slice(1)) value = (value as Record<string, unknown>)?.[part];
  return value;
}

const numericMaths = new Set(["sum", "avg", "min", "max", "p50", "p90", "p99"]);
const listOperators = new Set(["in", "not_in"]);
const numberOperators = new Set(["gt", "gte", "lt", "lte"]);
const textOperators = new Set(["contains", "not_contains", "regex", "not_regex"]);
const presenceOperators = new Set(["is_set", "is_not_set"]);

/** What is wrong with a filter's value for its operator, or null: the rules every filter of the IR (and of a cohort definition) follows. */
export function filterValueProblem(operator: Operator, value: unknown): string | null {
  if (presenceOperators.has(operator)) return value === undefined ? null : `must be absent for ${operator}`;
  if (value === undefined) return `is required for ${operator}`;
  if (listOperators.has(operator)) return Array.isArray(value) ? null : `must be an array for ${operator}`;
  if (Array.isArray(value)) return `must be a single value for ${operator} (use in or not_in for a list)`;
  if (numberOperators.has(operator) && typeof value !== "number") return `must be a number for ${operator}`;
  if (!textOperators.has(operator)) return null;
  if (typeof value !== "string") return `must be a string for ${operator}`;
  if (!operator.endsWith("regex")) return null;
  try {
    new RegExp(value);
    return null;
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message}`;
  }
}

function checkFilterValue(filter: PropertyFilter, path: string): void {
  const problem = filterValueProblem(filter.operator, filter.value);
  if (problem) throw new InvalidQueryError(`${path}/value`, problem);
}

/** A property key is spelled in the compiled SQL, whose text NUL would end (column-names.ts). */
function checkKey(key: string | undefined, path: string): void {
  if (key !== undefined && !sqlSpellable(key)) throw new InvalidQueryError(path, "must not contain NUL (U+0000)");
}

function checkFilters(filters: Filter[] | undefined, path: string): Filter[] {
  return (filters ?? []).map((filter, index) => {
    if (filter.type === "cohort") return { ...filter, cohort_id: filter.cohort_id.toLowerCase() };
    checkKey(filter.key, `${path}/${index}/key`);
    checkFilterValue(filter, `${path}/${index}`);
    return filter;
  });
}

/** Members of `insight` that only some kinds read; naming one for another kind is a mistake worth saying. */
const kindMembers: Record<string, readonly string[]> = {
  funnel_window: ["funnel"], funnel_order: ["funnel"], exclusions: ["funnel"],
  periods: ["retention"], retention_type: ["retention"],
  depth: ["paths"], edges: ["paths"], start_point: ["paths"], end_point: ["paths"], exclude_events: ["paths"],
  cumulative: ["stickiness"],
  revenue_measure: ["revenue"], currency: ["revenue"],
  breakdown: ["trends", "funnel"],
  interval: ["trends", "retention", "lifecycle", "stickiness", "revenue"],
};

const seriesCounts: Record<string, [min: number, max: number | null]> = {
  trends: [1, null], funnel: [funnelStepsMin, null], retention: [1, 2], paths: [0, null], lifecycle: [1, 1], stickiness: [1, 1], revenue: [1, null],
};

const windowUnitMs = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 };

function normalizeSeries(spec: SeriesSpec, path: string, kind: string): Series {
  checkKey(spec.property, `${path}/property`);
  checkKey(spec.currency_property, `${path}/currency_property`);
  const math = spec.math ?? "total";
  if (kind !== "trends" && spec.math !== undefined) throw new InvalidQueryError(`${path}/math`, `applies to trends only (${kind} counts persons)`);
  if (kind === "revenue") {
    if (spec.group_type_index !== undefined) throw new InvalidQueryError(`${path}/group_type_index`, "applies to unique_groups only");
  } else {
    if (spec.currency_property !== undefined) throw new InvalidQueryError(`${path}/currency_property`, "applies to revenue only");
    if (spec.refund !== undefined) throw new InvalidQueryError(`${path}/refund`, "applies to revenue only");
    if (numericMaths.has(math) && spec.property === undefined) throw new InvalidQueryError(`${path}/property`, `is required for math ${math}`);
    if (!numericMaths.has(math) && spec.property !== undefined) throw new InvalidQueryError(`${path}/property`, `applies to sum, avg, min, max, p50, p90 and p99 only`);
    if (math === "unique_groups" && spec.group_type_index === undefined) throw new InvalidQueryError(`${path}/group_type_index`, "is required for math unique_groups");
    if (math !== "unique_groups" && spec.group_type_index !== undefined) throw new InvalidQueryError(`${path}/group_type_index`, "applies to unique_groups only");
  }
  return {
    event: spec.event,
    math,
    property: spec.property ?? (kind === "revenue" ? "amount" : null),
    groupTypeIndex: spec.group_type_index ?? null,
    filters: checkFilters(spec.filters, `${path}/filters`),
    currencyProperty: spec.currency_property ?? "currency",
    refund: spec.refund ?? false,
  };
}

function normalizeBreakdown(insight: InsightSpec): Breakdown | null {
  const spec = insight.breakdown;
  if (!spec) return null;
  const path = "/insight/breakdown";
  checkKey(spec.property, `${path}/property`);
  if (spec.type === "cohort") return cohortBreakdown(spec, path);
  if (spec.cohort_ids !== undefined) throw new InvalidQueryError(`${path}/cohort_ids`, "applies to cohort breakdowns only");
  if (spec.type === "group") {
    if (spec.group_type_index === undefined) throw new InvalidQueryError(`${path}/group_type_index`, "is required for a group breakdown");
  } else {
    if (spec.group_type_index !== undefined) throw new InvalidQueryError(`${path}/group_type_index`, "applies to group breakdowns only");
    if (spec.property === undefined) throw new InvalidQueryError(`${path}/property`, `is required for a ${spec.type} breakdown`);
    if (spec.type === "column" && !(filterableColumns as readonly string[]).includes(spec.property)) {
      throw new InvalidQueryError(`${path}/property`, `must be one of ${filterableColumns.join(", ")}`);
    }
  }
  return { type: spec.type, property: spec.property ?? null, groupTypeIndex: spec.group_type_index ?? null, limit: spec.limit ?? breakdownLimitDefault, cohortIds: [] };
}

/** A row per named cohort, in order: nothing to rank, so no limit; each cohort once. */
function cohortBreakdown(spec: BreakdownSpec, path: string): Breakdown {
  for (const member of ["property", "group_type_index", "limit"] as const) {
    if (spec[member] !== undefined) throw new InvalidQueryError(`${path}/${member}`, "does not apply to a cohort breakdown (it has a row per cohort)");
  }
  if (spec.cohort_ids === undefined) throw new InvalidQueryError(`${path}/cohort_ids`, "is required for a cohort breakdown");
  const cohortIds = spec.cohort_ids.map((id) => id.toLowerCase());
  cohortIds.forEach((id, index) => {
    if (cohortIds.indexOf(id) !== index) throw new InvalidQueryError(`${path}/cohort_ids/${index}`, `names cohort ${id} a second time`);
  });
  return { type: "cohort", property: null, groupTypeIndex: null, limit: cohortIds.length, cohortIds };
}

/** Validates `document` for a project in `timeZone` at `now`; throws InvalidQueryError. */
export function validateQuery(document: unknown, timeZone: string, now: number): Query {
  if (!isTimeZone(timeZone)) throw new Error(`unknown time zone ${timeZone}`);
  const structural = firstStructuralError(document);
  if (structural) throw structural;
  const ir = document as QueryIrDocument;
  const insight = ir.insight;
  const kind = insight.kind;
  for (const [member, kinds] of Object.entries(kindMembers)) {
    if ((insight as Record<string, unknown>)[member] !== undefined && !kinds.includes(kind)) {
      throw new InvalidQueryError(`/insight/${member}`, `applies to ${kinds.join(", ")} insights only`);
    }
  }
  const revenue = revenueOptions(insight);
  if (revenue.currency !== null) {
    const problem = currencyProblem(revenue.currency);
    if (problem) throw new InvalidQueryError("/insight/currency", problem);
  }
  const fixedSeries = measureSeries(revenue.measure);
  if (fixedSeries && insight.series !== undefined) {
    throw new InvalidQueryError("/insight/series", `applies to revenue_measure revenue only (${revenue.measure} reads the revenue events the payment providers write)`);
  }
  const [seriesMin, seriesMax] = seriesCounts[kind]!;
  const specs = insight.series ?? [];
  if (!fixedSeries && specs.length < seriesMin) throw new InvalidQueryError("/insight/series", `${kind} needs at least ${seriesMin} series`);
  if (seriesMax !== null && specs.length > seriesMax) throw new InvalidQueryError("/insight/series", `${kind} takes at most ${seriesMax} series`);
  const series = fixedSeries ?? specs.map((spec, index) => normalizeSeries(spec, `/insight/series/${index}`, kind));
  if (kind === "funnel") {
    specs.forEach((spec, index) => {
      if (spec.event === null) throw new InvalidQueryError(`/insight/series/${index}/event`, "a funnel step needs an event name");
    });
  }

  const evaluate = (side: "from" | "to", expression: string) => {
    try {
      return evaluateDate(expression, side, timeZone, now);
    } catch (error) {
      if (error instanceof DateExpressionError) throw new InvalidQueryError(`/date_range/${side}`, error.message);
      throw error;
    }
  };
  const from = evaluate("from", ir.date_range.from);
  const to = evaluate("to", ir.date_range.to ?? "now");
  if (from >= to) throw new InvalidQueryError("/date_range", `from (${new Date(from).toISOString()}) must be before to (${new Date(to).toISOString()})`);
  const interval = insight.interval ?? "day";
  const buckets = bucketCount(interval, timeZone, from, to, intervalBucketsMax);
  if (buckets > intervalBucketsMax) {
    throw new InvalidQueryError("/insight/interval", `the range has ${buckets} ${interval} intervals; at most ${intervalBucketsMax} (use a longer interval or a shorter range)`);
  }

  const steps = series.length;
  if (insight.funnel_order === "unordered" && (insight.exclusions ?? []).length > 0) {
    throw new InvalidQueryError("/insight/exclusions", "an unordered funnel has no steps in between to exclude events from");
  }
  const exclusions = (insight.exclusions ?? []).map((exclusion, index) => {
    const path = `/insight/exclusions/${index}`;
    if (exclusion.from_step >= exclusion.to_step) throw new InvalidQueryError(`${path}/to_step`, "must be after from_step");
    if (exclusion.to_step >= steps) throw new InvalidQueryError(`${path}/to_step`, `must name a step (0 to ${steps - 1})`);
    return { event: exclusion.event, fromStep: exclusion.from_step, toStep: exclusion.to_step };
  });
  const window = insight.funnel_window ?? funnelWindowDefault;

  return {
    kind,
    from,
    to,
    scanFrom: scanStart(kind, insight.retention_type, revenue, interval, timeZone, from),
    timeZone,
    interval,
    filters: checkFilters(ir.filters, "/filters"),
    series,
    breakdown: normalizeBreakdown(insight),
    funnel: { windowMs: window.value * windowUnitMs[window.unit], order: insight.funnel_order ?? "ordered", exclusions },
    retention: { periods: insight.periods ?? retentionPeriodsDefault, type: insight.retention_type ?? "recurring" },
    paths: {
      depth: insight.depth ?? pathsDepthDefault,
      edges: insight.edges ?? pathsEdgesDefault,
      startPoint: insight.start_point ?? null,
      endPoint: insight.end_point ?? null,
      excludeEvents: insight.exclude_events ?? [],
    },
    stickiness: { cumulative: insight.cumulative ?? false },
    revenue,
  };
}

/**
 * Where a query starts reading: lifecycle needs the interval before the first (who was active
 * then decides returning, resurrecting and dormant); first-time retention needs all history
 * (a person's first-ever start event decides the cohort); so do the subscription measures of
 * revenue (MRR is state: each subscription's latest event, however old); every other kind
 * reads its range.
 */
function scanStart(kind: InsightKind, retentionType: string | undefined, revenue: RevenueOptions, interval: BucketInterval, zone: string, from: number): number {
  if (kind === "retention" && retentionType === "first_time") return Number.NEGATIVE_INFINITY;
  if (kind === "revenue" && readsSubscriptionHistory(revenue)) return Number.NEGATIVE_INFINITY;
  if (kind !== "lifecycle") return from;
  return bucketStartAt(interval, zone, bucketStartAt(interval, zone, from) - 1);
}
