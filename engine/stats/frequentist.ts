// Treatment against control, frequentist: the two-proportion z-test (pooled standard error
// for the test statistic, as the null hypothesis says both arms share one rate; unpooled for
// the interval, which must hold whatever the rates) and Welch's t-test for means (no
// assumption of equal variances; Welch–Satterthwaite degrees of freedom).
import { requireMeanArm, requireProportionArm, type MeanArm, type ProportionArm } from "./arms.ts";
import { normalCdf, normalQuantile, studentTCdf, studentTQuantile } from "./distributions.ts";
import { intervalAround, relativeDifference, relativeInterval, type Interval } from "./intervals.ts";
import { comparisonAlpha } from "./significance.ts";

export interface ComparisonOptions {
  /** Family-wise level; 0.05 when absent. */
  alpha?: number;
  /** Treatment arms compared against control in the experiment (variants - 1): alpha is split among them. */
  comparisons?: number;
}

export interface FrequentistComparison {
  method: "frequentist";
  test: "two_proportion_z" | "welch_t";
  /** Per-comparison level the test used. */
  alpha: number;
  confidence_level: number;
  control_value: number;
  treatment_value: number;
  absolute_difference: number;
  relative_difference: number | null;
  confidence_interval: Interval;
  relative_confidence_interval: Interval | null;
  /** Standard error of the absolute difference, as used by the interval. */
  standard_error: number;
  /** z or t; null when both arms have zero variance but differ (the difference is exact). */
  test_statistic: number | null;
  degrees_of_freedom: number | null;
  p_value: number;
  significant: boolean;
}

/** Frequentist proportions need at least one unit per arm to have a rate at all. */
export const proportionArmUnitsMin = 1;

export function compareProportions(control: ProportionArm, treatment: ProportionArm, options: ComparisonOptions = {}): FrequentistComparison {
  requireProportionArm("control", control, proportionArmUnitsMin);
  requireProportionArm("treatment", treatment, proportionArmUnitsMin);
  const alpha = comparisonAlpha(options.alpha, options.comparisons);
  const controlRate = control.conversions / control.units;
  const treatmentRate = treatment.conversions / treatment.units;
  const difference = treatmentRate - controlRate;

  const pooledRate = (control.conversions + treatment.conversions) / (control.units + treatment.units);
  const pooledError = Math.sqrt(pooledRate * (1 - pooledRate) * (1 / control.units + 1 / treatment.units));
  // A pooled error of 0 means both arms converted all units or none: the difference is 0.
  const z = pooledError > 0 ? difference / pooledError : 0;

  const controlVariance = (controlRate * (1 - controlRate)) / control.units;
  const treatmentVariance = (treatmentRate * (1 - treatmentRate)) / treatment.units;
  const standardError = Math.sqrt(controlVariance + treatmentVariance);
  const critical = normalQuantile(1 - alpha / 2);
  const pValue = 2 * normalCdf(-Math.abs(z));
  return {
    method: "frequentist",
    test: "two_proportion_z",
    alpha,
    confidence_level: 1 - alpha,
    control_value: controlRate,
    treatment_value: treatmentRate,
    absolute_difference: difference,
    relative_difference: relativeDifference(controlRate, treatmentRate),
    confidence_interval: intervalAround(difference, critical * standardError),
    relative_confidence_interval: relativeInterval(controlRate, controlVariance, treatmentRate, treatmentVariance, critical),
    standard_error: standardError,
    test_statistic: z,
    degrees_of_freedom: null,
    p_value: pValue,
    significant: pValue < alpha,
  };
}

export function compareMeans(control: MeanArm, treatment: MeanArm, options: ComparisonOptions = {}): FrequentistComparison {
  requireMeanArm("control", control);
  requireMeanArm("treatment", treatment);
  const alpha = comparisonAlpha(options.alpha, options.comparisons);
  const difference = treatment.mean - control.mean;
  const controlVariance = control.variance / control.units;
  const treatmentVariance = treatment.variance / treatment.units;
  const standardError = Math.sqrt(controlVariance + treatmentVariance);

  let degreesOfFreedom: number;
  let statistic: number | null;
  let pValue: number;
  if (standardError > 0) {
    degreesOfFreedom =
      (controlVariance + treatmentVariance) ** 2 /
      (controlVariance ** 2 / (control.units - 1) + treatmentVariance ** 2 / (treatment.units - 1));
    statistic = difference / standardError;
    pValue = 2 * studentTCdf(-Math.abs(statistic), degreesOfFreedom);
  } else {
    // Every unit in each arm has the same value: any difference is certain, none is no evidence.
    // The Welch formula is 0/0 here and the interval has zero width whatever the degrees of
    // freedom; Student's n_c + n_t - 2 is reported.
    degreesOfFreedom = control.units + treatment.units - 2;
    statistic = difference === 0 ? 0 : null;
    pValue = difference === 0 ? 1 : 0;
  }
  const critical = studentTQuantile(1 - alpha / 2, degreesOfFreedom);
  return {
    method: "frequentist",
    test: "welch_t",
    alpha,
    confidence_level: 1 - alpha,
    control_value: control.mean,
    treatment_value: treatment.mean,
    absolute_difference: difference,
    relative_difference: relativeDifference(control.mean, treatment.mean),
    confidence_interval: intervalAround(difference, critical * standardError),
    relative_confidence_interval: relativeInterval(control.mean, controlVariance, treatment.mean, treatmentVariance, critical),
    standard_error: standardError,
    test_statistic: statistic,
    degrees_of_freedom: degreesOfFreedom,
    p_value: pValue,
    significant: pValue < alpha,
  };
}
