// One metric's statistics from its per-unit values (docs/experiment-results.md): per-variant
// summaries, then each treatment against control with the experiment's method, and guardrail
// verdicts. Every formula is engine/stats'; this file only arranges the arms. A comparison the
// data cannot support (too few units, values the statistics refuse) is null with a reason
// instead of failing the request: the data, not the request, is at fault.
import {
  bayesianProportionArmUnitsMin, bayesMeans, bayesProportions, checkGuardrail, compareMeans, compareProportions, cupedFromUnits,
  meanArmFromValues, meanArmUnitsMin, proportionArmUnitsMin, StatsInputError, winsorizeArms,
  type BayesianComparison, type FrequentistComparison, type GuardrailCheck, type MeanArm, type ProportionArm,
} from "../../../engine/stats/index.ts";
import type { StatsMetricSpec } from "./stats-request.ts";

export interface AnalysisSettings {
  variants: string[];
  control: number;
  method: "frequentist" | "bayesian";
  alpha: number;
  winsorPct: number | null;
  prePeriodDays: number | null;
}

export type Comparison = FrequentistComparison | BayesianComparison;

export interface NotCompared {
  code: "not_enough_units" | "invalid_data";
  message: string;
}

export interface ProportionVariant {
  units: number;
  conversions: number;
  /** Conversion rate; null without units. */
  value: number | null;
}

export interface MeanVariant {
  units: number;
  /** Mean per unit (after winsorisation); null without units. */
  value: number | null;
  /** Sample variance; null below 2 units. */
  variance: number | null;
  /** CUPED-adjusted mean and variance; null when CUPED did not run on this variant. */
  adjusted_value: number | null;
  adjusted_variance: number | null;
}

export interface MetricStats {
  kind: StatsMetricSpec["kind"];
  role: StatsMetricSpec["role"];
  event: string;
  property: string | null;
  higher_is_better: boolean;
  variants: Record<string, ProportionVariant | MeanVariant>;
  winsor: { winsor_pct: number; cap: number | null; capped_units: number } | null;
  cuped: { pre_period_days: number; theta: number; covariate_mean: number; variance_reduction: number } | null;
  comparisons: Record<string, Comparison | null>;
  /** Why each null comparison is null. */
  reasons: Record<string, NotCompared>;
  /** Guardrail metrics only: the verdict per treatment (null where there is no comparison). */
  guardrail?: Record<string, GuardrailCheck | null>;
}

/** What a metric kind hands the comparison step: arms (null where a variant has too few units) and how to compare two. */
interface Arms<Arm> {
  arms: (Arm | null)[];
  unitsMin: number;
  compare: (control: Arm, treatment: Arm) => Comparison;
}

const plural = (count: number) => `${count} unit${count === 1 ? "" : "s"}`;

function compareArms<Arm>(metric: StatsMetricSpec, settings: AnalysisSettings, units: number[], { arms, unitsMin, compare }: Arms<Arm>) {
  const comparisons: Record<string, Comparison | null> = {};
  const reasons: Record<string, NotCompared> = {};
  const controlName = settings.variants[settings.control]!;
  settings.variants.forEach((name, variant) => {
    if (variant === settings.control) return;
    const control = arms[settings.control];
    const treatment = arms[variant];
    comparisons[name] = null;
    if (!control || !treatment) {
      const message = `${name} has ${plural(units[variant]!)} and ${controlName} ${plural(units[settings.control]!)}; a ${metric.kind} comparison needs at least ${plural(unitsMin)} per variant`;
      reasons[name] = { code: "not_enough_units", message };
      return;
    }
    try {
      comparisons[name] = compare(control, treatment);
    } catch (error) {
      if (!(error instanceof StatsInputError)) throw error;
      reasons[name] = { code: "invalid_data", message: error.message };
    }
  });
  return { comparisons, reasons };
}

function proportionStats(metric: StatsMetricSpec, values: Float64Array[], settings: AnalysisSettings) {
  const arms = values.map((unitValues): ProportionArm => ({ units: unitValues.length, conversions: unitValues.filter((value) => value > 0).length }));
  const unitsMin = settings.method === "frequentist" ? proportionArmUnitsMin : bayesianProportionArmUnitsMin;
  const compared = compareArms(metric, settings, arms.map((arm) => arm.units), {
    arms: arms.map((arm) => (arm.units >= unitsMin ? arm : null)),
    unitsMin,
    compare: (control, treatment) =>
      settings.method === "frequentist"
        ? compareProportions(control, treatment, { alpha: settings.alpha, comparisons: settings.variants.length - 1 })
        : bayesProportions(control, treatment, { alpha: settings.alpha, higher_is_better: metric.higher_is_better }),
  });
  const variants = arms.map((arm): ProportionVariant => ({ ...arm, value: arm.units > 0 ? arm.conversions / arm.units : null }));
  return { variants, winsor: null, cuped: null, ...compared };
}

/** CUPED over the variants with enough units (control among them), or null when it cannot run. */
function cupedArms(values: Float64Array[], covariates: Float64Array[], settings: AnalysisSettings) {
  const eligible = values.flatMap((unitValues, variant) => (unitValues.length >= meanArmUnitsMin ? [variant] : []));
  if (!eligible.includes(settings.control) || eligible.length < 2) return null;
  const result = cupedFromUnits(eligible.map((variant) => ({ metric: values[variant]!, covariate: covariates[variant]! })));
  const arms = values.map((): MeanArm | null => null);
  eligible.forEach((variant, at) => (arms[variant] = result.arms[at]!));
  return {
    arms,
    summary: { pre_period_days: settings.prePeriodDays!, theta: result.theta, covariate_mean: result.covariate_mean, variance_reduction: result.variance_reduction },
  };
}

function meanStats(metric: StatsMetricSpec, raw: Float64Array[], covariates: Float64Array[] | null, settings: AnalysisSettings) {
  let values = raw;
  let winsor: MetricStats["winsor"] = null;
  if (settings.winsorPct !== null) {
    const capped = winsorizeArms(raw, settings.winsorPct);
    values = capped.arms;
    winsor = { winsor_pct: settings.winsorPct, cap: capped.cap, capped_units: capped.capped_units };
  }
  const plain = values.map((unitValues) => (unitValues.length >= meanArmUnitsMin ? meanArmFromValues(unitValues) : null));
  const cuped = covariates ? cupedArms(values, covariates, settings) : null;
  const compared = compareArms(metric, settings, values.map((unitValues) => unitValues.length), {
    arms: cuped?.arms ?? plain,
    unitsMin: meanArmUnitsMin,
    compare: (control, treatment) =>
      settings.method === "frequentist"
        ? compareMeans(control, treatment, { alpha: settings.alpha, comparisons: settings.variants.length - 1 })
        : bayesMeans(control, treatment, { alpha: settings.alpha, higher_is_better: metric.higher_is_better }),
  });
  const variants = values.map((unitValues, variant): MeanVariant => {
    const arm = plain[variant];
    const adjusted = cuped?.arms[variant] ?? null;
    return {
      units: unitValues.length,
      // One unit has a mean (its value) but no variance, so no arm.
      value: arm ? arm.mean : unitValues.length === 1 ? unitValues[0]! : null,
      variance: arm ? arm.variance : null,
      adjusted_value: adjusted ? adjusted.mean : null,
      adjusted_variance: adjusted ? adjusted.variance : null,
    };
  });
  return { variants, winsor, cuped: cuped?.summary ?? null, ...compared };
}

/**
 * `values[v]` (and `covariates[v]` under CUPED) are the per-unit values of variant v's units.
 * CUPED applies to mean metrics only: a proportion's comparisons are binomial (z-test on
 * counts, Beta posteriors), which an adjusted 0/1 value no longer is.
 */
export function analyseMetric(metric: StatsMetricSpec, values: Float64Array[], covariates: Float64Array[] | null, settings: AnalysisSettings): MetricStats {
  const found = metric.kind === "proportion" ? proportionStats(metric, values, settings) : meanStats(metric, values, covariates, settings);
  const stats: MetricStats = {
    kind: metric.kind,
    role: metric.role,
    event: metric.event,
    property: metric.property,
    higher_is_better: metric.higher_is_better,
    variants: Object.fromEntries(settings.variants.map((name, variant) => [name, found.variants[variant]!])),
    winsor: found.winsor,
    cuped: found.cuped,
    comparisons: found.comparisons,
    reasons: found.reasons,
  };
  const rule = metric.guardrail;
  if (rule) {
    stats.guardrail = Object.fromEntries(
      Object.entries(found.comparisons).map(([name, comparison]) => [name, comparison ? checkGuardrail({ ...rule, higher_is_better: metric.higher_is_better }, comparison) : null]),
    );
  }
  return stats;
}
