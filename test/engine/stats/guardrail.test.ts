// Guardrails: harmed when the whole interval is beyond the margin on the harmful side, within
// margin when the whole interval is on the safe side of it, inconclusive otherwise.
import { describe, expect, test } from "bun:test";
import {
  bayesProportions, checkGuardrail, compareMeans, compareProportions, StatsInputError, type FrequentistComparison, type GuardrailRule, type Interval,
} from "../../../engine/stats/index.ts";

const base = compareProportions({ units: 1000, conversions: 200 }, { units: 1000, conversions: 200 });
const withIntervals = (absolute: Interval, relative: Interval | null): FrequentistComparison => ({
  ...base,
  confidence_interval: absolute,
  relative_confidence_interval: relative,
});

describe("guardrail check", () => {
  const higherIsBetter: GuardrailRule = { margin: 0.02, margin_kind: "relative", higher_is_better: true };

  test.each([
    [{ lower: -0.1, upper: -0.05 }, "harmed"],
    [{ lower: -0.01, upper: 0.03 }, "within_margin"],
    [{ lower: -0.05, upper: 0.01 }, "inconclusive"],
    [{ lower: -0.05, upper: -0.02 }, "inconclusive"], // touching the margin is not beyond it
  ] as [Interval, string][])("higher is better, 2 %% relative margin, relative interval %o → %s", (relative, status) => {
    const check = checkGuardrail(higherIsBetter, withIntervals({ lower: -1, upper: 1 }, relative));
    expect(check).toEqual({ status, harmed: status === "harmed", margin: 0.02, margin_kind: "relative", harm_boundary: -0.02, interval: relative } as never);
  });

  test("lower is better (an error rate): harm is an increase", () => {
    const rule: GuardrailRule = { margin: 0.02, higher_is_better: false };
    expect(checkGuardrail(rule, withIntervals({ lower: 0, upper: 0 }, { lower: 0.05, upper: 0.1 })).status).toBe("harmed");
    expect(checkGuardrail(rule, withIntervals({ lower: 0, upper: 0 }, { lower: -0.03, upper: 0.01 })).status).toBe("within_margin");
    expect(checkGuardrail(rule, withIntervals({ lower: 0, upper: 0 }, { lower: 0.01, upper: 0.05 })).harm_boundary).toBe(0.02);
  });

  test("margin_kind defaults to relative; absolute reads the absolute interval in the metric's unit", () => {
    const comparison = withIntervals({ lower: -3, upper: -1.5 }, { lower: -0.001, upper: 0.001 });
    expect(checkGuardrail({ margin: 1, higher_is_better: true }, comparison)).toMatchObject({ margin_kind: "relative", status: "within_margin" });
    expect(checkGuardrail({ margin: 1, margin_kind: "absolute", higher_is_better: true }, comparison)).toMatchObject({ status: "harmed", interval: { lower: -3, upper: -1.5 } });
  });

  test("margin 0: harmed exactly when the harm is significant", () => {
    const rule: GuardrailRule = { margin: 0, margin_kind: "absolute", higher_is_better: true };
    const worse = compareProportions({ units: 1000, conversions: 250 }, { units: 1000, conversions: 200 });
    expect(worse.significant).toBe(true);
    expect(checkGuardrail(rule, worse).harmed).toBe(true);
    const slightlyWorse = compareProportions({ units: 1000, conversions: 210 }, { units: 1000, conversions: 200 });
    expect(slightlyWorse.significant).toBe(false);
    expect(checkGuardrail(rule, slightlyWorse).status).toBe("inconclusive");
  });

  test("a real drop from 20 % to 15 % harms a 5 % relative margin", () => {
    const comparison = compareProportions({ units: 1000, conversions: 200 }, { units: 1000, conversions: 150 });
    expect(comparison.relative_confidence_interval!.upper).toBeLessThan(-0.05);
    expect(checkGuardrail({ margin: 0.05, higher_is_better: true }, comparison).harmed).toBe(true);
  });

  test("Bayesian comparisons are judged on their credible intervals", () => {
    const comparison = bayesProportions({ units: 5000, conversions: 1000 }, { units: 5000, conversions: 1005 });
    const check = checkGuardrail({ margin: 0.1, higher_is_better: true }, comparison);
    expect(check.interval).toEqual(comparison.relative_credible_interval);
    expect(check.status).toBe("within_margin");
  });

  test("no relative interval (control at 0): inconclusive", () => {
    const comparison = compareMeans({ units: 10, mean: 0, variance: 1 }, { units: 10, mean: -5, variance: 1 });
    expect(checkGuardrail({ margin: 0.05, higher_is_better: true }, comparison)).toMatchObject({ status: "inconclusive", harmed: false, interval: null });
  });

  test("invalid rules are StatsInputError", () => {
    expect(() => checkGuardrail({ margin: -0.1, higher_is_better: true }, base)).toThrow(StatsInputError);
    expect(() => checkGuardrail({ margin: 0.1, margin_kind: "percent" as never, higher_is_better: true }, base)).toThrow("margin_kind");
  });
});
