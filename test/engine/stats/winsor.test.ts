// Winsorisation at the winsor_pct percentile (linear interpolation at q · (n - 1), as DuckDB's
// quantile_cont), upper tail only, one cap for all arms.
import { describe, expect, test } from "bun:test";
import { StatsInputError, winsorCap, winsorizeArms } from "../../../engine/stats/index.ts";

const oneToHundred = Array.from({ length: 100 }, (_, i) => i + 1);

describe("winsorisation", () => {
  test("the 99th percentile of 1..100 is 99.01 (position 0.99 · 99 = 98.01): only 100 is capped", () => {
    expect(winsorCap(oneToHundred, 0.99)).toBeCloseTo(99.01, 12);
    const { cap, arms, capped_units } = winsorizeArms([oneToHundred], 0.99);
    expect(cap).toBeCloseTo(99.01, 12);
    expect(capped_units).toBe(1);
    expect(arms[0]![99]).toBeCloseTo(99.01, 12);
    expect(Array.from(arms[0]!.subarray(0, 99))).toEqual(oneToHundred.slice(0, 99));
  });

  test("interpolation between order statistics, in any input order", () => {
    expect(winsorCap([40, 10, 30, 20], 0.5)).toBe(25);
    expect(winsorCap([40, 10, 30, 20], 2 / 3)).toBeCloseTo(30, 12);
    expect(winsorCap([7], 0.9)).toBe(7);
  });

  test("one cap from all arms pooled, applied to each", () => {
    const control = [0, 0, 0, 5, 10];
    const treatment = [0, 0, 2, 1000, 20];
    const { cap, arms, capped_units } = winsorizeArms([control, treatment], 0.8);
    const expectedCap = winsorCap([...control, ...treatment], 0.8)!;
    expect(cap).toBe(expectedCap);
    // Sorted 0 0 0 0 0 2 5 10 20 1000: position 0.8 · 9 = 7.2 is a fifth of the way from 10 to 20.
    expect(expectedCap).toBeCloseTo(12, 12);
    expect(Array.from(arms[0]!)).toEqual(control);
    expect(Array.from(arms[1]!)).toEqual([0, 0, 2, expectedCap, expectedCap]);
    expect(capped_units).toBe(2);
  });

  test("the lower tail is left alone, and winsor_pct 1 changes nothing", () => {
    const values = [-500, -1, 0, 3, 4];
    expect(Array.from(winsorizeArms([values], 0.75).arms[0]!)).toEqual([-500, -1, 0, 3, 3]);
    expect(winsorizeArms([values], 1)).toEqual({ cap: 4, arms: [Float64Array.from(values)], capped_units: 0 });
  });

  test("no values: no cap", () => {
    expect(winsorizeArms([[], []], 0.99)).toEqual({ cap: null, arms: [new Float64Array(0), new Float64Array(0)], capped_units: 0 });
  });

  test.each([0, -0.1, 1.5, 99, Number.NaN])("winsor_pct %p is rejected", (winsorPct) => {
    expect(() => winsorizeArms([oneToHundred], winsorPct)).toThrow(StatsInputError);
    expect(() => winsorCap(oneToHundred, winsorPct)).toThrow("winsor_pct");
  });

  test("values must be finite", () => {
    expect(() => winsorizeArms([[1, Number.POSITIVE_INFINITY]], 0.9)).toThrow("values[1] must be a finite number");
  });
});
