// Sample-ratio mismatch: do the units that reached each arm fit the split the flag was
// configured with? Pearson's chi-square goodness-of-fit test with k - 1 degrees of freedom.
// A mismatch means assignment or exposure logging is broken, so every other result of the
// experiment is suspect; the threshold is strict because the check runs on every refresh.
import { chiSquareSurvival } from "./distributions.ts";
import { requireCount, requirePositive, StatsInputError } from "./errors.ts";

/** p-values below this flag a mismatch. */
export const srmPValueThreshold = 0.001;

export interface SampleRatioCheck {
  observed: number[];
  expected: number[];
  chi_square: number;
  degrees_of_freedom: number;
  p_value: number;
  srm_detected: boolean;
  p_value_threshold: number;
}

/**
 * `weights` are the arms' configured shares in any scale (rollout percentages, fractions);
 * equal shares when absent. No units at all is no evidence of a mismatch (p-value 1).
 */
export function sampleRatioMismatch(observed: readonly number[], weights?: readonly number[]): SampleRatioCheck {
  if (observed.length < 2) throw new StatsInputError(`a sample-ratio check needs at least 2 arms, got ${observed.length}`);
  observed.forEach((units, index) => requireCount(`observed[${index}]`, units));
  const shares = weights ?? observed.map(() => 1);
  if (shares.length !== observed.length) {
    throw new StatsInputError(`${shares.length} weights for ${observed.length} arms`);
  }
  shares.forEach((weight, index) => requirePositive(`weights[${index}]`, weight));

  const totalUnits = observed.reduce((sum, units) => sum + units, 0);
  const totalWeight = shares.reduce((sum, weight) => sum + weight, 0);
  const expected = shares.map((weight) => (totalUnits * weight) / totalWeight);
  const chiSquare = totalUnits === 0 ? 0 : observed.reduce((sum, units, index) => sum + (units - expected[index]!) ** 2 / expected[index]!, 0);
  const degreesOfFreedom = observed.length - 1;
  const pValue = chiSquareSurvival(chiSquare, degreesOfFreedom);
  return {
    observed: [...observed],
    expected,
    chi_square: chiSquare,
    degrees_of_freedom: degreesOfFreedom,
    p_value: pValue,
    srm_detected: pValue < srmPValueThreshold,
    p_value_threshold: srmPValueThreshold,
  };
}
