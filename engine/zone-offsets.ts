// A zone's UTC offsets over time, found one UTC year at a time when first needed and kept for
// the process. Within a year, transitions are found by sampling daily and bisecting to the
// minute (about 365 Intl calls, 2-3 ms), so a query pays only for the years its rows and its
// range's edges fall in, never for the whole range: a range of centuries costs what a day does.
import { dayMs, offsetAt } from "./time-zone.ts";

const minuteMs = 60_000;

/** One UTC year: `offsets[i]` is in force from `starts[i]` (starts[0] is the year's first instant) to the next start. */
interface YearOffsets {
  starts: number[];
  offsets: number[];
  /** The next year's first instant. */
  end: number;
}

const utcYear = (instant: number) => new Date(instant).getUTCFullYear();
const yearStart = (year: number) => new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(year);

/** An offset (local minus UTC, ms) in force from `start` until the next segment's start. */
export interface ZoneSegment {
  start: number;
  offset: number;
}

export class ZoneOffsets {
  private static readonly zones = new Map<string, ZoneOffsets>();

  /** The shared offsets of `zone` (an IANA name already checked with isTimeZone). */
  static of(zone: string): ZoneOffsets {
    let offsets = ZoneOffsets.zones.get(zone);
    if (!offsets) {
      offsets = new ZoneOffsets(zone);
      ZoneOffsets.zones.set(zone, offsets);
    }
    return offsets;
  }

  private readonly years = new Map<number, YearOffsets>();
  // The span of the last lookup, where one offset holds: rows of a chunk mostly fall in it.
  private segmentStart = Infinity;
  private segmentEnd = -Infinity;
  private segmentOffset = 0;

  private constructor(readonly zone: string) {}

  /** Local minus UTC at `instant`, in ms. */
  offsetIn(instant: number): number {
    if (instant >= this.segmentStart && instant < this.segmentEnd) return this.segmentOffset;
    const year = this.year(utcYear(instant));
    let index = year.starts.length - 1;
    while (index > 0 && instant < year.starts[index]!) index--;
    this.segmentStart = year.starts[index]!;
    this.segmentEnd = year.starts[index + 1] ?? year.end;
    this.segmentOffset = year.offsets[index]!;
    return this.segmentOffset;
  }

  /** Whether the offset changes at some instant t with from < t <= to. */
  changesWithin(from: number, to: number): boolean {
    if (to <= from) return false;
    const first = utcYear(from);
    const last = utcYear(to);
    for (let number = first; number <= last; number++) {
      const year = this.year(number);
      for (let index = 1; index < year.starts.length; index++) {
        if (year.starts[index]! > from && year.starts[index]! <= to) return true;
      }
      // A change exactly at the turn of a year shows only as two years' different offsets.
      if (number > first && this.year(number - 1).offsets.at(-1) !== year.offsets[0]) return true;
    }
    return false;
  }

  /** The offsets in force over [from, to), in order: each from its `start` (the first from `from`) to the next one's. */
  segments(from: number, to: number): ZoneSegment[] {
    const segments: ZoneSegment[] = [{ start: from, offset: this.offsetIn(from) }];
    for (let number = utcYear(from); number <= utcYear(to - 1); number++) {
      const year = this.year(number);
      year.starts.forEach((start, index) => {
        const offset = year.offsets[index]!;
        if (start > from && start < to && offset !== segments[segments.length - 1]!.offset) segments.push({ start, offset });
      });
    }
    return segments;
  }

  private year(number: number): YearOffsets {
    let year = this.years.get(number);
    if (!year) {
      year = this.computeYear(number);
      this.years.set(number, year);
    }
    return year;
  }

  private computeYear(number: number): YearOffsets {
    const start = yearStart(number);
    const end = yearStart(number + 1);
    const starts = [start];
    const offsets = [offsetAt(this.zone, start)];
    for (let at = start; at < end; at += dayMs) {
      const next = Math.min(at + dayMs, end);
      if (offsetAt(this.zone, next) === offsets[offsets.length - 1]) continue;
      let low = at;
      let high = next;
      while (high - low > minuteMs) {
        const middle = low + Math.floor((high - low) / 2 / minuteMs) * minuteMs || low + minuteMs;
        if (offsetAt(this.zone, middle) === offsets[offsets.length - 1]) low = middle;
        else high = middle;
      }
      // A change at the next year's first instant is that year's starting offset.
      if (high >= end) break;
      starts.push(high);
      offsets.push(offsetAt(this.zone, high));
    }
    return { starts, offsets, end };
  }
}
