// A query's interval buckets: their labels in order, and each row's bucket number, computed
// from the row's instant plus the zone's offset at that instant (ZoneOffsets, so a DST change
// mid-range moves rows to the right local day).
import { bucketKey, bucketLabel, bucketNaiveStart, type BucketInterval } from "./time-zone.ts";
import { ZoneOffsets } from "./zone-offsets.ts";
import type { Query } from "./ir/query.ts";

const hourMs = 3_600_000;
/**
 * Local hours a range can hold beyond its naive span's count less: hours a DST change skips
 * are no bucket, so a span's count can exceed its true count by at most the hours skipped
 * (a change or two a year, of up to a day in the zones that skipped one).
 */
const skippedHoursSlack = 72;

/** The first and last bucket keys of instants in [from, to). */
function edgeKeys(interval: BucketInterval, offsets: ZoneOffsets, from: number, to: number): [first: number, last: number] {
  return [bucketKey(interval, from + offsets.offsetIn(from)), bucketKey(interval, to - 1 + offsets.offsetIn(to - 1))];
}

/** The bucket keys that instants in [from, to) fall into, in order (an hour a DST change skips is not one). */
export function bucketKeys(interval: BucketInterval, offsets: ZoneOffsets, from: number, to: number): number[] {
  const [first, last] = edgeKeys(interval, offsets, from, to);
  const keys: number[] = [];
  if (interval === "hour") {
    const push = (key: number) => {
      if (keys.length === 0 || keys[keys.length - 1]! < key) keys.push(key);
    };
    for (let at = Math.floor(from / hourMs) * hourMs; at < to; at += hourMs) push(bucketKey(interval, Math.max(at, from) + offsets.offsetIn(Math.max(at, from))));
    push(last);
    return keys;
  }
  const step = interval === "week" ? 7 : 1;
  for (let key = first; key <= last; key += step) keys.push(key);
  return keys;
}

/**
 * How many buckets [from, to) has, without listing them when there are more than `max`
 * (then possibly a few more than the true count for hours): O(1) in the range's length.
 */
export function bucketCount(interval: BucketInterval, zone: string, from: number, to: number, max: number): number {
  const offsets = ZoneOffsets.of(zone);
  const [first, last] = edgeKeys(interval, offsets, from, to);
  const span = (last - first) / (interval === "week" ? 7 : 1) + 1;
  if (interval !== "hour" || span > max + skippedHoursSlack) return span;
  return bucketKeys(interval, offsets, from, to).length;
}

/**
 * The buckets of instants in one span that crosses at most two bucket boundaries, as integer
 * ms after `base` (the span's start): an instant at `base + t` is in bucket `first`, plus one
 * if t >= second, plus one if t >= third (int32 max when the span has no such boundary).
 */
interface SpanBuckets {
  base: number;
  first: number;
  second: number;
  third: number;
}

/** Longest span spanBuckets takes, so every instant's distance from its start is an int32. */
const spanMsMax = 2 ** 30;
const noBoundary = 2 ** 31 - 1;

export class BucketMap {
  readonly labels: string[];
  readonly count: number;
  private readonly offsets: ZoneOffsets;
  private readonly keys: number[];
  private readonly firstKey: number;
  private readonly slots: Int32Array;
  private readonly interval: BucketInterval;

  constructor(private readonly query: Pick<Query, "interval" | "timeZone" | "from" | "to">) {
    this.interval = query.interval;
    this.offsets = ZoneOffsets.of(query.timeZone);
    this.keys = bucketKeys(query.interval, this.offsets, query.from, query.to);
    this.labels = this.keys.map((key) => bucketLabel(query.interval, key));
    this.count = this.keys.length;
    this.firstKey = this.keys[0]!;
    this.slots = new Int32Array(this.keys[this.keys.length - 1]! - this.firstKey + 1).fill(-1);
    this.keys.forEach((key, slot) => (this.slots[key - this.firstKey] = slot));
  }

  /** The bucket of an instant inside the query's range. */
  bucketOf(instant: number): number {
    return this.slots[bucketKey(this.interval, instant + this.offsets.offsetIn(instant)) - this.firstKey]!;
  }

  /**
   * The bucket of each selected row of a chunk whose instants lie in [low, high], written into
   * `out` at the row's index (other rows: unspecified); `out` is at least as long as the chunk.
   * Most chunks (a part is one UTC day) span two or three buckets: then every row's bucket is
   * two integer comparisons, without branches (a row's side of a boundary is unpredictable).
   */
  rowBuckets(timestamps: Float64Array, selection: Uint32Array, low: number, high: number, out: Int32Array): Int32Array {
    const span = this.spanBuckets(low, high);
    if (span === null) {
      for (let i = 0; i < selection.length; i++) {
        const row = selection[i]!;
        out[row] = this.bucketOf(timestamps[row]!);
      }
      return out;
    }
    const base = span.base;
    const first = span.first | 0;
    const second = (span.second - 1) | 0;
    const third = (span.third - 1) | 0;
    for (let row = 0; row < timestamps.length; row++) {
      const t = (timestamps[row]! - base) | 0;
      out[row] = first + ((second - t) >>> 31) + ((third - t) >>> 31);
    }
    return out;
  }

  /**
   * Buckets of the query's instants in [low, high] (inclusive) as boundaries, or null when the
   * span is long or crosses an offset change or more than two bucket boundaries. One offset
   * holds over the whole span, so its buckets start at instants computed from their local starts.
   */
  private spanBuckets(low: number, high: number): SpanBuckets | null {
    if (high - low >= spanMsMax) return null;
    const from = Math.max(low, this.query.from);
    const to = Math.min(high, this.query.to - 1);
    if (from > to) return { base: low, first: 0, second: noBoundary, third: noBoundary };
    if (this.offsets.changesWithin(from, to)) return null;
    const first = this.bucketOf(from);
    const last = this.bucketOf(to);
    if (last - first > 2) return null;
    const offset = this.offsets.offsetIn(from);
    const startOf = (slot: number) => (slot <= last ? bucketNaiveStart(this.interval, this.keys[slot]!) - offset - low : noBoundary);
    return { base: low, first, second: startOf(first + 1), third: startOf(first + 2) };
  }
}
