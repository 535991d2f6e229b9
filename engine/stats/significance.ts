// Significance level and power, their defaults, and the Bonferroni split of alpha across
// treatment arms. The plan and the analysis both go through comparisonAlpha, so a three-arm
// experiment is sized and judged at the same per-comparison level.
import { requireAtLeast, requireCount, requireOpenUnitInterval } from "./errors.ts";

export const alphaDefault = 0.05;
export const powerDefault = 0.8;

/**
 * The level each treatment-vs-control comparison is tested at: alpha / comparisons, which
 * keeps the chance of any false positive among them at or below alpha.
 */
export function comparisonAlpha(alpha: number | undefined, comparisons = 1): number {
  const familyAlpha = alpha ?? alphaDefault;
  requireOpenUnitInterval("alpha", familyAlpha);
  requireCount("comparisons", comparisons);
  requireAtLeast("comparisons", comparisons, 1);
  return familyAlpha / comparisons;
}
