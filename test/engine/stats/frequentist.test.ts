// Frequentist comparisons worked by hand in the test: the two-proportion z-test on 200/1000
// against 250/1000 and Welch's t-test (values also agree with scipy.stats.ttest_ind).
import { describe, expect, test } from "bun:test";
import { compareMeans, compareProportions, meanArmFromValues, StatsInputError, studentTCdf, type MeanArm, type ProportionArm } from "../../../engine/stats/index.ts";

const z975 = 1.959963984540054;
const z9875 = 2.241402727604945;

function expectInvalid(run: () => unknown, messagePart: string) {
  expect(run).toThrow(StatsInputError);
  expect(run).toThrow(messagePart);
}

describe("two-proportion z-test", () => {
  const control = { units: 1000, conversions: 200 };
  const treatment = { units: 1000, conversions: 250 };

  test("200/1000 vs 250/1000 by hand: pooled SE for z, unpooled for the interval, delta method for the lift", () => {
    const result = compareProportions(control, treatment);
    const pooledSe = Math.sqrt(0.225 * 0.775 * (1 / 1000 + 1 / 1000));
    const z = 0.05 / pooledSe;
    expect(z).toBeCloseTo(2.6773977630083294, 12);
    expect(result.test_statistic!).toBeCloseTo(z, 12);
    expect(result.p_value).toBeCloseTo(0.007419649261025672, 14);
    expect(result.significant).toBe(true);
    const unpooledSe = Math.sqrt((0.2 * 0.8) / 1000 + (0.25 * 0.75) / 1000);
    expect(result.standard_error).toBeCloseTo(unpooledSe, 15);
    expect(result.confidence_interval.lower).toBeCloseTo(0.05 - z975 * unpooledSe, 14);
    expect(result.confidence_interval.upper).toBeCloseTo(0.05 + z975 * unpooledSe, 14);
    expect(result.absolute_difference).toBeCloseTo(0.05, 15);
    expect(result.relative_difference!).toBeCloseTo(0.25, 14);
    // Var(lift) ≈ Var(p_t) / p_c² + p_t² Var(p_c) / p_c⁴
    const liftSe = Math.sqrt((0.25 * 0.75) / 1000 / 0.04 + (0.0625 * ((0.2 * 0.8) / 1000)) / 0.0016);
    expect(result.relative_confidence_interval!.lower).toBeCloseTo(0.25 - z975 * liftSe, 13);
    expect(result.relative_confidence_interval!.upper).toBeCloseTo(0.25 + z975 * liftSe, 13);
    expect(result).toMatchObject({ method: "frequentist", test: "two_proportion_z", alpha: 0.05, confidence_level: 0.95, degrees_of_freedom: null });
    expect(result.control_value).toBe(0.2);
    expect(result.treatment_value).toBe(0.25);
  });

  test("swapping the arms negates the difference and keeps the p-value", () => {
    const forward = compareProportions(control, treatment);
    const backward = compareProportions(treatment, control);
    expect(backward.absolute_difference).toBeCloseTo(-forward.absolute_difference, 15);
    expect(backward.p_value).toBeCloseTo(forward.p_value, 15);
    expect(backward.confidence_interval.upper).toBeCloseTo(-forward.confidence_interval.lower, 15);
  });

  test("Bonferroni: two comparisons test at alpha / 2 with a wider interval", () => {
    const result = compareProportions(control, treatment, { alpha: 0.05, comparisons: 2 });
    expect(result.alpha).toBe(0.025);
    expect(result.confidence_level).toBe(0.975);
    expect(result.confidence_interval.upper - 0.05).toBeCloseTo(z9875 * result.standard_error, 14);
  });

  test("no difference: p-value 1 and not significant; both arms at 0 % or 100 % too", () => {
    const same = compareProportions({ units: 500, conversions: 50 }, { units: 800, conversions: 80 });
    expect(same.p_value).toBeCloseTo(1, 15);
    expect(same.significant).toBe(false);
    for (const conversions of [0, 1]) {
      const extreme = compareProportions({ units: 40, conversions: 40 * conversions }, { units: 60, conversions: 60 * conversions });
      expect(extreme).toMatchObject({ absolute_difference: 0, test_statistic: 0, p_value: 1, significant: false, standard_error: 0 });
      expect(extreme.confidence_interval).toEqual({ lower: 0, upper: 0 });
    }
  });

  test("a control rate of 0 has no lift: relative fields are null", () => {
    const result = compareProportions({ units: 100, conversions: 0 }, { units: 100, conversions: 5 });
    expect(result.relative_difference).toBeNull();
    expect(result.relative_confidence_interval).toBeNull();
    expect(result.standard_error).toBeCloseTo(Math.sqrt((0.05 * 0.95) / 100), 15);
  });

  test.each([
    [{ units: 0, conversions: 0 }, "control.units must be at least 1"],
    [{ units: 10, conversions: 11 }, "cannot exceed"],
    [{ units: 10.5, conversions: 1 }, "control.units must be a whole number"],
    [{ units: 10, conversions: -1 }, "control.conversions must be a whole number"],
  ] as [ProportionArm, string][])("invalid control %o", (arm, messagePart) => {
    expectInvalid(() => compareProportions(arm, treatment), messagePart);
  });

  test("invalid alpha or number of comparisons", () => {
    expectInvalid(() => compareProportions(control, treatment, { alpha: 1.5 }), "alpha");
    expectInvalid(() => compareProportions(control, treatment, { comparisons: 0 }), "comparisons must be at least 1");
    expectInvalid(() => compareProportions(control, treatment, { comparisons: 1.5 }), "comparisons must be a whole number");
  });
});

describe("Welch's t-test", () => {
  const control: MeanArm = { units: 30, mean: 10, variance: 4 };
  const treatment: MeanArm = { units: 40, mean: 11.2, variance: 9 };

  test("summary statistics by hand: SE, Welch–Satterthwaite df, t, p, interval", () => {
    const result = compareMeans(control, treatment);
    const controlShare = 4 / 30;
    const treatmentShare = 9 / 40;
    const se = Math.sqrt(controlShare + treatmentShare);
    const df = (controlShare + treatmentShare) ** 2 / (controlShare ** 2 / 29 + treatmentShare ** 2 / 39);
    expect(result.standard_error).toBeCloseTo(se, 15);
    expect(result.degrees_of_freedom!).toBeCloseTo(df, 12);
    expect(result.degrees_of_freedom!).toBeCloseTo(67.18775903614458, 10);
    expect(result.test_statistic!).toBeCloseTo(1.2 / se, 13);
    expect(result.p_value).toBeCloseTo(0.049033206722372685, 12);
    expect(result.significant).toBe(true);
    const critical = 1.9959058263660336; // qt(0.975, 67.18775903614458)
    expect(result.confidence_interval.lower).toBeCloseTo(1.2 - critical * se, 12);
    expect(result.confidence_interval.upper).toBeCloseTo(1.2 + critical * se, 12);
    expect(result.relative_difference!).toBeCloseTo(0.12, 14);
    const liftSe = Math.sqrt(treatmentShare / 100 + (11.2 ** 2 * controlShare) / 10_000);
    expect(result.relative_confidence_interval!.upper).toBeCloseTo(0.12 + critical * liftSe, 12);
    expect(result).toMatchObject({ method: "frequentist", test: "welch_t", alpha: 0.05 });
  });

  test("from per-unit values (scipy ttest_ind(equal_var=False): t 3.45898, p 0.0055601)", () => {
    const result = compareMeans(meanArmFromValues([12.1, 9.8, 11.4, 10.2, 13.5, 8.9, 10.7]), meanArmFromValues([13.2, 12.8, 15.1, 11.9, 14.4, 16.0]));
    expect(result.test_statistic!).toBeCloseTo(3.4589793793812, 12);
    expect(result.p_value).toBeCloseTo(0.005560146544070055, 13);
    expect(result.degrees_of_freedom!).toBeCloseTo(10.698316277658282, 11);
  });

  test("the interval excludes 0 exactly when p < alpha", () => {
    for (const mean of [10.2, 10.9, 11.0, 11.1, 11.3, 12]) {
      for (const alpha of [0.01, 0.05, 0.1]) {
        const result = compareMeans(control, { ...treatment, mean }, { alpha });
        expect(result.confidence_interval.lower > 0).toBe(result.significant);
      }
    }
  });

  test("Bonferroni turns p = 0.049 into not significant at 0.025", () => {
    const result = compareMeans(control, treatment, { comparisons: 2 });
    expect(result.alpha).toBe(0.025);
    expect(result.significant).toBe(false);
    expect(studentTCdf((result.confidence_interval.upper - 1.2) / result.standard_error, result.degrees_of_freedom!)).toBeCloseTo(0.9875, 12);
  });

  test("zero variance in both arms: equal means are no evidence, different means are certain", () => {
    const equal = compareMeans({ units: 5, mean: 3, variance: 0 }, { units: 7, mean: 3, variance: 0 });
    expect(equal).toMatchObject({ p_value: 1, test_statistic: 0, significant: false, degrees_of_freedom: 10, standard_error: 0 });
    const different = compareMeans({ units: 5, mean: 3, variance: 0 }, { units: 7, mean: 4, variance: 0 });
    expect(different).toMatchObject({ p_value: 0, test_statistic: null, significant: true, degrees_of_freedom: 10 });
    expect(different.confidence_interval).toEqual({ lower: 1, upper: 1 });
  });

  test("zero variance in one arm: the degrees of freedom are the other arm's n - 1", () => {
    const result = compareMeans({ units: 50, mean: 2, variance: 0 }, { units: 20, mean: 2.5, variance: 1 });
    expect(result.degrees_of_freedom!).toBeCloseTo(19, 12);
  });

  test("a control mean of 0 has no lift", () => {
    const result = compareMeans({ units: 10, mean: 0, variance: 1 }, { units: 10, mean: 0.5, variance: 1 });
    expect(result.relative_difference).toBeNull();
    expect(result.relative_confidence_interval).toBeNull();
  });

  test.each([
    [{ units: 1, mean: 1, variance: 0 }, "control.units must be at least 2"],
    [{ units: 0, mean: 0, variance: 0 }, "control.units must be at least 2"],
    [{ units: 10, mean: Number.NaN, variance: 1 }, "control.mean must be a finite number"],
    [{ units: 10, mean: 1, variance: -1 }, "control.variance must be zero or more"],
  ] as [MeanArm, string][])("invalid control %o", (arm, messagePart) => {
    expectInvalid(() => compareMeans(arm, treatment), messagePart);
  });
});
