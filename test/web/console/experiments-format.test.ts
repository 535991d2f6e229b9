// Statistics as the results page writes them (web/console/pages/experiments/stats-format.ts),
// from comparisons the engine computes: the same digits whatever the browser's language.
import { expect, test } from "bun:test";
import { bayesProportions, checkGuardrail, compareMeans, compareProportions } from "../../../engine/stats/index.ts";
import type { Comparison, GuardrailCheck } from "../../../web/console/api/experiments-api.ts";
import {
  formatDifference, formatEffect, formatMetricValue, formatPValue, formatRate, formatRelative, formatValue, guardrailWords, significanceWords,
} from "../../../web/console/pages/experiments/stats-format.ts";

test("rates, relative changes, differences, values and p-values", () => {
  expect([formatRate(0.25), formatRate(0.6), formatRelative(1.4), formatRelative(-0.0512), formatRelative(0)]).toEqual(["25.0%", "60.0%", "+140.0%", "\u22125.1%", "0.0%"]);
  expect([formatDifference(0.35, "proportion"), formatDifference(-2.5, "mean"), formatValue(12345.678), formatValue(0.000123456), formatValue(-3)]).toEqual(["+35.0 pp", "\u22122.5", "12350", "0.0001235", "\u22123"]);
  expect([formatPValue(0.0249), formatPValue(0.0004), formatMetricValue(null, "mean"), formatMetricValue(0.3, "proportion")]).toEqual(["p = 0.025", "p < 0.001", "—", "30.0%"]);
});

test("a significant frequentist effect, an insignificant one, and a Bayesian chance to beat control, in words", () => {
  const significant = compareProportions({ units: 20, conversions: 5 }, { units: 20, conversions: 12 }, { alpha: 0.05, comparisons: 1 }) as Comparison;
  expect(significanceWords("test", significant, true)).toBe("test is significantly better than control: p = 0.025, below α = 0.05 (95% confidence).");
  // The absolute interval agrees with the test; the relative one (delta method) is far wider here.
  expect(formatEffect(significant, "proportion")).toBe("+35.0 pp [+6.3 pp, +63.7 pp] (+140.0%)");
  expect(formatEffect(significant, "proportion", true)).toBe("+140.0% [\u221261.4%, +341.4%]");
  const unclear = compareProportions({ units: 10, conversions: 3 }, { units: 10, conversions: 6 }, { alpha: 0.05, comparisons: 1 }) as Comparison;
  expect(significanceWords("test", unclear, true)).toBe("No significant difference yet: p = 0.178, not below α = 0.05; the 95% interval includes no change.");
  const worse = compareMeans({ units: 20, mean: 0.5, variance: 0.26 }, { units: 20, mean: 4.5, variance: 0.26 }, { alpha: 0.05, comparisons: 1 }) as Comparison;
  expect(significanceWords("test", worse, false)).toStartWith("test is significantly worse than control: p < 0.001, below α = 0.05");
  const bayes = bayesProportions({ units: 100, conversions: 10 }, { units: 100, conversions: 20 }, { alpha: 0.05, higher_is_better: true }) as Comparison;
  expect(significanceWords("test", bayes, true)).toMatch(/^test has a 9\d\.\d% chance to beat control \(95% credible interval shown\)\.$/);
  // Control at 0: no relative change, so only the absolute interval, even when relative is asked.
  const fromZero = compareProportions({ units: 20, conversions: 0 }, { units: 20, conversions: 4 }, { alpha: 0.05, comparisons: 1 }) as Comparison;
  expect(formatEffect(fromZero, "proportion", true)).toMatch(/^\+20\.0 pp \[\+?\u2212?\d+\.\d pp, \+\d+\.\d pp\]$/);
});

test("guardrail verdicts in words", () => {
  const comparison = compareMeans({ units: 20, mean: 0.5, variance: 0.26 }, { units: 20, mean: 4.5, variance: 0.26 }, { alpha: 0.05, comparisons: 1 });
  const harmed = checkGuardrail({ margin: 0.5, margin_kind: "absolute", higher_is_better: false }, comparison) as GuardrailCheck;
  expect(guardrailWords("test", harmed)).toBe("Harmed: test is worse than control by more than the 0.5 margin, with the interval's confidence. Shipping test is blocked.");
  const fine = checkGuardrail({ margin: 20, margin_kind: "relative", higher_is_better: false }, comparison) as GuardrailCheck;
  expect(guardrailWords("test", fine)).toBe("Within margin: any harm from test is smaller than the 2000% tolerated.");
  expect(guardrailWords("test", { ...harmed, status: "inconclusive", margin_kind: "relative", margin: 0.05 })).toBe("Inconclusive: the interval crosses the 5% margin, so harm can be neither confirmed nor ruled out yet.");
});
