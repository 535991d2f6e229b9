// Request schemas of experiments (spec 1: ExperimentCreateRequest, ExperimentUpdateRequest,
// ExperimentTransitionRequest, ExperimentPlanRequest, ExperimentCuped, ExperimentGuardrail).
import { t } from "elysia";
import { Name } from "../schemas.ts";

export const experimentKeyLengthMax = 200;
export const experimentMetricsMax = 20;
export const experimentGuardrailsMax = 20;
const hypothesisLengthMax = 5000;
const eventNameLengthMax = 200;
const reasonLengthMax = 2000;
/** Attribution windows from an hour to 90 days. */
export const attributionWindowHoursMax = 90 * 24;
const prePeriodDaysMax = 90;

const Probability = t.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 });
const MetricId = t.String({ format: "uuid" });
const Method = t.Union([t.Literal("frequentist"), t.Literal("bayesian")]);

export const ExperimentCuped = t.Object(
  { enabled: t.Boolean(), pre_period_days: t.Integer({ minimum: 0, maximum: prePeriodDaysMax }) },
  { additionalProperties: false },
);

export const ExperimentGuardrail = t.Object(
  {
    metric_id: MetricId,
    margin: t.Number({ minimum: 0 }),
    margin_kind: t.Optional(t.Union([t.Literal("relative"), t.Literal("absolute")])),
  },
  { additionalProperties: false },
);

const settings = {
  alpha: t.Optional(Probability),
  attribution_window_hours: t.Optional(t.Integer({ minimum: 1, maximum: attributionWindowHoursMax })),
  control_variant: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  cuped: t.Optional(t.Union([ExperimentCuped, t.Null()])),
  guardrails: t.Optional(t.Array(ExperimentGuardrail, { maxItems: experimentGuardrailsMax })),
  hypothesis: t.Optional(t.Union([t.String({ maxLength: hypothesisLengthMax }), t.Null()])),
  mde: t.Optional(t.Union([t.Number({ exclusiveMinimum: 0 }), t.Null()])),
  method: t.Optional(Method),
  power: t.Optional(Probability),
  primary_metric_id: t.Optional(t.Union([MetricId, t.Null()])),
  secondary_metric_ids: t.Optional(t.Array(MetricId, { maxItems: experimentMetricsMax })),
  winsor_pct: t.Optional(t.Union([t.Number({ exclusiveMinimum: 0, maximum: 1 }), t.Null()])),
};

export const ExperimentCreateRequest = t.Object(
  {
    flag_id: t.String({ format: "uuid" }),
    key: t.String({ minLength: 1, maxLength: experimentKeyLengthMax, pattern: "^[A-Za-z0-9_.-]+$" }),
    name: Name,
    environment: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    exposure_event: t.Optional(t.String({ minLength: 1, maxLength: eventNameLengthMax })),
    ...settings,
  },
  { title: "ExperimentCreateRequest", additionalProperties: false },
);

export const ExperimentUpdateRequest = t.Object({ name: t.Optional(Name), ...settings }, { title: "ExperimentUpdateRequest", additionalProperties: false });

export const ExperimentTransitionRequest = t.Object(
  {
    override_block: t.Optional(t.Union([t.Boolean(), t.Null()])),
    reason: t.Optional(t.Union([t.String({ maxLength: reasonLengthMax }), t.Null()])),
    variant: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 200 }), t.Null()])),
  },
  { title: "ExperimentTransitionRequest", additionalProperties: false },
);

export const ExperimentPlanRequest = t.Object(
  {
    mde: t.Number({ exclusiveMinimum: 0 }),
    metric: t.Union([
      t.Object({ kind: t.Literal("proportion"), baseline_rate: t.Number() }, { additionalProperties: false }),
      t.Object({ kind: t.Literal("mean"), baseline_mean: t.Number(), standard_deviation: t.Number() }, { additionalProperties: false }),
    ]),
    alpha: t.Optional(Probability),
    control_units: t.Optional(t.Union([t.Number({ exclusiveMinimum: 0 }), t.Null()])),
    daily_units: t.Optional(t.Union([t.Number({ exclusiveMinimum: 0 }), t.Null()])),
    mde_kind: t.Optional(t.Union([t.Literal("relative"), t.Literal("absolute")])),
    method: t.Optional(Method),
    power: t.Optional(Probability),
    variants: t.Optional(t.Integer({ minimum: 0, maximum: 20 })),
  },
  { title: "ExperimentPlanRequest", additionalProperties: false },
);

export type ExperimentCreateInput = typeof ExperimentCreateRequest.static;
export type ExperimentUpdateInput = typeof ExperimentUpdateRequest.static;
export type ExperimentTransitionInput = typeof ExperimentTransitionRequest.static;
export type ExperimentPlanInput = typeof ExperimentPlanRequest.static;
