// The periods a rule judges, in the project's time zone (docs/findings-evaluation.md): an
// hourly rule the last complete local hour, a daily rule the last complete local day, once
// that period ended at least evaluationDelayMs ago so events sent late (SDK queues, mobile
// apps coming back online) are counted. Its baseline periods are the same local hour of the
// same weekday (hourly) or the same weekday (daily) in each of the previous weeks.
import { bucketKeyAt, bucketLabel, bucketNaiveStart, instantOf, type BucketInterval } from "../../../engine/time-zone.ts";
import type { Cadence } from "../findings-types.ts";

/** How long after a period's end it is judged: events arriving later than this are not seen by the judgement. */
export const evaluationDelayMs = 10 * 60_000;
const hoursPerWeek = 7 * 24;
const daysPerWeek = 7;

export interface Period {
  cadence: Cadence;
  /** The period's bucket in local time (engine/time-zone.ts bucketKey: hours or days since 1970, local). */
  key: number;
  /** [start, end): epoch ms. start === end for a local hour a DST change skips. */
  start: number;
  end: number;
}

const hourMs = 3_600_000;

/**
 * Whether a period can be judged or serve as a baseline: an hourly period must be one real hour.
 * A local hour a DST change skips is empty, and the hour it repeats spans two real hours (its
 * start is the first of the two instants the local time names): judged, it would read as a
 * doubling. Local days of 23 or 25 hours are kept (a 4% difference, below any threshold's reach).
 */
export const isJudgeable = (period: Period): boolean => (period.cadence === "hourly" ? period.end - period.start === hourMs : period.end > period.start);

export const intervalOf = (cadence: Cadence): BucketInterval => (cadence === "hourly" ? "hour" : "day");

const localStart = (interval: BucketInterval, zone: string, key: number): number => {
  const naive = new Date(bucketNaiveStart(interval, key));
  return instantOf(zone, naive.getUTCFullYear(), naive.getUTCMonth() + 1, naive.getUTCDate(), naive.getUTCHours());
};

export function periodAt(cadence: Cadence, zone: string, key: number): Period {
  const interval = intervalOf(cadence);
  return { cadence, key, start: localStart(interval, zone, key), end: localStart(interval, zone, key + 1) };
}

/** The latest period whose end is at least evaluationDelayMs before `now`. */
export function latestDuePeriod(cadence: Cadence, zone: string, now: number, delayMs = evaluationDelayMs): Period {
  // The period holding (now - delay) has not ended delayMs ago; the one before it has.
  return periodAt(cadence, zone, bucketKeyAt(intervalOf(cadence), zone, now - delayMs) - 1);
}

/** The same period in each of the `weeks` previous weeks, oldest first. */
export function baselinePeriods(period: Period, zone: string, weeks: number): Period[] {
  const step = period.cadence === "hourly" ? hoursPerWeek : daysPerWeek;
  return Array.from({ length: weeks }, (_, index) => periodAt(period.cadence, zone, period.key - (weeks - index) * step));
}

/** The label the engine gives the period's bucket (trends' `buckets`). */
export const periodLabel = (period: Period): string => bucketLabel(intervalOf(period.cadence), period.key);

const weekdays = ["Sundays", "Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays"];

/** "Mondays 14:00–15:00" (hourly) or "Mondays" (daily), in local time: what the baseline compares with. */
export function periodDescription(period: Period): string {
  const naive = new Date(bucketNaiveStart(intervalOf(period.cadence), period.key));
  const weekday = weekdays[naive.getUTCDay()]!;
  if (period.cadence === "daily") return weekday;
  const hour = naive.getUTCHours();
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${weekday} ${pad(hour)}:00–${pad((hour + 1) % 24)}:00`;
}
