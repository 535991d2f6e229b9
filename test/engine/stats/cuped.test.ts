// CUPED on seeded synthetic data: X ~ N(10, 2²), Y = X + N(0, 1) (+ 0.5 in treatment), so
// θ ≈ 1 and the variance reduction ≈ ρ² = 4/5. Checked against a per-unit adjustment done
// here, and the aggregate-sum path against the per-unit path.
import { describe, expect, test } from "bun:test";
import { seededRandom } from "../dataset.ts";
import { compareMeans, cupedFromSums, cupedFromUnits, meanArmFromValues, StatsInputError, type CupedSums, type CupedUnits } from "../../../engine/stats/index.ts";

function seededNormal(seed: number): () => number {
  const uniform = seededRandom(seed);
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

const unitsPerArm = 20_000;

function syntheticArms(seed: number, offset = 0): { metric: Float64Array; covariate: Float64Array }[] {
  const normal = seededNormal(seed);
  return [0, 0.5].map((effect) => {
    const covariate = new Float64Array(unitsPerArm);
    const metric = new Float64Array(unitsPerArm);
    for (let i = 0; i < unitsPerArm; i++) {
      covariate[i] = offset + 10 + 2 * normal();
      metric[i] = covariate[i]! + normal() + effect;
    }
    return { metric, covariate };
  });
}

function sumsOf(arm: CupedUnits): CupedSums {
  const sums = { units: arm.metric.length, sum_y: 0, sum_y_squares: 0, sum_x: 0, sum_x_squares: 0, sum_xy: 0 };
  for (let i = 0; i < arm.metric.length; i++) {
    const [y, x] = [arm.metric[i]!, arm.covariate[i]!];
    sums.sum_y += y;
    sums.sum_y_squares += y * y;
    sums.sum_x += x;
    sums.sum_x_squares += x * x;
    sums.sum_xy += x * y;
  }
  return sums;
}

const pooled = (arms: CupedUnits[], key: keyof CupedUnits) => Float64Array.from(arms.flatMap((arm) => Array.from(arm[key])));
const mean = (values: Float64Array) => values.reduce((sum, value) => sum + value, 0) / values.length;
function covariance(a: Float64Array, b: Float64Array): number {
  const [meanA, meanB] = [mean(a), mean(b)];
  return a.reduce((sum, value, i) => sum + (value - meanA) * (b[i]! - meanB), 0) / (a.length - 1);
}

describe("CUPED", () => {
  const arms = syntheticArms(42);
  const result = cupedFromUnits(arms);
  const [x, y] = [pooled(arms, "covariate"), pooled(arms, "metric")];

  test("θ = cov(X, Y) / var(X) on pooled data, close to the true 1", () => {
    expect(result.theta).toBeCloseTo(covariance(x, y) / covariance(x, x), 12);
    expect(Math.abs(result.theta - 1)).toBeLessThan(0.02);
    expect(result.covariate_mean).toBeCloseTo(mean(x), 12);
  });

  test("variance reduction is the sample ρ², close to the true 4 / (4 + 1 + 0.25²)", () => {
    const rhoSquared = covariance(x, y) ** 2 / (covariance(x, x) * covariance(y, y));
    expect(result.variance_reduction).toBeCloseTo(rhoSquared, 12);
    // Pooled, half the units are shifted by 0.5: that adds 0.25² to var(Y) but nothing to cov(X, Y).
    expect(Math.abs(result.variance_reduction - 4 / (4 + 1 + 0.25 ** 2))).toBeLessThan(0.01);
  });

  test("adjusted arms equal Y' = Y - θ (X - mean X) computed per unit", () => {
    const covariateMean = mean(x);
    arms.forEach((arm, index) => {
      const adjusted = Float64Array.from(arm.metric, (value, i) => value - result.theta * (arm.covariate[i]! - covariateMean));
      const expected = meanArmFromValues(adjusted);
      expect(result.arms[index]!.units).toBe(unitsPerArm);
      expect(result.arms[index]!.mean).toBeCloseTo(expected.mean, 11);
      expect(result.arms[index]!.variance).toBeCloseTo(expected.variance, 11);
    });
  });

  test("the effect estimate stays near 0.5 and its standard error shrinks by about √(1 - ρ²)", () => {
    const raw = compareMeans(meanArmFromValues(arms[0]!.metric), meanArmFromValues(arms[1]!.metric));
    const adjusted = compareMeans(result.arms[0]!, result.arms[1]!);
    expect(Math.abs(adjusted.absolute_difference - 0.5)).toBeLessThan(0.03);
    expect(Math.abs(adjusted.standard_error / raw.standard_error - Math.sqrt(1 - 0.8))).toBeLessThan(0.02);
  });

  test("the aggregate-sum path gives the per-unit result", () => {
    const fromSums = cupedFromSums(arms.map(sumsOf));
    expect(fromSums.theta).toBeCloseTo(result.theta, 10);
    expect(fromSums.variance_reduction).toBeCloseTo(result.variance_reduction, 10);
    expect(fromSums.covariate_mean).toBeCloseTo(result.covariate_mean, 10);
    fromSums.arms.forEach((arm, index) => {
      expect(arm.units).toBe(result.arms[index]!.units);
      expect(arm.mean).toBeCloseTo(result.arms[index]!.mean, 10);
      expect(arm.variance).toBeCloseTo(result.arms[index]!.variance, 9);
    });
  });

  test("values around 10⁹ lose nothing on the per-unit path (it centers before summing)", () => {
    const shifted = cupedFromUnits(syntheticArms(42, 1e9).map((arm) => ({ ...arm, metric: arm.metric.map((value) => value + 1e9) })));
    expect(shifted.theta).toBeCloseTo(result.theta, 6);
    expect(shifted.variance_reduction).toBeCloseTo(result.variance_reduction, 6);
    expect(shifted.arms[1]!.mean - shifted.arms[0]!.mean).toBeCloseTo(result.arms[1]!.mean - result.arms[0]!.mean, 5);
  });

  test("a constant covariate (no pre-period data) leaves the metric as it is", () => {
    const metric = [3, 5, 4, 8];
    const plain = cupedFromUnits([{ metric, covariate: [0, 0, 0, 0] }, { metric: [1, 2], covariate: [0, 0] }]);
    expect(plain.theta).toBe(0);
    expect(plain.variance_reduction).toBe(0);
    const raw = meanArmFromValues(metric);
    expect(plain.arms[0]!.mean).toBeCloseTo(raw.mean, 14);
    expect(plain.arms[0]!.variance).toBeCloseTo(raw.variance, 14);
  });

  test("from sums, a constant non-zero covariate is recognised despite rounding in Σx² - (Σx)²/n", () => {
    const metric = [1.7, 2.3, 3.1, 4.9, 5.3, 6.2, 7.7];
    const sums = (x: number): CupedSums => ({
      units: metric.length,
      sum_y: metric.reduce((sum, y) => sum + y, 0),
      sum_y_squares: metric.reduce((sum, y) => sum + y * y, 0),
      sum_x: metric.reduce((sum) => sum + x, 0),
      sum_x_squares: metric.reduce((sum) => sum + x * x, 0),
      sum_xy: metric.reduce((sum, y) => sum + x * y, 0),
    });
    for (const x of [0.1, 0.3, 1 / 3, 12345.678]) expect(cupedFromSums([sums(x), sums(x)]).theta).toBe(0);
  });

  test("a perfectly predicted metric has all its variance removed", () => {
    const covariate = [1, 2, 3, 4, 5, 6];
    const perfect = cupedFromUnits([{ metric: covariate.map((value) => 3 * value + 7), covariate }]);
    expect(perfect.theta).toBeCloseTo(3, 12);
    expect(perfect.variance_reduction).toBeCloseTo(1, 12);
    expect(perfect.arms[0]!.variance).toBeCloseTo(0, 12);
    expect(perfect.arms[0]!.mean).toBeCloseTo(3 * 3.5 + 7, 12);
  });

  test("a constant metric has nothing to reduce", () => {
    expect(cupedFromUnits([{ metric: [2, 2, 2], covariate: [1, 5, 9] }]).variance_reduction).toBe(0);
  });

  test("invalid inputs are StatsInputError", () => {
    expect(() => cupedFromUnits([])).toThrow(StatsInputError);
    expect(() => cupedFromUnits([{ metric: [1, 2, 3], covariate: [1, 2] }])).toThrow("3 metric values but 2 covariate values");
    expect(() => cupedFromUnits([{ metric: [1, 2], covariate: [1, 2] }, { metric: [1], covariate: [1] }])).toThrow("arms[1].units must be at least 2");
    expect(() => cupedFromUnits([{ metric: [1, Number.NaN], covariate: [1, 2] }])).toThrow("arms[0].sum_y must be a finite number");
    expect(() => cupedFromSums([{ units: 2.5, sum_y: 1, sum_y_squares: 1, sum_x: 1, sum_x_squares: 1, sum_xy: 1 }])).toThrow("whole number");
  });
});
