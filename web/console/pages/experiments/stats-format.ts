// Statistics as the results page writes them. Deliberately not locale-formatted: the same
// digits whatever the browser's language, so a number on the page can be read back against
// the results API's answer. Negative numbers use the minus sign (U+2212).
import type { Comparison, GuardrailCheck, Interval, MetricKind, MetricResult } from "../../api/experiments-api.ts";

const minus = "\u2212";
const signed = (text: string, value: number) => (value > 0 ? `+${text}` : value < 0 ? `${minus}${text}` : text);

/** A share (0.25) as "25.0%". */
export const formatRate = (value: number) => `${(value * 100).toFixed(1)}%`;

/** A relative change (0.4) as "+40.0%". */
export const formatRelative = (value: number) => signed(`${Math.abs(value * 100).toFixed(1)}%`, value);

/** A plain number to 4 significant digits ("3", "0.1234", "12350"). */
export function formatValue(value: number): string {
  if (value === 0) return "0";
  const text = String(Number(Math.abs(value).toPrecision(4)));
  return value < 0 ? `${minus}${text}` : text;
}

/** A difference of two rates in percentage points, or of two means. */
export const formatDifference = (value: number, kind: MetricKind) =>
  kind === "proportion" ? signed(`${Math.abs(value * 100).toFixed(1)} pp`, value) : signed(formatValue(Math.abs(value)), value);

/** "p = 0.025", or "p < 0.001" for smaller ones. */
export const formatPValue = (p: number) => (p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`);

/** A metric's value for a variant: a rate for proportions, a mean otherwise. */
export const formatMetricValue = (value: number | null, kind: MetricKind) => (value === null ? "—" : kind === "proportion" ? formatRate(value) : formatValue(value));

/**
 * The interval a comparison reports for the absolute difference, or for the relative one when
 * `relative` is asked and control is not 0. The absolute interval is the one the test's verdict
 * agrees with; the relative one (delta method) is wider on small samples, and is what a
 * guardrail with a relative margin is judged on.
 */
export function comparisonInterval(comparison: Comparison, relative: boolean): { interval: Interval; relative: boolean; level: number } {
  const relativeInterval = comparison.method === "frequentist" ? comparison.relative_confidence_interval : comparison.relative_credible_interval;
  const absolute = comparison.method === "frequentist" ? comparison.confidence_interval : comparison.credible_interval;
  const level = comparison.method === "frequentist" ? comparison.confidence_level : comparison.credible_level;
  return relative && relativeInterval && comparison.relative_difference !== null ? { interval: relativeInterval, relative: true, level } : { interval: absolute, relative: false, level };
}

/** The effect a comparison estimates with its interval: "+35.0 pp [+6.3 pp, +63.7 pp] (+140.0%)", or relative: "+140.0% [−61.4%, +341.4%]". */
export function formatEffect(comparison: Comparison, kind: MetricKind, relative = false): string {
  const shown = comparisonInterval(comparison, relative);
  if (shown.relative) return `${formatRelative(comparison.relative_difference!)} [${formatRelative(shown.interval.lower)}, ${formatRelative(shown.interval.upper)}]`;
  const write = (value: number) => formatDifference(value, kind);
  const change = comparison.relative_difference === null ? "" : ` (${formatRelative(comparison.relative_difference)})`;
  return `${write(comparison.absolute_difference)} [${write(shown.interval.lower)}, ${write(shown.interval.upper)}]${change}`;
}

/** Significance in words, for `variant` against control. */
export function significanceWords(variant: string, comparison: Comparison, higherIsBetter: boolean): string {
  const better = (comparison.absolute_difference > 0) === higherIsBetter;
  if (comparison.method === "frequentist") {
    const level = `${Number((comparison.confidence_level * 100).toFixed(2))}%`;
    if (comparison.significant) {
      return `${variant} is significantly ${better ? "better" : "worse"} than control: ${formatPValue(comparison.p_value)}, below α = ${comparison.alpha} (${level} confidence).`;
    }
    return `No significant difference yet: ${formatPValue(comparison.p_value)}, not below α = ${comparison.alpha}; the ${level} interval includes no change.`;
  }
  const chance = formatRate(comparison.probability_to_beat_control);
  return `${variant} has a ${chance} chance to beat control (${Number((comparison.credible_level * 100).toFixed(2))}% credible interval shown).`;
}

const marginWords = (check: GuardrailCheck) => (check.margin_kind === "relative" ? formatRate(check.margin).replace(/\.0%$/, "%") : formatValue(check.margin));

/** A guardrail verdict in words. */
export function guardrailWords(variant: string, check: GuardrailCheck): string {
  const margin = marginWords(check);
  if (check.status === "harmed") return `Harmed: ${variant} is worse than control by more than the ${margin} margin, with the interval's confidence. Shipping ${variant} is blocked.`;
  if (check.status === "within_margin") return `Within margin: any harm from ${variant} is smaller than the ${margin} tolerated.`;
  return `Inconclusive: the interval crosses the ${margin} margin, so harm can be neither confirmed nor ruled out yet.`;
}

/** The metric's roles in the order the page shows them. */
export const roleOrder: Record<MetricResult["role"], number> = { primary: 0, secondary: 1, guardrail: 2 };
