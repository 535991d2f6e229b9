// The normal, Student t and chi-square distributions: CDFs, the quantiles the tests and
// intervals need, and the normal density. Tails are computed directly (never as 1 - CDF) so
// small p-values keep their precision.
import { logGamma, regularizedBeta, regularizedGammaP, regularizedGammaQ } from "./special-functions.ts";

const sqrtTwoPi = Math.sqrt(2 * Math.PI);

/**
 * From this many degrees of freedom on the t distribution is taken as the normal. The t CDF
 * works from x = ν/(ν+t²), whose rounding can cost up to about 4e-16·ν of relative precision,
 * while the normal differs from the t by about 6/ν: the two bounds cross near 1e8 (5e-8).
 */
const degreesOfFreedomTreatedAsNormal = 1e8;
/** Newton's method on the t CDF doubles a heavy-tailed guess per step at worst; this is ample. */
const quantileNewtonStepsMax = 200;
/** A Newton step this small (relative) means the next one would be below double precision. */
const quantileStepRelativeMin = 1e-12;

export function normalDensity(z: number): number {
  return Math.exp(-0.5 * z * z) / sqrtTwoPi;
}

/** Φ(z), through erfc(x) = Q(1/2, x²) so that Φ(-30) ≈ 4.9e-198 is still exact to many digits. */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return NaN;
  const lowerTail = 0.5 * regularizedGammaQ(0.5, 0.5 * z * z);
  return z < 0 ? lowerTail : 1 - lowerTail;
}

// Acklam's rational approximation of the normal quantile (relative error 1.15e-9), split at
// p = 0.02425 into a central and a tail form; one Halley step on Φ then reaches full precision.
const acklamCentralNumerator = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const acklamCentralDenominator = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1, 1];
const acklamTailNumerator = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const acklamTailDenominator = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416, 1];
const acklamTailBreak = 0.02425;

/** Polynomial with coefficients from the highest degree down, by Horner's rule. */
function horner(coefficients: readonly number[], x: number): number {
  let value = 0;
  for (const coefficient of coefficients) value = value * x + coefficient;
  return value;
}

/** Quantile for 0 < p ≤ 0.5, where Φ(x) - p can be formed without cancellation. */
function lowerNormalQuantile(p: number): number {
  let x: number;
  if (p < acklamTailBreak) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = horner(acklamTailNumerator, q) / horner(acklamTailDenominator, q);
  } else {
    const q = p - 0.5;
    const r = q * q;
    x = (horner(acklamCentralNumerator, r) * q) / horner(acklamCentralDenominator, r);
  }
  const scaledError = (normalCdf(x) - p) * sqrtTwoPi * Math.exp(0.5 * x * x);
  return x - scaledError / (1 + 0.5 * x * scaledError);
}

/** Φ⁻¹(p): the z with Φ(z) = p; ±Infinity at 0 and 1. */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  // 1 - p is exact for p ≥ 0.5, so the upper half mirrors the accurate lower half.
  return p > 0.5 ? -lowerNormalQuantile(1 - p) : lowerNormalQuantile(p);
}

function studentTDensity(t: number, degreesOfFreedom: number): number {
  const v = degreesOfFreedom;
  const logNormalizer = logGamma((v + 1) / 2) - logGamma(v / 2) - 0.5 * Math.log(v * Math.PI);
  return Math.exp(logNormalizer - ((v + 1) / 2) * Math.log1p((t * t) / v));
}

/** P(T ≤ t) for Student's t with ν > 0 degrees of freedom (ν need not be whole: Welch). */
export function studentTCdf(t: number, degreesOfFreedom: number): number {
  if (Number.isNaN(t)) return NaN;
  if (degreesOfFreedom >= degreesOfFreedomTreatedAsNormal) return normalCdf(t);
  // P(T ≤ -|t|) = I_x(ν/2, 1/2) / 2 with x = ν/(ν+t²) and 1 - x = t²/(ν+t²).
  const squared = t * t;
  const x = degreesOfFreedom / (degreesOfFreedom + squared);
  const lowerTail = 0.5 * regularizedBeta(x, degreesOfFreedom / 2, 0.5, squared / (degreesOfFreedom + squared));
  return t < 0 ? lowerTail : 1 - lowerTail;
}

/** The t with P(T ≤ t) = p. */
export function studentTQuantile(p: number, degreesOfFreedom: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  if (p === 0.5) return 0;
  if (degreesOfFreedom >= degreesOfFreedomTreatedAsNormal) return normalQuantile(p);
  if (p > 0.5) return -studentTQuantile(1 - p, degreesOfFreedom);
  // Left of 0 the CDF is increasing and convex, so Newton's method started right of the root
  // moves monotonically onto it. The normal quantile is right of it: the t's tails are heavier.
  let t = normalQuantile(p);
  for (let step = 0; step < quantileNewtonStepsMax; step++) {
    const change = (studentTCdf(t, degreesOfFreedom) - p) / studentTDensity(t, degreesOfFreedom);
    // In exact arithmetic every step goes left; one that does not is rounding noise.
    if (!(change > 0)) return t;
    t -= change;
    if (change <= quantileStepRelativeMin * Math.max(1, Math.abs(t))) return t;
  }
  throw new Error(`t quantile for p = ${p}, ν = ${degreesOfFreedom} did not converge`);
}

/** P(X ≤ x) for a chi-square with k degrees of freedom: P(k/2, x/2). */
export function chiSquareCdf(x: number, degreesOfFreedom: number): number {
  return regularizedGammaP(degreesOfFreedom / 2, x / 2);
}

/** P(X > x): the p-value of a chi-square statistic, accurate when tiny. */
export function chiSquareSurvival(x: number, degreesOfFreedom: number): number {
  return regularizedGammaQ(degreesOfFreedom / 2, x / 2);
}
