// Arm summaries, the alpha split, the error class and the version constant.
import { describe, expect, test } from "bun:test";
import {
  alphaDefault, comparisonAlpha, meanArmFromSums, meanArmFromValues, powerDefault, statsVersion, StatsInputError,
} from "../../../engine/stats/index.ts";

describe("mean arms", () => {
  test("from values: mean and sample variance (n - 1)", () => {
    expect(meanArmFromValues([2, 4, 4, 4, 5, 5, 7, 9])).toEqual({ units: 8, mean: 5, variance: 32 / 7 });
    expect(meanArmFromValues(Float64Array.of(3, 3))).toEqual({ units: 2, mean: 3, variance: 0 });
  });

  test("from sums: the same numbers; a constant metric's variance never goes below 0", () => {
    const values = [2, 4, 4, 4, 5, 5, 7, 9];
    const fromSums = meanArmFromSums({ units: 8, sum: 40, sum_squares: values.reduce((sum, value) => sum + value * value, 0) });
    expect(fromSums.mean).toBe(5);
    expect(fromSums.variance).toBeCloseTo(32 / 7, 14);
    const constant = 0.1;
    expect(meanArmFromSums({ units: 3, sum: 3 * constant, sum_squares: 3 * constant * constant }).variance).toBeGreaterThanOrEqual(0);
  });

  test("invalid summaries are StatsInputError", () => {
    expect(() => meanArmFromValues([1])).toThrow("number of values must be at least 2");
    expect(() => meanArmFromValues([1, Number.NaN])).toThrow("values[1] must be a finite number");
    expect(() => meanArmFromSums({ units: 1, sum: 1, sum_squares: 1 })).toThrow("units must be at least 2");
    expect(() => meanArmFromSums({ units: 4, sum: Number.NaN, sum_squares: 1 })).toThrow(StatsInputError);
  });
});

describe("alpha per comparison", () => {
  test("defaults, and the Bonferroni split", () => {
    expect(alphaDefault).toBe(0.05);
    expect(powerDefault).toBe(0.8);
    expect(comparisonAlpha(undefined)).toBe(0.05);
    expect(comparisonAlpha(0.05, 4)).toBe(0.0125);
    expect(comparisonAlpha(0.1, 1)).toBe(0.1);
  });

  test.each([
    [0, 1, "alpha must be between 0 and 1"],
    [1, 1, "alpha must be between 0 and 1"],
    [Number.NaN, 1, "alpha must be between 0 and 1"],
    [0.05, 0, "comparisons must be at least 1"],
    [0.05, 2.5, "comparisons must be a whole number"],
  ])("alpha %p over %p comparisons is rejected", (alpha, comparisons, messagePart) => {
    expect(() => comparisonAlpha(alpha, comparisons)).toThrow(messagePart);
  });
});

describe("errors and version", () => {
  test("StatsInputError carries the HTTP layer's validation code and status", () => {
    const error = new StatsInputError("alpha must be between 0 and 1 (exclusive), got 2");
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "StatsInputError", code: "validation", status: 400, message: "alpha must be between 0 and 1 (exclusive), got 2" });
  });

  test("statsVersion is 1", () => {
    expect(statsVersion).toBe(1);
  });
});
