// P(X_t > X_c) for independent X_c ~ Beta(a_c, b_c) and X_t ~ Beta(a_t, b_t), exactly, by the
// closed-form sum for Beta variables with one whole-number parameter:
//   P(X_t > X_c) = Σ_{i=0}^{a_t - 1} B(a_c + i, b_c + b_t) / ((b_t + i) B(1 + i, b_t) B(a_c, b_c)).
// Consecutive terms have the ratio (a_c + i)(b_t + i) / ((a_c + b_c + b_t + i)(1 + i)), so
// only the first needs log-beta functions. Posteriors from a Beta(1, 1) prior and counts have
// whole-number parameters throughout.
import { logBeta } from "./special-functions.ts";

export interface BetaParameters {
  alpha: number;
  beta: number;
}

/** Stop once what the remaining terms can add is below this fraction of the sum. */
const negligibleRemainderFraction = 1e-17;

/** The sum above, running over the treatment's first parameter. */
function sumOverTreatmentAlpha(control: BetaParameters, treatment: BetaParameters): number {
  const { alpha: ac, beta: bc } = control;
  const { alpha: at, beta: bt } = treatment;
  // Terms grow, peak, then shrink (the ratio drops below 1 once and stays there). They can
  // underflow individually, so they are summed relative to the largest so far.
  let logTerm = logBeta(ac, bc + bt) - logBeta(ac, bc);
  let logScale = logTerm;
  let scaledSum = 0;
  for (let i = 0; i < at; i++) {
    if (logTerm > logScale) {
      scaledSum *= Math.exp(logScale - logTerm);
      logScale = logTerm;
    }
    const scaledTerm = Math.exp(logTerm - logScale);
    scaledSum += scaledTerm;
    const ratio = ((ac + i) * (bt + i)) / ((ac + bc + bt + i) * (1 + i));
    // Past the peak no remaining term exceeds this one, so at most (at - 1 - i) of them are left.
    if (ratio < 1 && scaledTerm * (at - 1 - i) < negligibleRemainderFraction * scaledSum) break;
    logTerm += Math.log(ratio);
  }
  return Math.exp(logScale) * scaledSum;
}

/**
 * P(X_t > X_c). The sum has as many terms as the parameter it runs over, so it runs over the
 * smallest of the four, using P(X_t > X_c) = 1 - P(X_c > X_t) = P(1 - X_c > 1 - X_t)
 * (1 - X ~ Beta(b, a)): a 1 %-converting test of a million units sums about 10⁴ terms.
 */
export function probabilityBetaGreater(control: BetaParameters, treatment: BetaParameters): number {
  for (const value of [control.alpha, control.beta, treatment.alpha, treatment.beta]) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`Beta parameters must be whole numbers ≥ 1, got ${value}`);
  }
  const mirrored = (parameters: BetaParameters): BetaParameters => ({ alpha: parameters.beta, beta: parameters.alpha });
  const smallest = Math.min(control.alpha, control.beta, treatment.alpha, treatment.beta);
  let probability: number;
  if (smallest === treatment.alpha) probability = sumOverTreatmentAlpha(control, treatment);
  else if (smallest === control.alpha) probability = 1 - sumOverTreatmentAlpha(treatment, control);
  else if (smallest === control.beta) probability = sumOverTreatmentAlpha(mirrored(treatment), mirrored(control));
  else probability = 1 - sumOverTreatmentAlpha(mirrored(control), mirrored(treatment));
  return Math.min(1, Math.max(0, probability));
}
