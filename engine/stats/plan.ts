// Sample size for a two-sided test of treatment against control, per arm:
//   n = (z_{1-α'/2} + z_{power})² · (σ_c² + σ_t²) / δ²
// with α' the per-comparison alpha (Bonferroni across the treatment arms), δ the absolute
// effect to detect and σ² the per-unit variance in each arm: p(1 - p) for a proportion
// (evaluated at the control rate and at the rate it is raised to), the given standard
// deviation squared, in both arms, for a mean. Effects are planned as increases.
import { requireAtLeast, requireCount, requireFinite, requireOpenUnitInterval, requirePositive, StatsInputError } from "./errors.ts";
import { normalQuantile } from "./distributions.ts";
import { comparisonAlpha, powerDefault } from "./significance.ts";

export type MdeKind = "relative" | "absolute";

export type PlanMetric =
  | { kind: "proportion"; baseline_rate: number }
  | { kind: "mean"; baseline_mean: number; standard_deviation: number };

export interface PlanInput {
  metric: PlanMetric;
  /** Smallest effect worth detecting: a fraction of the baseline (0.05 = +5 %) or, absolute, in the metric's unit. */
  mde: number;
  mde_kind?: MdeKind;
  alpha?: number;
  power?: number;
  /** Arms including control. */
  variants?: number;
  /** Units entering the experiment per day, across all arms. */
  daily_units?: number | null;
  /** Units per arm already available: asks what effect that many can detect. */
  control_units?: number | null;
}

export interface ExperimentPlan {
  metric_kind: PlanMetric["kind"];
  alpha: number;
  /** Level of each treatment-vs-control test: alpha / (variants - 1). */
  comparison_alpha: number;
  power: number;
  variants: number;
  mde: number;
  mde_kind: MdeKind;
  baseline: number;
  /** Baseline plus the absolute effect: the treatment rate or mean the plan is sized for. */
  treatment_value: number;
  absolute_effect: number;
  relative_effect: number | null;
  units_per_variant: number;
  total_units: number;
  daily_units: number | null;
  days: number | null;
}

export interface DetectableEffect {
  control_units: number;
  /** In the request's mde_kind; null when no effect the metric allows is detectable. */
  mde: number | null;
  absolute_effect: number | null;
  relative_effect: number | null;
}

export interface PlanResult {
  plan: ExperimentPlan;
  mde_at_control_units: DetectableEffect | null;
}

export const variantsDefault = 2;
/** Control and one treatment. */
const variantsMin = 2;

function requireMetric(metric: PlanMetric): void {
  if (metric.kind === "proportion") {
    requireOpenUnitInterval("metric.baseline_rate", metric.baseline_rate);
  } else if (metric.kind === "mean") {
    requireFinite("metric.baseline_mean", metric.baseline_mean);
    requirePositive("metric.standard_deviation", metric.standard_deviation);
  } else {
    throw new StatsInputError(`metric.kind must be proportion or mean, got ${(metric as { kind: unknown }).kind}`);
  }
}

const baselineOf = (metric: PlanMetric): number => (metric.kind === "proportion" ? metric.baseline_rate : metric.baseline_mean);

function absoluteEffect(metric: PlanMetric, mde: number, mdeKind: MdeKind): number {
  if (mdeKind === "absolute") return mde;
  const baseline = baselineOf(metric);
  if (baseline === 0) throw new StatsInputError("a relative mde needs a non-zero baseline; use mde_kind absolute");
  return mde * Math.abs(baseline);
}

const relativeEffect = (metric: PlanMetric, absolute: number): number | null => {
  const baseline = baselineOf(metric);
  return baseline === 0 ? null : absolute / Math.abs(baseline);
};

/** σ_c² + σ_t² for an effect δ. */
function varianceSum(metric: PlanMetric, effect: number): number {
  if (metric.kind === "mean") return 2 * metric.standard_deviation ** 2;
  const control = metric.baseline_rate;
  const treatment = control + effect;
  return control * (1 - control) + treatment * (1 - treatment);
}

/**
 * The δ a test with `units` per arm detects. For a mean, δ = z √(2σ² / n). For a proportion σ_t
 * depends on δ: n δ² / z² = p(1-p) + (p+δ)(1-p-δ) is the quadratic
 * (n/z² + 1) δ² - (1 - 2p) δ - 2p(1 - p) = 0, whose positive root is taken.
 */
function detectableAbsoluteEffect(metric: PlanMetric, units: number, zSum: number): number | null {
  if (metric.kind === "mean") return zSum * Math.sqrt(varianceSum(metric, 0) / units);
  const p = metric.baseline_rate;
  const squareCoefficient = units / (zSum * zSum) + 1;
  const linearCoefficient = 1 - 2 * p;
  const effect =
    (linearCoefficient + Math.sqrt(linearCoefficient ** 2 + 8 * p * (1 - p) * squareCoefficient)) / (2 * squareCoefficient);
  return p + effect < 1 ? effect : null;
}

export function planExperiment(input: PlanInput): PlanResult {
  const { metric } = input;
  requireMetric(metric);
  const mdeKind = input.mde_kind ?? "relative";
  if (mdeKind !== "relative" && mdeKind !== "absolute") throw new StatsInputError(`mde_kind must be relative or absolute, got ${mdeKind}`);
  requirePositive("mde", input.mde);
  const power = input.power ?? powerDefault;
  requireOpenUnitInterval("power", power);
  const variants = input.variants ?? variantsDefault;
  requireCount("variants", variants);
  requireAtLeast("variants", variants, variantsMin);
  const alpha = comparisonAlpha(input.alpha, 1);
  const perComparisonAlpha = comparisonAlpha(alpha, variants - 1);
  const dailyUnits = input.daily_units ?? null;
  if (dailyUnits !== null) requirePositive("daily_units", dailyUnits);
  const controlUnits = input.control_units ?? null;
  if (controlUnits !== null) requirePositive("control_units", controlUnits);

  const effect = absoluteEffect(metric, input.mde, mdeKind);
  const baseline = baselineOf(metric);
  if (metric.kind === "proportion" && baseline + effect >= 1) {
    throw new StatsInputError(`the treatment rate baseline_rate + effect = ${baseline + effect} must stay below 1; lower the mde`);
  }
  const zSum = normalQuantile(1 - perComparisonAlpha / 2) + normalQuantile(power);
  const unitsPerVariant = Math.ceil((zSum * zSum * varianceSum(metric, effect)) / (effect * effect));
  const totalUnits = unitsPerVariant * variants;

  const plan: ExperimentPlan = {
    metric_kind: metric.kind,
    alpha,
    comparison_alpha: perComparisonAlpha,
    power,
    variants,
    mde: input.mde,
    mde_kind: mdeKind,
    baseline,
    treatment_value: baseline + effect,
    absolute_effect: effect,
    relative_effect: relativeEffect(metric, effect),
    units_per_variant: unitsPerVariant,
    total_units: totalUnits,
    daily_units: dailyUnits,
    days: dailyUnits === null ? null : Math.ceil(totalUnits / dailyUnits),
  };
  if (controlUnits === null) return { plan, mde_at_control_units: null };
  const detectable = detectableAbsoluteEffect(metric, controlUnits, zSum);
  const detectableRelative = detectable === null ? null : relativeEffect(metric, detectable);
  return {
    plan,
    mde_at_control_units: {
      control_units: controlUnits,
      mde: mdeKind === "absolute" ? detectable : detectableRelative,
      absolute_effect: detectable,
      relative_effect: detectableRelative,
    },
  };
}
