// Words for what a result's numbers are: series names, breakdown values, bucket labels and
// funnel times. Everything here is text; data-derived parts stay as they came.
import type { QueryIrDocument, TrendsRow } from "../api/query-types.ts";

const mathLabels: Record<string, string> = {
  total: "Total",
  unique_persons: "Unique persons",
  unique_sessions: "Unique sessions",
  unique_groups: "Unique groups",
  sum: "Sum",
  avg: "Average",
  min: "Minimum",
  max: "Maximum",
  p50: "Median",
  p90: "90th percentile",
  p99: "99th percentile",
};

export const mathLabel = (math: string) => mathLabels[math] ?? math;

export const eventLabel = (event: string | null) => event ?? "All events";

/** A breakdown value as shown: absent values and the rest-of-values row get words of their own. */
export function breakdownLabel(value: string | null | undefined, other: boolean | undefined): string {
  if (other) return "Other values";
  if (value === null) return "(none)";
  if (value === "") return "(empty)";
  return value ?? "";
}

/** "signed_up · Unique persons · Chrome": the series' event, its math (and property), its breakdown value. */
export function trendsRowLabel(row: TrendsRow, query: QueryIrDocument): string {
  const series = query.insight.series?.[row.series];
  const math = series?.property && row.math !== "total" && row.math !== "unique_persons" ? `${mathLabel(row.math)} of ${series.property}` : mathLabel(row.math);
  const parts = [eventLabel(row.event), math];
  if (row.breakdown_value !== undefined || row.breakdown_other) parts.push(breakdownLabel(row.breakdown_value, row.breakdown_other));
  return parts.join(" · ");
}

const monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A bucket's label (already the project's local time: `2026-11-14`, `2026-11-14T05:00`,
 * `2026-11`) written short for an axis: "Nov 14", "Nov 14 05:00", "Nov 2026".
 */
export function shortBucketLabel(label: string): string {
  const match = /^(\d{4})-(\d{2})(?:-(\d{2}))?(?:T(\d{2}:\d{2}))?$/.exec(label);
  if (!match) return label;
  const [, year, month, day, time] = match;
  const monthName = monthNames[Number(month) - 1] ?? month;
  if (day === undefined) return `${monthName} ${year}`;
  return time === undefined ? `${monthName} ${Number(day)}` : `${monthName} ${Number(day)} ${time}`;
}

/** Seconds as the largest units that say them: "45s", "3m 20s", "2h 5m", "3d 4h". */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const units: [string, number][] = [["d", 86_400], ["h", 3_600], ["m", 60], ["s", 1]];
  const parts: string[] = [];
  let left = whole;
  for (const [unit, size] of units) {
    if (left >= size || (parts.length === 0 && unit === "s")) {
      parts.push(`${Math.floor(left / size)}${unit}`);
      left %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(" ");
}

const intervalNouns: Record<string, [string, string]> = { hour: ["hour", "hours"], day: ["day", "days"], week: ["week", "weeks"], month: ["month", "months"] };

/** "1 day", "3 weeks": a stickiness column. */
export function intervalCount(count: number, interval: string): string {
  const [one, many] = intervalNouns[interval] ?? [interval, interval];
  return `${count} ${count === 1 ? one : many}`;
}
