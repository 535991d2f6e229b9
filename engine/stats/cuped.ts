// CUPED: remove from each unit's metric Y the part its pre-period covariate X predicts,
//   Y' = Y - θ (X - mean X),   θ = cov(X, Y) / var(X),
// with θ and mean X from all arms pooled, so every arm is adjusted by the same line and the
// difference between arms stays unbiased. The adjusted arms feed compareMeans / bayesMeans.
// Units without pre-period data carry X = 0 (the region fills it in).
import { meanArmUnitsMin, type MeanArm } from "./arms.ts";
import { requireAtLeast, requireCount, requireFinite, StatsInputError } from "./errors.ts";

/** Per-arm sums a region computes: Y is the metric, X the covariate. */
export interface CupedSums {
  units: number;
  sum_y: number;
  sum_y_squares: number;
  sum_x: number;
  sum_x_squares: number;
  sum_xy: number;
}

export interface CupedUnits {
  metric: ArrayLike<number>;
  covariate: ArrayLike<number>;
}

export interface CupedResult {
  theta: number;
  covariate_mean: number;
  /** 1 - var(Y') / var(Y) over the pooled units: the squared correlation of X and Y. */
  variance_reduction: number;
  /** Adjusted arms, in input order: mean of Y' and its sample variance. */
  arms: MeanArm[];
}

/**
 * A covariate whose variance is below this fraction of its mean square (standard deviation
 * under 1e-5 of its size) is taken as constant: from raw sums, that little variance is what
 * rounding in Σx² - (Σx)²/n leaves behind, and θ would be noise divided by noise.
 */
const covariateVarianceRelativeMin = 1e-10;

interface Moments {
  units: number;
  meanY: number;
  meanX: number;
  varianceY: number;
  varianceX: number;
  covariance: number;
}

function moments(sums: CupedSums): Moments {
  const { units } = sums;
  const meanY = sums.sum_y / units;
  const meanX = sums.sum_x / units;
  // Rounding can take a zero variance slightly below zero.
  return {
    units,
    meanY,
    meanX,
    varianceY: Math.max(0, (sums.sum_y_squares - sums.sum_y * meanY) / (units - 1)),
    varianceX: Math.max(0, (sums.sum_x_squares - sums.sum_x * meanX) / (units - 1)),
    covariance: (sums.sum_xy - sums.sum_x * meanY) / (units - 1),
  };
}

function requireSums(sums: CupedSums, index: number): void {
  requireCount(`arms[${index}].units`, sums.units);
  requireAtLeast(`arms[${index}].units`, sums.units, meanArmUnitsMin);
  for (const key of ["sum_y", "sum_y_squares", "sum_x", "sum_x_squares", "sum_xy"] as const) requireFinite(`arms[${index}].${key}`, sums[key]);
}

export function cupedFromSums(arms: readonly CupedSums[]): CupedResult {
  if (arms.length === 0) throw new StatsInputError("CUPED needs at least one arm");
  arms.forEach(requireSums);
  const total = (key: keyof CupedSums) => arms.reduce((sum, arm) => sum + arm[key], 0);
  const pooled = moments({
    units: total("units"),
    sum_y: total("sum_y"),
    sum_y_squares: total("sum_y_squares"),
    sum_x: total("sum_x"),
    sum_x_squares: total("sum_x_squares"),
    sum_xy: total("sum_xy"),
  });
  // A constant covariate predicts nothing: no adjustment.
  const covariateMeanSquare = total("sum_x_squares") / pooled.units;
  const covariateVaries = pooled.varianceX > covariateVarianceRelativeMin * covariateMeanSquare;
  const theta = covariateVaries ? pooled.covariance / pooled.varianceX : 0;
  const adjustedPooledVariance = Math.max(0, pooled.varianceY - theta * pooled.covariance);
  const adjusted = arms.map((sums): MeanArm => {
    const arm = moments(sums);
    return {
      units: arm.units,
      mean: arm.meanY - theta * (arm.meanX - pooled.meanX),
      variance: Math.max(0, arm.varianceY - 2 * theta * arm.covariance + theta * theta * arm.varianceX),
    };
  });
  return {
    theta,
    covariate_mean: pooled.meanX,
    variance_reduction: pooled.varianceY > 0 ? 1 - adjustedPooledVariance / pooled.varianceY : 0,
    arms: adjusted,
  };
}

/**
 * The same from per-unit values. The sums are taken after subtracting the pooled means, so
 * large values (revenue in cents, say) do not lose the variances to cancellation.
 */
export function cupedFromUnits(arms: readonly CupedUnits[]): CupedResult {
  let count = 0;
  let sumY = 0;
  let sumX = 0;
  arms.forEach((arm, index) => {
    if (arm.metric.length !== arm.covariate.length) {
      throw new StatsInputError(`arms[${index}]: ${arm.metric.length} metric values but ${arm.covariate.length} covariate values`);
    }
    for (let i = 0; i < arm.metric.length; i++) {
      sumY += arm.metric[i]!;
      sumX += arm.covariate[i]!;
    }
    count += arm.metric.length;
  });
  const shiftY = count > 0 ? sumY / count : 0;
  const shiftX = count > 0 ? sumX / count : 0;
  const centeredSums = arms.map((arm): CupedSums => {
    const sums = { units: arm.metric.length, sum_y: 0, sum_y_squares: 0, sum_x: 0, sum_x_squares: 0, sum_xy: 0 };
    for (let i = 0; i < arm.metric.length; i++) {
      const y = arm.metric[i]! - shiftY;
      const x = arm.covariate[i]! - shiftX;
      sums.sum_y += y;
      sums.sum_y_squares += y * y;
      sums.sum_x += x;
      sums.sum_x_squares += x * x;
      sums.sum_xy += x * y;
    }
    return sums;
  });
  const centered = cupedFromSums(centeredSums);
  return {
    ...centered,
    covariate_mean: centered.covariate_mean + shiftX,
    arms: centered.arms.map((arm) => ({ ...arm, mean: arm.mean + shiftY })),
  };
}
