// Sample-ratio mismatch: Pearson's chi-square by hand, p-values from the closed forms for one
// degree of freedom (2Φ(-√χ²)) and two (e^{-χ²/2}).
import { describe, expect, test } from "bun:test";
import { normalCdf, sampleRatioMismatch, srmPValueThreshold, StatsInputError } from "../../../engine/stats/index.ts";

describe("sample-ratio mismatch", () => {
  test("5000 vs 5300 on an even split: χ² = 2 · 150² / 5150, p ≈ 0.0031, not flagged at 0.001", () => {
    const result = sampleRatioMismatch([5000, 5300]);
    const chiSquare = (2 * 150 ** 2) / 5150;
    expect(result.expected).toEqual([5150, 5150]);
    expect(result.chi_square).toBeCloseTo(chiSquare, 12);
    expect(result.degrees_of_freedom).toBe(1);
    expect(result.p_value).toBeCloseTo(2 * normalCdf(-Math.sqrt(chiSquare)), 14);
    expect(result.p_value).toBeCloseTo(0.0031166938398668675, 14);
    expect(result.srm_detected).toBe(false);
    expect(result.p_value_threshold).toBe(srmPValueThreshold);
    expect(srmPValueThreshold).toBe(0.001);
  });

  test("5000 vs 5500 is flagged", () => {
    const result = sampleRatioMismatch([5000, 5500]);
    expect(result.chi_square).toBeCloseTo((2 * 250 ** 2) / 5250, 12);
    expect(result.p_value).toBeLessThan(1e-5);
    expect(result.srm_detected).toBe(true);
  });

  test("configured weights in any scale: a 20/80 rollout", () => {
    expect(sampleRatioMismatch([2000, 8000], [20, 80])).toMatchObject({ chi_square: 0, p_value: 1, srm_detected: false });
    const drifted = sampleRatioMismatch([2100, 7900], [0.2, 0.8]);
    expect(drifted.expected).toEqual([2000, 8000]);
    expect(drifted.chi_square).toBeCloseTo(100 ** 2 / 2000 + 100 ** 2 / 8000, 12);
    expect(drifted.p_value).toBeCloseTo(2 * normalCdf(-2.5), 14);
  });

  test("three arms: two degrees of freedom, p = e^{-χ²/2}", () => {
    const result = sampleRatioMismatch([1000, 1000, 1100]);
    const expected = 3100 / 3;
    const chiSquare = (2 * (1000 - expected) ** 2 + (1100 - expected) ** 2) / expected;
    expect(result.degrees_of_freedom).toBe(2);
    expect(result.chi_square).toBeCloseTo(chiSquare, 12);
    expect(result.p_value).toBeCloseTo(Math.exp(-chiSquare / 2), 14);
  });

  test("no units yet is no evidence of a mismatch", () => {
    expect(sampleRatioMismatch([0, 0])).toMatchObject({ expected: [0, 0], chi_square: 0, p_value: 1, srm_detected: false });
  });

  test("an arm that got nothing against a configured share is flagged", () => {
    expect(sampleRatioMismatch([0, 100]).srm_detected).toBe(true);
  });

  test.each([
    [[5000], undefined, "at least 2 arms"],
    [[5000, -1], undefined, "observed[1] must be a whole number"],
    [[5000, 10.5], undefined, "observed[1] must be a whole number"],
    [[5000, 5000], [50], "1 weights for 2 arms"],
    [[5000, 5000], [50, 0], "weights[1] must be a positive number"],
  ] as [number[], number[] | undefined, string][])("invalid %p with weights %p", (observed, weights, messagePart) => {
    expect(() => sampleRatioMismatch(observed, weights)).toThrow(StatsInputError);
    expect(() => sampleRatioMismatch(observed, weights)).toThrow(messagePart);
  });
});
