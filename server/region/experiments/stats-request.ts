// The body of POST /experiments/stats (docs/experiment-results.md): the schema checks shapes
// and ranges, then the rules that span fields (control among the variants, a split per
// variant, margins only on guardrails) are checked here, each answering 400 `bad_request`
// with the JSON path of the offending field, as schema failures do.
import { t } from "elysia";
import { hourMs } from "../../clock.ts";
import { parseRfc3339 } from "../../ingest/rfc3339.ts";
import { alphaDefault, type MarginKind } from "../../../engine/stats/index.ts";
import { badRequest } from "../region-access.ts";

export const exposureEventDefault = "$feature_flag_called";
export const variantsMin = 2;
export const variantsMax = 20;
export const statsMetricsMax = 50;
/** The control plane's bounds (ExperimentDto): attribution windows up to 90 days, pre-periods up to 90 days. */
export const attributionWindowHoursMax = 90 * 24;
export const prePeriodDaysMax = 90;
const nameLengthMax = 200;
const propertyKeyLengthMax = 400;
const variantKeyLengthMax = 400;

const Name = t.String({ minLength: 1, maxLength: nameLengthMax });
const Instant = t.String({ minLength: 20, maxLength: 40 });
const Method = t.Union([t.Literal("frequentist"), t.Literal("bayesian")]);
const Role = t.Union([t.Literal("primary"), t.Literal("secondary"), t.Literal("guardrail")]);

const StatsMetric = t.Object(
  {
    key: Name,
    kind: t.Union([t.Literal("proportion"), t.Literal("mean")]),
    event: Name,
    property: t.Optional(t.Union([t.String({ minLength: 1, maxLength: propertyKeyLengthMax }), t.Null()])),
    role: Role,
    higher_is_better: t.Optional(t.Boolean()),
    margin: t.Optional(t.Number({ minimum: 0 })),
    margin_kind: t.Optional(t.Union([t.Literal("relative"), t.Literal("absolute")])),
  },
  { additionalProperties: false },
);

export const StatsBody = t.Object(
  {
    flag_key: t.String({ minLength: 1, maxLength: nameLengthMax }),
    exposure_event: t.Optional(Name),
    variants: t.Array(t.String({ minLength: 1, maxLength: variantKeyLengthMax }), { minItems: variantsMin, maxItems: variantsMax, uniqueItems: true }),
    control_variant: t.String({ minLength: 1, maxLength: variantKeyLengthMax }),
    start_at: Instant,
    end_at: t.Optional(t.Union([Instant, t.Null()])),
    attribution_window_hours: t.Integer({ minimum: 1, maximum: attributionWindowHoursMax }),
    method: t.Optional(Method),
    alpha: t.Optional(t.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
    winsor_pct: t.Optional(t.Union([t.Number({ exclusiveMinimum: 0, maximum: 1 }), t.Null()])),
    cuped: t.Optional(t.Union([t.Object({ enabled: t.Boolean(), pre_period_days: t.Integer({ minimum: 0, maximum: prePeriodDaysMax }) }, { additionalProperties: false }), t.Null()])),
    expected_split: t.Optional(t.Union([t.Record(t.String(), t.Number({ minimum: 0 })), t.Null()])),
    metrics: t.Array(StatsMetric, { minItems: 1, maxItems: statsMetricsMax }),
  },
  { additionalProperties: false },
);

export type StatsBodyInput = typeof StatsBody.static;
export type Role = "primary" | "secondary" | "guardrail";

export interface StatsMetricSpec {
  key: string;
  kind: "proportion" | "mean";
  event: string;
  /** Mean metrics: the numeric property summed per unit; null counts events. */
  property: string | null;
  role: Role;
  higher_is_better: boolean;
  /** Guardrails only. */
  guardrail: { margin: number; margin_kind: MarginKind } | null;
}

/** The request with defaults filled in, instants as epoch ms and variants by position. */
export interface StatsInput {
  flagKey: string;
  exposureEvent: string;
  variants: string[];
  /** Index of the control variant in `variants`. */
  control: number;
  startAt: number;
  endAt: number | null;
  windowMs: number;
  method: "frequentist" | "bayesian";
  alpha: number;
  winsorPct: number | null;
  /** CUPED's pre-period in days; null when CUPED is off. */
  prePeriodDays: number | null;
  /** Expected share of each variant, in `variants` order; null: equal shares. */
  weights: number[] | null;
  metrics: StatsMetricSpec[];
}

const fieldError = (path: string, message: string) => badRequest(`body ${path}: ${message}`);

function instant(path: string, value: string): number {
  const parsed = parseRfc3339(value);
  if (parsed === null) throw fieldError(path, "must be an RFC 3339 date-time (2026-11-01T00:00:00Z)");
  return parsed;
}

function metricSpec(metric: StatsBodyInput["metrics"][number], index: number): StatsMetricSpec {
  const path = `/metrics/${index}`;
  const property = metric.property ?? null;
  if (metric.kind === "proportion" && property !== null) throw fieldError(`${path}/property`, "a proportion metric takes no property (it counts whether the unit did the event)");
  const isGuardrail = metric.role === "guardrail";
  if (isGuardrail && metric.margin === undefined) throw fieldError(`${path}/margin`, "a guardrail metric needs a margin (the harm tolerated, 0 or more)");
  if (!isGuardrail && metric.margin !== undefined) throw fieldError(`${path}/margin`, "only guardrail metrics take a margin");
  if (!isGuardrail && metric.margin_kind !== undefined) throw fieldError(`${path}/margin_kind`, "only guardrail metrics take a margin_kind");
  return {
    key: metric.key,
    kind: metric.kind,
    event: metric.event,
    property,
    role: metric.role,
    higher_is_better: metric.higher_is_better ?? true,
    guardrail: isGuardrail ? { margin: metric.margin!, margin_kind: metric.margin_kind ?? "relative" } : null,
  };
}

function splitWeights(split: Record<string, number>, variants: string[]): number[] {
  for (const key of Object.keys(split)) {
    if (!variants.includes(key)) throw fieldError(`/expected_split/${key}`, "is not one of the variants");
  }
  return variants.map((variant) => {
    const weight = split[variant];
    if (weight === undefined) throw fieldError("/expected_split", `has no share for variant ${variant}`);
    return weight;
  });
}

/** The checked request; throws 400 bad_request naming the field. */
export function statsInput(body: StatsBodyInput): StatsInput {
  const control = body.variants.indexOf(body.control_variant);
  if (control < 0) throw fieldError("/control_variant", `must be one of the variants (${body.variants.join(", ")})`);
  const startAt = instant("/start_at", body.start_at);
  const endAt = body.end_at == null ? null : instant("/end_at", body.end_at);
  if (endAt !== null && endAt <= startAt) throw fieldError("/end_at", "must be after start_at");
  const metrics = body.metrics.map(metricSpec);
  const seen = new Set<string>();
  metrics.forEach((metric, index) => {
    if (seen.has(metric.key)) throw fieldError(`/metrics/${index}/key`, `metric ${metric.key} is listed twice`);
    seen.add(metric.key);
  });
  return {
    flagKey: body.flag_key,
    exposureEvent: body.exposure_event ?? exposureEventDefault,
    variants: body.variants,
    control,
    startAt,
    endAt,
    windowMs: body.attribution_window_hours * hourMs,
    method: body.method ?? "frequentist",
    alpha: body.alpha ?? alphaDefault,
    winsorPct: body.winsor_pct ?? null,
    prePeriodDays: body.cuped?.enabled ? body.cuped.pre_period_days : null,
    weights: body.expected_split == null ? null : splitWeights(body.expected_split, body.variants),
    metrics,
  };
}
