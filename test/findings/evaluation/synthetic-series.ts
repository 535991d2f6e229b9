// A seeded synthetic hourly event count with weekly seasonality and Poisson noise: the series
// the false-alarm rate in docs/findings-evaluation.md is measured on. An hour's mean follows a
// daily curve from 60 (03:00) to 500 (15:00) on weekdays, 0.6 of it on Saturdays and Sundays.
import { mulberry32 } from "../../../bench/ingest/generator.ts";

export const hoursPerWeek = 168;

/** The mean count of hour `hourOfWeek` (0: Monday 00:00). */
export function hourlyMean(hourOfWeek: number): number {
  const day = Math.floor(hourOfWeek / 24);
  const hour = hourOfWeek % 24;
  const daily = 60 + 440 * (0.5 - 0.5 * Math.cos((2 * Math.PI * (hour - 3)) / 24));
  return day >= 5 ? 0.6 * daily : daily;
}

/** A Poisson draw by inversion (means up to a few hundred: e^-mean stays a normal double). */
export function poisson(random: () => number, mean: number): number {
  let count = 0;
  let probability = Math.exp(-mean);
  let cumulative = probability;
  const u = random();
  while (u > cumulative && probability > 0) {
    count++;
    probability *= mean / count;
    cumulative += probability;
  }
  return count;
}

/** `weeks` weeks of hourly counts (week-major: index week * 168 + hourOfWeek). */
export function syntheticWeeks(seed: number, weeks: number): Int32Array {
  const random = mulberry32(seed);
  const series = new Int32Array(weeks * hoursPerWeek);
  for (let index = 0; index < series.length; index++) series[index] = poisson(random, hourlyMean(index % hoursPerWeek));
  return series;
}

/** The same hour in the `baselineWeeks` weeks before `week`. */
export const historyOf = (series: Int32Array, week: number, hourOfWeek: number, baselineWeeks: number): number[] =>
  Array.from({ length: baselineWeeks }, (_, index) => series[(week - baselineWeeks + index) * hoursPerWeek + hourOfWeek]!);
