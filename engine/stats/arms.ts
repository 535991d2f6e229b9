// What the statistics know about one arm of an experiment: units and conversions for a
// proportion metric, units with the mean and sample variance of the per-unit values for a
// mean metric. Regions aggregate, so a mean arm can also be built from sums.
import { requireAtLeast, requireCount, requireFinite, requireNonNegative, StatsInputError } from "./errors.ts";

export interface ProportionArm {
  units: number;
  conversions: number;
}

export interface MeanArm {
  units: number;
  mean: number;
  /** Sample variance of the per-unit values (denominator units - 1). */
  variance: number;
}

/** Sums a region computes per arm for a mean metric. */
export interface MeanSums {
  units: number;
  sum: number;
  sum_squares: number;
}

/** A sample variance needs two values. */
export const meanArmUnitsMin = 2;

export function requireProportionArm(name: string, arm: ProportionArm, unitsMin: number): void {
  requireCount(`${name}.units`, arm.units);
  requireCount(`${name}.conversions`, arm.conversions);
  requireAtLeast(`${name}.units`, arm.units, unitsMin);
  if (arm.conversions > arm.units) {
    throw new StatsInputError(`${name}.conversions (${arm.conversions}) cannot exceed ${name}.units (${arm.units})`);
  }
}

export function requireMeanArm(name: string, arm: MeanArm): void {
  requireCount(`${name}.units`, arm.units);
  requireAtLeast(`${name}.units`, arm.units, meanArmUnitsMin);
  requireFinite(`${name}.mean`, arm.mean);
  requireNonNegative(`${name}.variance`, arm.variance);
}

/** Mean and sample variance in two passes (the one-pass sum of squares cancels badly). */
export function meanArmFromValues(values: ArrayLike<number>): MeanArm {
  const units = values.length;
  requireAtLeast("number of values", units, meanArmUnitsMin);
  let sum = 0;
  for (let i = 0; i < units; i++) {
    requireFinite(`values[${i}]`, values[i]!);
    sum += values[i]!;
  }
  const mean = sum / units;
  let squares = 0;
  for (let i = 0; i < units; i++) squares += (values[i]! - mean) ** 2;
  return { units, mean, variance: squares / (units - 1) };
}

export function meanArmFromSums(sums: MeanSums): MeanArm {
  requireCount("units", sums.units);
  requireAtLeast("units", sums.units, meanArmUnitsMin);
  requireFinite("sum", sums.sum);
  requireFinite("sum_squares", sums.sum_squares);
  const mean = sums.sum / sums.units;
  // Rounding can take a zero variance slightly below zero.
  const variance = Math.max(0, (sums.sum_squares - sums.sum * mean) / (sums.units - 1));
  return { units: sums.units, mean, variance };
}
