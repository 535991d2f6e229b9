// Treatment against control, Bayesian. Proportions: Beta(1, 1) priors, so each rate's
// posterior is Beta(1 + conversions, 1 + units - conversions); the probability to beat control
// is exact, the credible interval and expected loss use a normal approximation of the
// difference of the two posteriors (matching mean and variance). Means: flat priors and the
// normal approximation, each mean's posterior N(sample mean, variance / units).
import { requireMeanArm, requireProportionArm, type MeanArm, type ProportionArm } from "./arms.ts";
import { probabilityBetaGreater, type BetaParameters } from "./beta-comparison.ts";
import { normalCdf, normalDensity, normalQuantile } from "./distributions.ts";
import { intervalAround, relativeDifference, relativeInterval, type Interval } from "./intervals.ts";
import { comparisonAlpha } from "./significance.ts";

export interface BayesianOptions {
  /** The credible interval covers 1 - alpha; 0.05 when absent. */
  alpha?: number;
  /** Direction of "beats" and of the losses; true when absent. */
  higher_is_better?: boolean;
}

export interface BayesianComparison {
  method: "bayesian";
  model: "beta_binomial" | "normal";
  credible_level: number;
  /** Posterior means. */
  control_value: number;
  treatment_value: number;
  absolute_difference: number;
  relative_difference: number | null;
  credible_interval: Interval;
  relative_credible_interval: Interval | null;
  /** P(treatment better than control), in the direction higher_is_better names. */
  probability_to_beat_control: number;
  /** Expected shortfall, in the metric's unit, if the treatment is shipped and control was better. */
  expected_loss_treatment: number;
  /** Expected shortfall if control is kept and the treatment was better. */
  expected_loss_control: number;
}

/** The Bayesian model has an answer with no data (the prior), so arms may be empty. */
export const bayesianProportionArmUnitsMin = 0;

interface Posterior {
  mean: number;
  variance: number;
}

/** E[max(-D, 0)] for D ~ N(mean, sd²): the expected shortfall of an option whose advantage over the other is D. */
function normalShortfall(mean: number, standardDeviation: number): number {
  if (standardDeviation === 0) return Math.max(-mean, 0);
  const standardized = mean / standardDeviation;
  return standardDeviation * normalDensity(standardized) - mean * normalCdf(-standardized);
}

function summarize(
  model: BayesianComparison["model"],
  control: Posterior,
  treatment: Posterior,
  probabilityTreatmentHigher: number,
  alpha: number,
  options: BayesianOptions,
): BayesianComparison {
  const higherIsBetter = options.higher_is_better ?? true;
  const difference = treatment.mean - control.mean;
  const differenceSd = Math.sqrt(control.variance + treatment.variance);
  const critical = normalQuantile(1 - alpha / 2);
  // Loss of shipping the treatment is the shortfall of the improvement (T - C, or C - T when lower is better).
  const improvement = higherIsBetter ? difference : -difference;
  return {
    method: "bayesian",
    model,
    credible_level: 1 - alpha,
    control_value: control.mean,
    treatment_value: treatment.mean,
    absolute_difference: difference,
    relative_difference: relativeDifference(control.mean, treatment.mean),
    credible_interval: intervalAround(difference, critical * differenceSd),
    relative_credible_interval: relativeInterval(control.mean, control.variance, treatment.mean, treatment.variance, critical),
    probability_to_beat_control: higherIsBetter ? probabilityTreatmentHigher : 1 - probabilityTreatmentHigher,
    expected_loss_treatment: normalShortfall(improvement, differenceSd),
    expected_loss_control: normalShortfall(-improvement, differenceSd),
  };
}

function betaPosterior(arm: ProportionArm): BetaParameters {
  return { alpha: 1 + arm.conversions, beta: 1 + arm.units - arm.conversions };
}

function betaMoments(parameters: BetaParameters): Posterior {
  const total = parameters.alpha + parameters.beta;
  return { mean: parameters.alpha / total, variance: (parameters.alpha * parameters.beta) / (total * total * (total + 1)) };
}

export function bayesProportions(control: ProportionArm, treatment: ProportionArm, options: BayesianOptions = {}): BayesianComparison {
  requireProportionArm("control", control, bayesianProportionArmUnitsMin);
  requireProportionArm("treatment", treatment, bayesianProportionArmUnitsMin);
  const alpha = comparisonAlpha(options.alpha);
  const controlBeta = betaPosterior(control);
  const treatmentBeta = betaPosterior(treatment);
  const probability = probabilityBetaGreater(controlBeta, treatmentBeta);
  return summarize("beta_binomial", betaMoments(controlBeta), betaMoments(treatmentBeta), probability, alpha, options);
}

export function bayesMeans(control: MeanArm, treatment: MeanArm, options: BayesianOptions = {}): BayesianComparison {
  requireMeanArm("control", control);
  requireMeanArm("treatment", treatment);
  const alpha = comparisonAlpha(options.alpha);
  const controlPosterior = { mean: control.mean, variance: control.variance / control.units };
  const treatmentPosterior = { mean: treatment.mean, variance: treatment.variance / treatment.units };
  const differenceSd = Math.sqrt(controlPosterior.variance + treatmentPosterior.variance);
  const difference = treatment.mean - control.mean;
  // With no spread at all the comparison is certain either way, or a tie at 0.5.
  const probabilityTreatmentHigher = differenceSd > 0 ? normalCdf(difference / differenceSd) : difference > 0 ? 1 : difference < 0 ? 0 : 0.5;
  return summarize("normal", controlPosterior, treatmentPosterior, probabilityTreatmentHigher, alpha, options);
}
