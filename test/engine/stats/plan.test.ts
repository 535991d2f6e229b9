// Sample sizes worked out in the test from n = (z_{1-α/2} + z_{1-β})² (σ_c² + σ_t²) / δ² with
// the published quantiles, and the inverse question (what control_units can detect).
import { describe, expect, test } from "bun:test";
import { planExperiment, StatsInputError, type PlanInput } from "../../../engine/stats/index.ts";

const z975 = 1.959963984540054; // qnorm(0.975)
const z80 = 0.8416212335729143; // qnorm(0.8)
const z995 = 2.5758293035489004; // qnorm(0.995)
const z90 = 1.2815515655446004; // qnorm(0.9)
const z9875 = 2.241402727604945; // qnorm(1 - 0.05 / 2 / 2): two treatment arms, Bonferroni

const sampleSize = (zSum: number, varianceSum: number, effect: number) => Math.ceil((zSum * zSum * varianceSum) / (effect * effect));

function expectInvalid(input: PlanInput, messagePart: string) {
  try {
    planExperiment(input);
  } catch (error) {
    expect(error).toBeInstanceOf(StatsInputError);
    expect((error as StatsInputError).code).toBe("validation");
    expect((error as StatsInputError).status).toBe(400);
    expect((error as Error).message).toContain(messagePart);
    return;
  }
  throw new Error(`expected a StatsInputError about ${messagePart}`);
}

describe("plan: proportions", () => {
  test("10 % baseline, +10 % relative, defaults: 14 749 per arm, 30 days at 1000 a day", () => {
    const { plan, mde_at_control_units } = planExperiment({ metric: { kind: "proportion", baseline_rate: 0.1 }, mde: 0.1, daily_units: 1000 });
    const expected = sampleSize(z975 + z80, 0.1 * 0.9 + 0.11 * 0.89, 0.01);
    expect(expected).toBe(14_749);
    expect(plan.units_per_variant).toBe(expected);
    expect(plan.total_units).toBe(2 * expected);
    expect(plan.days).toBe(Math.ceil((2 * expected) / 1000));
    expect(plan).toMatchObject({ metric_kind: "proportion", alpha: 0.05, comparison_alpha: 0.05, power: 0.8, variants: 2, mde: 0.1, mde_kind: "relative", baseline: 0.1, daily_units: 1000 });
    expect(plan.absolute_effect).toBeCloseTo(0.01, 15);
    expect(plan.relative_effect).toBeCloseTo(0.1, 15);
    expect(plan.treatment_value).toBeCloseTo(0.11, 15);
    expect(mde_at_control_units).toBeNull();
  });

  test("absolute mde in rate units; alpha 0.01 and power 0.9", () => {
    const { plan } = planExperiment({ metric: { kind: "proportion", baseline_rate: 0.2 }, mde: 0.05, mde_kind: "absolute", alpha: 0.01, power: 0.9 });
    expect(plan.units_per_variant).toBe(sampleSize(z995 + z90, 0.2 * 0.8 + 0.25 * 0.75, 0.05));
    expect(plan.relative_effect).toBeCloseTo(0.25, 14);
    expect(plan.days).toBeNull();
  });

  test("three arms: alpha is split over the two comparisons, and three arms need units", () => {
    const { plan } = planExperiment({ metric: { kind: "proportion", baseline_rate: 0.3 }, mde: 0.05, variants: 3, daily_units: 2500 });
    expect(plan.comparison_alpha).toBeCloseTo(0.025, 15);
    const perArm = sampleSize(z9875 + z80, 0.3 * 0.7 + 0.315 * 0.685, 0.015);
    expect(plan.units_per_variant).toBe(perArm);
    expect(plan.total_units).toBe(3 * perArm);
    expect(plan.days).toBe(Math.ceil((3 * perArm) / 2500));
  });

  test("mde at control units solves n δ² / z² = p(1 - p) + (p + δ)(1 - p - δ)", () => {
    const { mde_at_control_units } = planExperiment({ metric: { kind: "proportion", baseline_rate: 0.1 }, mde: 0.1, control_units: 5000 });
    const effect = mde_at_control_units!.absolute_effect!;
    const zSum = z975 + z80;
    expect((5000 * effect * effect) / (zSum * zSum)).toBeCloseTo(0.1 * 0.9 + (0.1 + effect) * (0.9 - effect), 14);
    expect(mde_at_control_units!.control_units).toBe(5000);
    expect(mde_at_control_units!.relative_effect).toBeCloseTo(effect / 0.1, 14);
    expect(mde_at_control_units!.mde).toBe(mde_at_control_units!.relative_effect);
  });

  test("the planned size detects the planned effect (just under it, as the size is rounded up)", () => {
    const input: PlanInput = { metric: { kind: "proportion", baseline_rate: 0.04 }, mde: 0.005, mde_kind: "absolute" };
    const perArm = planExperiment(input).plan.units_per_variant;
    const detectable = planExperiment({ ...input, control_units: perArm }).mde_at_control_units!;
    expect(detectable.mde).toBe(detectable.absolute_effect);
    expect(detectable.absolute_effect!).toBeLessThanOrEqual(0.005);
    expect(detectable.absolute_effect!).toBeGreaterThan(0.005 * (1 - 1e-4));
  });

  test("too few control units to detect anything below a rate of 1: null effect", () => {
    const { mde_at_control_units } = planExperiment({ metric: { kind: "proportion", baseline_rate: 0.5 }, mde: 0.1, control_units: 1 });
    expect(mde_at_control_units).toEqual({ control_units: 1, mde: null, absolute_effect: null, relative_effect: null });
  });
});

describe("plan: means", () => {
  test("baseline 50, sd 20, +5 %: n = z² · 2σ² / δ², and the inverse at given units", () => {
    const { plan, mde_at_control_units } = planExperiment({
      metric: { kind: "mean", baseline_mean: 50, standard_deviation: 20 }, mde: 0.05, control_units: 10_000, daily_units: 800,
    });
    expect(plan.units_per_variant).toBe(sampleSize(z975 + z80, 2 * 400, 2.5));
    expect(plan.treatment_value).toBeCloseTo(52.5, 13);
    expect(plan.days).toBe(Math.ceil(plan.total_units / 800));
    expect(mde_at_control_units!.absolute_effect).toBeCloseTo((z975 + z80) * Math.sqrt(800 / 10_000), 13);
    expect(mde_at_control_units!.mde).toBeCloseTo(mde_at_control_units!.absolute_effect! / 50, 14);
  });

  test("a zero baseline works with an absolute mde (no relative effect) and not with a relative one", () => {
    const { plan } = planExperiment({ metric: { kind: "mean", baseline_mean: 0, standard_deviation: 3 }, mde: 0.5, mde_kind: "absolute" });
    expect(plan.units_per_variant).toBe(sampleSize(z975 + z80, 18, 0.5));
    expect(plan.relative_effect).toBeNull();
    expectInvalid({ metric: { kind: "mean", baseline_mean: 0, standard_deviation: 3 }, mde: 0.5 }, "non-zero baseline");
  });
});

describe("plan: invalid inputs", () => {
  const proportion = { kind: "proportion", baseline_rate: 0.1 } as const;
  test.each([
    [{ metric: { kind: "proportion", baseline_rate: 0 }, mde: 0.1 }, "baseline_rate"],
    [{ metric: { kind: "proportion", baseline_rate: 1 }, mde: 0.1 }, "baseline_rate"],
    [{ metric: { kind: "proportion", baseline_rate: 1.2 }, mde: 0.1 }, "baseline_rate"],
    [{ metric: { kind: "proportion", baseline_rate: 0.9 }, mde: 0.2 }, "must stay below 1"],
    [{ metric: { kind: "proportion", baseline_rate: 0.9 }, mde: 0.1, mde_kind: "absolute" }, "must stay below 1"],
    [{ metric: proportion, mde: 0 }, "mde must be a positive number"],
    [{ metric: proportion, mde: -0.1 }, "mde must be a positive number"],
    [{ metric: proportion, mde: Number.NaN }, "mde must be a positive number"],
    [{ metric: proportion, mde: 0.1, alpha: 0 }, "alpha"],
    [{ metric: proportion, mde: 0.1, alpha: 1 }, "alpha"],
    [{ metric: proportion, mde: 0.1, power: 1.5 }, "power"],
    [{ metric: proportion, mde: 0.1, variants: 1 }, "variants must be at least 2"],
    [{ metric: proportion, mde: 0.1, variants: 2.5 }, "variants must be a whole number"],
    [{ metric: proportion, mde: 0.1, daily_units: 0 }, "daily_units"],
    [{ metric: proportion, mde: 0.1, control_units: -5 }, "control_units"],
    [{ metric: { kind: "mean", baseline_mean: 10, standard_deviation: 0 }, mde: 0.1 }, "standard_deviation"],
    [{ metric: { kind: "mean", baseline_mean: Infinity, standard_deviation: 1 }, mde: 0.1 }, "baseline_mean"],
    [{ metric: { kind: "ratio" } as unknown as PlanInput["metric"], mde: 0.1 }, "metric.kind must be proportion or mean"],
    [{ metric: proportion, mde: 0.1, mde_kind: "percent" as unknown as PlanInput["mde_kind"] }, "mde_kind"],
  ] as [PlanInput, string][])("%o → %s", (input, messagePart) => expectInvalid(input, messagePart));
});
