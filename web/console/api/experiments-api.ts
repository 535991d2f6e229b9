// Experiments and metrics through the console API (docs/experiments.md): the list, create from
// a multivariate flag, settings, launch / stop / ship / delete, the plan calculator
// (POST …/experiments/plan) and results (GET …/experiments/{id}/results, computed by the region).
// The statistics' shapes are engine/stats's own types (the region answers them as computed);
// type imports only, so nothing of the engine enters the bundle.
import type { BayesianComparison, FrequentistComparison, GuardrailCheck, PlanResult } from "../../../engine/stats/index.ts";
import { requestJson } from "./http.ts";

export type { BayesianComparison, FrequentistComparison, GuardrailCheck, Interval } from "../../../engine/stats/index.ts";

export type ExperimentStatus = "draft" | "running" | "stopped" | "shipped" | "archived";
export type ExperimentMethod = "frequentist" | "bayesian";
export type MetricKind = "proportion" | "mean";

export interface MetricRef {
  metric_id: string;
  key: string;
  kind: MetricKind;
  name: string;
  higher_is_better: boolean;
}

export interface ExperimentGuardrail {
  metric_id: string;
  margin: number;
  margin_kind: "relative" | "absolute";
  key: string;
  kind: MetricKind;
  name: string;
}

export interface ExperimentDto {
  id: string;
  project_id: string;
  flag_id: string;
  flag_key: string | null;
  key: string;
  name: string;
  environment: string;
  status: ExperimentStatus;
  method: ExperimentMethod;
  alpha: number;
  power: number;
  attribution_window_hours: number;
  control_variant: string;
  exposure_event: string;
  guardrails: ExperimentGuardrail[];
  secondary_metrics: MetricRef[];
  variants: { key: string; rollout_percentage: number }[];
  created_at: string;
  updated_at: string;
  created_by: string | null;
  cuped: { enabled: boolean; pre_period_days: number } | null;
  decision: Record<string, unknown> | null;
  end_at: string | null;
  hypothesis: string | null;
  mde: number | null;
  primary_metric: MetricRef | null;
  shipped_variant: string | null;
  start_at: string | null;
  winsor_pct: number | null;
}

export interface ExperimentCreateInput {
  flag_id: string;
  key: string;
  name: string;
  environment?: string;
  hypothesis?: string | null;
  primary_metric_id?: string | null;
}

export interface ExperimentUpdateInput {
  name?: string;
  hypothesis?: string | null;
  method?: ExperimentMethod;
  alpha?: number;
  power?: number;
  mde?: number | null;
  attribution_window_hours?: number;
  control_variant?: string;
  primary_metric_id?: string | null;
  secondary_metric_ids?: string[];
  guardrails?: { metric_id: string; margin: number; margin_kind: "relative" | "absolute" }[];
}

export interface TransitionInput {
  override_block?: boolean | null;
  reason?: string | null;
  variant?: string | null;
}

export interface MetricDto {
  id: string;
  key: string;
  kind: MetricKind;
  name: string;
  direction: "increase" | "decrease";
  query: { kind: MetricKind; event: string; property?: string | null };
  archived_at: string | null;
  description: string | null;
}

export interface MetricCreateInput {
  key: string;
  name: string;
  query: { kind: "proportion"; event: string } | { kind: "mean"; event: string; property?: string | null };
  direction: "increase" | "decrease";
}

export interface PlanRequest {
  metric: { kind: "proportion"; baseline_rate: number } | { kind: "mean"; baseline_mean: number; standard_deviation: number };
  mde: number;
  mde_kind: "relative" | "absolute";
  alpha?: number;
  power?: number;
  variants?: number;
  daily_units?: number | null;
}

/** The plan's answer (docs/experiment-statistics.md), as engine/stats computes it. */
export type PlanAnswer = PlanResult;

export type Comparison = FrequentistComparison | BayesianComparison;

export interface VariantSummary {
  units: number;
  conversions?: number;
  value: number | null;
  variance?: number | null;
}

export interface MetricResult {
  kind: MetricKind;
  role: "primary" | "secondary" | "guardrail";
  event: string;
  property: string | null;
  higher_is_better: boolean;
  variants: Record<string, VariantSummary>;
  comparisons: Record<string, Comparison | null>;
  reasons: Record<string, { code: string; message: string }>;
  guardrail?: Record<string, GuardrailCheck | null>;
}

export interface ExperimentStats {
  stats_version: number;
  computed_at: string;
  data_through: string;
  method: ExperimentMethod;
  alpha: number;
  exposures: { units_per_variant: Record<string, number>; multiple_exposures: number; total: number };
  srm: { variants: string[]; observed: number[]; expected: number[]; p_value: number; srm_detected: boolean; p_value_threshold: number } | null;
  metrics: Record<string, MetricResult>;
  blocked: boolean;
}

export interface ExperimentResults {
  experiment_id: string;
  analysis: { method: ExperimentMethod; alpha: number; control_variant: string; variants: { key: string; rollout_percentage: number }[] };
  stats: ExperimentStats;
  stats_version: number;
  metrics: Record<string, MetricRef>;
  computed_at: string;
  data_through: string;
}

const id = encodeURIComponent;
const base = (projectId: string) => `/app/projects/${id(projectId)}`;
const experimentPath = (projectId: string, experimentId: string) => `${base(projectId)}/experiments/${id(experimentId)}`;

export const listExperiments = (projectId: string) => requestJson<{ experiments: ExperimentDto[] }>("GET", `${base(projectId)}/experiments`);
export const getExperiment = (projectId: string, experimentId: string) => requestJson<ExperimentDto>("GET", experimentPath(projectId, experimentId));
export const createExperiment = (projectId: string, input: ExperimentCreateInput) => requestJson<ExperimentDto>("POST", `${base(projectId)}/experiments`, input);
export const updateExperiment = (projectId: string, experimentId: string, input: ExperimentUpdateInput) =>
  requestJson<ExperimentDto>("PATCH", experimentPath(projectId, experimentId), input);
export const deleteExperiment = (projectId: string, experimentId: string) => requestJson<ExperimentDto>("DELETE", experimentPath(projectId, experimentId));
export const transitionExperiment = (projectId: string, experimentId: string, action: "launch" | "stop" | "ship", input: TransitionInput = {}) =>
  requestJson<ExperimentDto>("POST", `${experimentPath(projectId, experimentId)}/${action}`, input);
export const experimentResults = (projectId: string, experimentId: string, refresh: boolean) =>
  requestJson<ExperimentResults>("GET", `${experimentPath(projectId, experimentId)}/results${refresh ? "?refresh=true" : ""}`);
export const planExperiment = (projectId: string, input: PlanRequest) => requestJson<PlanAnswer>("POST", `${base(projectId)}/experiments/plan`, input);

export const listMetrics = (projectId: string) => requestJson<{ metrics: MetricDto[] }>("GET", `${base(projectId)}/metrics`);
export const createMetric = (projectId: string, input: MetricCreateInput) => requestJson<MetricDto>("POST", `${base(projectId)}/metrics`, input);
