// Per-unit metric values. A unit's window is [exposure, min(exposure + attribution window,
// end)): a proportion is 1 when the unit did the metric's event in it, else 0; a mean is the
// sum of the event's numeric property over it (the count of events without a property; events
// whose property is missing or not a number add nothing). CUPED's covariate for a mean is
// the same sum over [exposure - pre-period, exposure). Units without events keep 0.
import { dayMs } from "../../../engine/time-zone.ts";
import type { StatsMetricSpec } from "./stats-request.ts";
import type { SnapshotReader } from "./snapshot-reader.ts";
import type { Units } from "./exposures.ts";

/**
 * Per-unit values one pass holds at most (8 bytes each: 128 MiB). Metrics past it are read in
 * further passes over the same chunks (the column cache keeps them), so memory stays bounded
 * whatever the number of units times metrics.
 */
export const unitValuesPerPassMax = 16 * 1024 * 1024;

export interface ValueWindows {
  windowMs: number;
  /** Where every window ends: end_at, or now. */
  end: number;
  /** CUPED's pre-period in days; null when CUPED is off. */
  prePeriodDays: number | null;
}

export interface UnitValues {
  values: Float64Array;
  /** Mean metrics under CUPED only. */
  covariates: Float64Array | null;
}

const takesCovariate = (metric: StatsMetricSpec, windows: ValueWindows) => metric.kind === "mean" && windows.prePeriodDays !== null;

/** The metrics split into passes of at most unitValuesPerPassMax values (a metric never splits). */
export function metricPasses(metrics: StatsMetricSpec[], unitCount: number, windows: ValueWindows): StatsMetricSpec[][] {
  const passes: StatsMetricSpec[][] = [];
  let current: StatsMetricSpec[] = [];
  let held = 0;
  for (const metric of metrics) {
    const size = unitCount * (takesCovariate(metric, windows) ? 2 : 1);
    if (current.length > 0 && held + size > unitValuesPerPassMax) {
      passes.push(current);
      current = [];
      held = 0;
    }
    current.push(metric);
    held += size;
  }
  if (current.length > 0) passes.push(current);
  return passes;
}

/** One pass over the chunks: the values of `metrics` for every unit, in `metrics` order. */
export async function readUnitValues(reader: SnapshotReader, units: Units, metrics: StatsMetricSpec[], windows: ValueWindows): Promise<UnitValues[]> {
  const out = metrics.map((metric): UnitValues => ({
    values: new Float64Array(units.count),
    covariates: takesCovariate(metric, windows) ? new Float64Array(units.count) : null,
  }));
  if (units.count === 0) return out;
  const unitOf = new Map<number, number>();
  units.persons.forEach((person, unit) => unitOf.set(person, unit));
  const preMs = (windows.prePeriodDays ?? 0) * dayMs;
  let earliest = Infinity;
  for (const at of units.exposedAt) earliest = Math.min(earliest, at);
  const properties = [...new Set(metrics.flatMap((metric) => (metric.property === null ? [] : [metric.property])))];

  for (const ref of reader.chunksIn(earliest - preMs, windows.end)) {
    const chunk = await reader.load(ref, properties);
    // Metric indexes by the chunk's code of their event (an array: one lookup per row).
    const metricsOfCode: (number[] | undefined)[] = [];
    metrics.forEach((metric, index) => {
      const code = chunk.events.words.indexOf(metric.event);
      if (code >= 0) (metricsOfCode[code] ??= []).push(index);
    });
    if (metricsOfCode.length === 0) continue;
    const numbersOf = new Map<string, Float64Array>();
    const amounts = metrics.map((metric) => {
      if (metric.property === null) return null;
      let numbers = numbersOf.get(metric.property);
      if (!numbers) numbersOf.set(metric.property, (numbers = chunk.propertyNumbers(metric.property)));
      return numbers;
    });
    const events = chunk.events.codes;
    const timestamps = chunk.timestamps;
    for (let row = 0; row < chunk.rows; row++) {
      const indexes = metricsOfCode[events[row]!];
      if (!indexes) continue;
      const unit = unitOf.get(chunk.persons[row]!);
      if (unit === undefined) continue;
      const at = timestamps[row]!;
      const exposedAt = units.exposedAt[unit]!;
      const inWindow = at >= exposedAt && at < Math.min(exposedAt + windows.windowMs, windows.end);
      const inPrePeriod = !inWindow && at < exposedAt && at >= exposedAt - preMs;
      if (!inWindow && !inPrePeriod) continue;
      for (const index of indexes) {
        const numbers = amounts[index];
        const amount = numbers ? numbers[row]! : 1;
        if (Number.isNaN(amount)) continue;
        const target = out[index]!;
        if (inWindow) {
          if (metrics[index]!.kind === "proportion") target.values[unit] = 1;
          else target.values[unit]! += amount;
        } else if (target.covariates) target.covariates[unit]! += amount;
      }
    }
  }
  return out;
}
