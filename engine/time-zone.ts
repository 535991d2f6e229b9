// Calendar arithmetic in a project's IANA time zone. Intervals bucket events by local time
// (a day is a local calendar day, so a DST day has 23 or 25 hours); a bucket's label is its
// local start as text. Offsets come from Intl; rows look theirs up in ZoneOffsets, which
// keeps each zone's transitions (zone-offsets.ts).

const hourMs = 3_600_000;
export const dayMs = 86_400_000;

export interface LocalTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric",
    });
    formatters.set(zone, format);
  }
  return format;
}

export function isTimeZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

export function localTime(zone: string, instant: number): LocalTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(instant))) if (part.type !== "literal") parts[part.type] = Number(part.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** Local minus UTC at `instant`, in ms (whole seconds; sub-second instants keep their fraction out). */
export function offsetAt(zone: string, instant: number): number {
  const whole = Math.floor(instant / 1000) * 1000;
  const local = localTime(zone, whole);
  return Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - whole;
}

/**
 * The instant a local wall-clock time names. In a DST gap (the time never happens) it is the
 * first instant after the gap; in an overlap (it happens twice), the earlier one.
 */
export function instantOf(zone: string, year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const naive = Date.UTC(year, month - 1, day, hour, minute, second);
  const before = naive - offsetAt(zone, naive - dayMs);
  const after = naive - offsetAt(zone, naive + dayMs);
  const candidates = [before, after].filter((instant) => instant + offsetAt(zone, instant) === naive).sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0]!;
  // A gap: the wall clock jumps over `naive`; the first instant after it is where the new offset starts.
  let low = Math.min(before, after);
  let high = Math.max(before, after);
  const lowOffset = offsetAt(zone, low);
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (offsetAt(zone, middle) === lowOffset) low = middle;
    else high = middle;
  }
  return high;
}

export type BucketInterval = "hour" | "day" | "week" | "month";

/**
 * The bucket of a local (naive) time as a number that orders like time: hours or days since
 * 1970 in local terms, weeks by their Monday, months as year * 12 + month.
 */
export function bucketKey(interval: BucketInterval, naive: number): number {
  if (interval === "hour") return Math.floor(naive / hourMs);
  const days = Math.floor(naive / dayMs);
  if (interval === "day") return days;
  // 1970-01-01 was a Thursday: shift so weeks start on Monday (ISO, as DuckDB's date_trunc).
  if (interval === "week") return days - ((days + 3) % 7 + 7) % 7;
  const date = new Date(days * dayMs);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

/** A bucket's local start as a naive time (ms, wall clock read as UTC). */
export function bucketNaiveStart(interval: BucketInterval, key: number): number {
  if (interval === "hour") return key * hourMs;
  if (interval === "month") return Date.UTC(Math.floor(key / 12), key % 12, 1);
  return key * dayMs;
}

/** The first instant of a bucket in `zone` (after a DST gap when its wall-clock start never happens). */
function bucketStart(interval: BucketInterval, zone: string, key: number): number {
  const start = new Date(bucketNaiveStart(interval, key));
  return instantOf(zone, start.getUTCFullYear(), start.getUTCMonth() + 1, start.getUTCDate(), start.getUTCHours());
}

/** The bucket key of an instant in `zone`. */
export const bucketKeyAt = (interval: BucketInterval, zone: string, instant: number) => bucketKey(interval, instant + offsetAt(zone, instant));

/** The first instant of the bucket holding `instant` in `zone`. */
export const bucketStartAt = (interval: BucketInterval, zone: string, instant: number) => bucketStart(interval, zone, bucketKeyAt(interval, zone, instant));

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The label of a bucket: its local start as YYYY-MM-DD (day, week), YYYY-MM (month) or YYYY-MM-DDTHH:00 (hour). */
export function bucketLabel(interval: BucketInterval, key: number): string {
  if (interval === "month") return `${pad(Math.floor(key / 12), 4)}-${pad((key % 12) + 1)}`;
  const date = new Date(interval === "hour" ? key * hourMs : key * dayMs);
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  return interval === "hour" ? `${day}T${pad(date.getUTCHours())}:00` : day;
}
