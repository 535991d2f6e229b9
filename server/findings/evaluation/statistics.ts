// The statistics a findings rule judges a period with (docs/findings-evaluation.md): the
// baseline is the median of the same period in the previous weeks, its spread the median
// absolute deviation (MAD), both robust to an outlier week (a holiday, an outage); the robust
// z-score divides the change by 1.4826 x MAD (the normal distribution's standard deviation
// for a MAD), never by less than a floor the target kind decides, so a flat history does not
// make every small wobble infinitely surprising. Pure functions: no I/O, no clock.
import type { Direction, Severity, Thresholds } from "../findings-types.ts";

/** 1.4826 x MAD estimates the standard deviation of normally distributed values. */
export const madToSigma = 1.4826;
/** A finding whose score (the smallest observed / threshold ratio) is at least this is a warning... */
export const warningScoreMin = 1.5;
/** ... and from this on critical; below warningScoreMin (and at least 1: every threshold crossed) it is info. */
export const criticalScoreMin = 3;
/** The z-score's scale of a mean metric is never below this share of the baseline's size. */
export const meanScaleFloorRatio = 0.01;
/** The z-score's scale of a conversion is never below this many percentage points. */
export const conversionScaleFloorPoints = 0.5;

/** The median of values (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median absolute deviation of values from `center`. */
export const medianAbsoluteDeviation = (values: readonly number[], center: number): number => median(values.map((value) => Math.abs(value - center)));

/** Counts (events, warnings, persons) vary like Poisson counts at least: sqrt(median), and never below 1. */
export const countScaleFloor = (baseline: number): number => Math.max(Math.sqrt(Math.max(baseline, 0)), 1);

/** A conversion in points varies at least like a binomial share of `entered` persons; never below conversionScaleFloorPoints. */
export function conversionScaleFloor(baselinePoints: number, entered: number): number {
  const share = Math.min(Math.max(baselinePoints / 100, 0), 1);
  const binomial = entered > 0 ? 100 * Math.sqrt((share * (1 - share)) / entered) : 0;
  return Math.max(binomial, conversionScaleFloorPoints);
}

/** A mean metric has no natural noise level: meanScaleFloorRatio of its baseline, and never 0. */
export const meanScaleFloor = (baseline: number): number => Math.max(Math.abs(baseline) * meanScaleFloorRatio, Number.EPSILON);

/** (value - median) / max(1.4826 x MAD, floor). */
export function robustZ(value: number, history: readonly number[], floor: number): number {
  const center = median(history);
  const scale = Math.max(madToSigma * medianAbsoluteDeviation(history, center), floor);
  return (value - center) / scale;
}

export function severityOfScore(score: number): Severity {
  if (score >= criticalScoreMin) return "critical";
  if (score >= warningScoreMin) return "warning";
  return "info";
}

/** What a rule is told about one period. */
export interface Observation {
  value: number;
  /** The same period in each previous week that had one (oldest first or any order). */
  history: readonly number[];
  /** The size min_volume is compared with, now and as the history's median (counts: the value itself; conversions: persons who entered). */
  volume: number;
  baselineVolume: number;
  /** The z-score's scale floor for this target (countScaleFloor, conversionScaleFloor, meanScaleFloor). */
  scaleFloor: number;
}

export interface Judgement {
  value: number;
  baseline: number;
  change: number;
  /** null when the baseline is 0. */
  relativeChange: number | null;
  /** The robust z-score (always computed; a finding shows it only when the rule sets anomaly_z). */
  anomalyZ: number;
  /** The smallest observed / threshold ratio over the thresholds set: at least 1 when every one is crossed. */
  score: number;
  severity: Severity;
}

const goesDirection = (direction: Direction, change: number) => (direction === "drop" ? change < 0 : direction === "spike" ? change > 0 : change !== 0);

/** The judgement of a period when it crosses every threshold set in the rule's direction; null when not (or too small to judge). */
export function judge(thresholds: Thresholds, observation: Observation): Judgement | null {
  const { value, history } = observation;
  if (history.length === 0 || !Number.isFinite(value)) return null;
  if (Math.max(observation.volume, observation.baselineVolume) < thresholds.min_volume) return null;
  const baseline = median(history);
  const change = value - baseline;
  if (!goesDirection(thresholds.direction, change)) return null;
  const relativeChange = baseline === 0 ? null : change / Math.abs(baseline);
  const anomalyZ = robustZ(value, history, observation.scaleFloor);
  const ratios: number[] = [];
  if (thresholds.absolute_change !== null) ratios.push(Math.abs(change) / thresholds.absolute_change);
  // From a baseline of 0 any change is an infinite relative change.
  if (thresholds.relative_change !== null) ratios.push(relativeChange === null ? Number.POSITIVE_INFINITY : Math.abs(relativeChange) / thresholds.relative_change);
  if (thresholds.anomaly_z !== null) ratios.push(Math.abs(anomalyZ) / thresholds.anomaly_z);
  if (ratios.length === 0) return null;
  const score = Math.min(...ratios);
  if (!(score >= 1)) return null;
  return { value, baseline, change, relativeChange, anomalyZ, score, severity: severityOfScore(score) };
}
