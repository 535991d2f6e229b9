// A query's interval buckets: their labels in order, and each row's bucket number, computed
// from the row's instant plus the zone's offset at that instant (offsets from a table built
// once per query, so a DST change mid-range moves rows to the right local day).
import { bucketKey, bucketKeys, bucketLabel, bucketNaiveStart, offsetIn, offsetTable, type BucketInterval, type OffsetTable } from "./time-zone.ts";
import type { Query } from "./ir/query.ts";

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
  private readonly table: OffsetTable;
  private readonly keys: number[];
  private readonly firstKey: number;
  private readonly slots: Int32Array;
  private readonly interval: BucketInterval;

  constructor(private readonly query: Pick<Query, "interval" | "timeZone" | "from" | "to">) {
    this.interval = query.interval;
    this.table = offsetTable(query.timeZone, query.from, query.to);
    this.keys = bucketKeys(query.interval, this.table, query.from, query.to);
    this.labels = this.keys.map((key) => bucketLabel(query.interval, key));
    this.count = this.keys.length;
    this.firstKey = this.keys[0]!;
    this.slots = new Int32Array(this.keys[this.keys.length - 1]! - this.firstKey + 1).fill(-1);
    this.keys.forEach((key, slot) => (this.slots[key - this.firstKey] = slot));
  }

  /** The bucket of an instant inside the query's range. */
  bucketOf(instant: number): number {
    return this.slots[bucketKey(this.interval, instant + offsetIn(this.table, instant)) - this.firstKey]!;
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
    const { starts } = this.table;
    for (let index = 1; index < starts.length; index++) if (starts[index]! > from && starts[index]! <= to) return null;
    const first = this.bucketOf(from);
    const last = this.bucketOf(to);
    if (last - first > 2) return null;
    const offset = offsetIn(this.table, from);
    const startOf = (slot: number) => (slot <= last ? bucketNaiveStart(this.interval, this.keys[slot]!) - offset - low : noBoundary);
    return { base: low, first, second: startOf(first + 1), third: startOf(first + 2) };
  }
}
