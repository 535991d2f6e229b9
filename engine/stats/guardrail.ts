// Guardrails: metrics a launch must not damage by more than a tolerated margin. The rule
// reads the comparison's interval (confidence or credible, at 1 - alpha):
//   harmed         the whole interval lies beyond the margin on the harmful side: the harm
//                  is larger than tolerated, with the interval's confidence;
//   within_margin  the whole interval lies on the safe side of the margin: any harm is
//                  smaller than tolerated (a non-inferiority result);
//   inconclusive   the interval straddles the margin, or the margin is relative and the
//                  control value is 0, so no relative interval exists.
// The margin is a non-negative size of harm: a fraction of control for margin_kind relative
// (0.02 = 2 %), in the metric's unit for absolute.
import type { BayesianComparison } from "./bayesian.ts";
import { requireNonNegative, StatsInputError } from "./errors.ts";
import type { FrequentistComparison } from "./frequentist.ts";
import type { Interval } from "./intervals.ts";

export type MarginKind = "relative" | "absolute";

export interface GuardrailRule {
  margin: number;
  margin_kind?: MarginKind;
  higher_is_better: boolean;
}

export type GuardrailStatus = "harmed" | "within_margin" | "inconclusive";

export interface GuardrailCheck {
  status: GuardrailStatus;
  harmed: boolean;
  margin: number;
  margin_kind: MarginKind;
  /** The difference at which harm exceeds the margin: -margin when higher is better, +margin otherwise. */
  harm_boundary: number;
  /** The interval judged (absolute or relative as margin_kind says), null when none exists. */
  interval: Interval | null;
}

function intervalsOf(comparison: FrequentistComparison | BayesianComparison): { absolute: Interval; relative: Interval | null } {
  return comparison.method === "frequentist"
    ? { absolute: comparison.confidence_interval, relative: comparison.relative_confidence_interval }
    : { absolute: comparison.credible_interval, relative: comparison.relative_credible_interval };
}

export function checkGuardrail(rule: GuardrailRule, comparison: FrequentistComparison | BayesianComparison): GuardrailCheck {
  requireNonNegative("margin", rule.margin);
  const marginKind = rule.margin_kind ?? "relative";
  if (marginKind !== "relative" && marginKind !== "absolute") throw new StatsInputError(`margin_kind must be relative or absolute, got ${marginKind}`);
  const intervals = intervalsOf(comparison);
  const interval = marginKind === "relative" ? intervals.relative : intervals.absolute;
  const harmBoundary = rule.higher_is_better ? -rule.margin : rule.margin;
  let status: GuardrailStatus = "inconclusive";
  if (interval !== null) {
    const beyond = rule.higher_is_better ? interval.upper < harmBoundary : interval.lower > harmBoundary;
    const within = rule.higher_is_better ? interval.lower > harmBoundary : interval.upper < harmBoundary;
    if (beyond) status = "harmed";
    else if (within) status = "within_margin";
  }
  return { status, harmed: status === "harmed", margin: rule.margin, margin_kind: marginKind, harm_boundary: harmBoundary, interval };
}
