// Interval buckets in SQL as integer arithmetic on UTC: a row's wall-clock time in the
// project's zone is its epoch milliseconds plus the zone's UTC offset at that instant, and the
// offsets over the query's span (found by engine/zone-offsets.ts, the executor's own) are
// written into the SQL as constants, so DST changes move rows exactly as the executor moves
// them. DuckDB's timezone() per row costs about 20x more (ICU for every row), and formatting
// a label per row more still: rows are grouped by an integer key and only the groups get
// their labels.
//
// Keys: hour = local hours since 1970-01-01, day = local days, week = the day number of the
// week's Monday (1970-01-01 was a Thursday), month = months since January 1970.
import type { BucketInterval } from "../time-zone.ts";
import { ZoneOffsets, type ZoneSegment } from "../zone-offsets.ts";

const hourMs = 3_600_000;
const dayMs = 86_400_000;
/** January 1970 as the executor numbers months (year * 12 + month index). */
const executorMonthOfEpoch = 1970 * 12;
/** Segments a CASE lists one after the other; longer spans nest comparisons (log depth per row). */
const flatSegmentsMax = 4;

const instantLiteral = (instant: number) => `TIMESTAMPTZ '${new Date(instant).toISOString().replace("T", " ").replace(".000Z", "Z").replace("Z", "+00")}'`;

/** The offset in force at `column`, given the segments covering every instant it can hold. */
function offsetSql(segments: ZoneSegment[], column: string): string {
  if (segments.length === 1) return String(segments[0]!.offset);
  if (segments.length <= flatSegmentsMax) {
    const whens = segments.slice(1).map((segment, index) => `WHEN ${column} < ${instantLiteral(segment.start)} THEN ${segments[index]!.offset}`);
    return `CASE ${whens.join(" ")} ELSE ${segments[segments.length - 1]!.offset} END`;
  }
  const middle = segments.length >> 1;
  return `CASE WHEN ${column} < ${instantLiteral(segments[middle]!.start)} THEN ${offsetSql(segments.slice(0, middle), column)} ELSE ${offsetSql(segments.slice(middle), column)} END`;
}

/** How one query's rows become bucket keys: the zone and the span of instants that are bucketed. */
export interface LocalSpan {
  interval: BucketInterval;
  timeZone: string;
  /** Rows bucketed lie in [from, to). */
  from: number;
  to: number;
}

/** `column`'s wall-clock time in the zone as milliseconds since 1970-01-01 00:00 local. */
export function localMsSql(span: LocalSpan, column = "e.timestamp"): string {
  const segments = ZoneOffsets.of(span.timeZone).segments(span.from, span.to);
  return `epoch_ms(${column}) + ${offsetSql(segments, column)}`;
}

/** Integer division rounding down: `//` truncates toward zero, which differs only before 1970 (local). */
function divide(span: LocalSpan, dividend: string, divisor: number): string {
  const earliestLocal = span.from + ZoneOffsets.of(span.timeZone).offsetIn(span.from);
  return earliestLocal >= 7 * dayMs ? `(${dividend}) // ${divisor}` : `fdiv(${dividend}, ${divisor})`;
}

/** The bucket key of `column` (an instant in the span). */
export function bucketKeySql(span: LocalSpan, column = "e.timestamp"): string {
  const local = localMsSql(span, column);
  switch (span.interval) {
    case "hour":
      return divide(span, local, hourMs);
    case "day":
      return divide(span, local, dayMs);
    case "week":
      return `${divide(span, `${divide(span, local, dayMs)} + 3`, 7)} * 7 - 3`;
    case "month":
      return `datediff('month', TIMESTAMP '1970-01-01', make_timestamp((${local}) * 1000))`;
  }
}

/** A key's label, as the executor labels buckets (engine/time-zone.ts bucketLabel). */
export function bucketLabelSql(interval: BucketInterval, key: string): string {
  switch (interval) {
    case "hour":
      return `strftime(make_timestamp(${key} * ${hourMs * 1000}), '%Y-%m-%dT%H:00')`;
    case "day":
    case "week":
      return `strftime(DATE '1970-01-01' + CAST(${key} AS INTEGER), '%Y-%m-%d')`;
    case "month":
      return `strftime(DATE '1970-01-01' + to_months(CAST(${key} AS INTEGER)), '%Y-%m')`;
  }
}

/** The SQL key of an executor bucket key (engine/time-zone.ts bucketKey). */
export const sqlBucketKey = (interval: BucketInterval, executorKey: number) => (interval === "month" ? executorKey - executorMonthOfEpoch : executorKey);
