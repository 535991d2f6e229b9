// Annotations on a time chart: each one's instant becomes the label of the bucket it falls in,
// in the project's time zone (the labels the engine writes: `2026-11-14`, `2026-11-14T05:00`,
// `2026-11`, weeks by their Monday), and is drawn there when the chart has that bucket.
import type { AnnotationDto } from "../api/insight-types.ts";
import type { CategoryMark } from "./series-chart.ts";

const parts = (instant: Date, timeZone: string) => {
  const fields = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", hourCycle: "h23" }).formatToParts(instant);
  const field = (type: string) => fields.find((part) => part.type === type)?.value ?? "";
  return { year: field("year"), month: field("month"), day: field("day"), hour: field("hour") };
};

/** The label of the bucket holding `iso` in the zone, for the engine's intervals. */
export function bucketLabelOf(iso: string, interval: string, timeZone: string): string {
  const { year, month, day, hour } = parts(new Date(iso), timeZone);
  if (interval === "hour") return `${year}-${month}-${day}T${hour}:00`;
  if (interval === "month") return `${year}-${month}`;
  if (interval === "week") {
    const local = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
    const sinceMonday = (local.getUTCDay() + 6) % 7;
    return new Date(local.getTime() - sinceMonday * 86_400_000).toISOString().slice(0, 10);
  }
  return `${year}-${month}-${day}`;
}

export interface PlacedAnnotation {
  annotation: AnnotationDto;
  bucket: string;
}

/** The annotations that fall in one of `buckets`, oldest first. */
export function placeAnnotations(annotations: readonly AnnotationDto[], buckets: readonly string[], interval: string, timeZone: string): PlacedAnnotation[] {
  const shown = new Set(buckets);
  return annotations
    .map((annotation) => ({ annotation, bucket: bucketLabelOf(annotation.occurred_at, interval, timeZone) }))
    .filter(({ bucket }) => shown.has(bucket))
    .sort((a, b) => a.annotation.occurred_at.localeCompare(b.annotation.occurred_at));
}

export const annotationMarks = (placed: readonly PlacedAnnotation[]): CategoryMark[] => placed.map(({ annotation, bucket }) => ({ category: bucket, caption: annotation.content }));

/**
 * The instants to ask GET …/annotations for, given a chart's bucket labels: a day either side
 * of the labels read as UTC covers every zone's offset; placeAnnotations keeps the right ones.
 */
export function annotationWindow(buckets: readonly string[], interval: string): { from: string; to: string } | null {
  const first = buckets[0];
  const last = buckets.at(-1);
  if (!first || !last) return null;
  const day = 86_400_000;
  const span = { hour: 3_600_000, day, week: 7 * day, month: 31 * day }[interval] ?? day;
  const start = Date.parse(first.length === 7 ? `${first}-01` : first.length === 16 ? `${first}:00Z` : first);
  const end = Date.parse(last.length === 7 ? `${last}-01` : last.length === 16 ? `${last}:00Z` : last);
  if (Number.isNaN(start) || Number.isNaN(end)) return null;
  return { from: new Date(start - day).toISOString(), to: new Date(end + span + day).toISOString() };
}
