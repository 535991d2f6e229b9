// A query's interval buckets: their labels in order, and each row's bucket number, computed
// from the row's instant plus the zone's offset at that instant (offsets from a table built
// once per query, so a DST change mid-range moves rows to the right local day).
import { bucketKey, bucketKeys, bucketLabel, offsetIn, offsetTable, type BucketInterval, type OffsetTable } from "./time-zone.ts";
import type { Query } from "./ir/query.ts";

export class BucketMap {
  readonly labels: string[];
  readonly count: number;
  private readonly table: OffsetTable;
  private readonly firstKey: number;
  private readonly slots: Int32Array;
  private readonly interval: BucketInterval;

  constructor(query: Pick<Query, "interval" | "timeZone" | "from" | "to">) {
    this.interval = query.interval;
    this.table = offsetTable(query.timeZone, query.from, query.to);
    const keys = bucketKeys(query.interval, this.table, query.from, query.to);
    this.labels = keys.map((key) => bucketLabel(query.interval, key));
    this.count = keys.length;
    this.firstKey = keys[0]!;
    this.slots = new Int32Array(keys[keys.length - 1]! - this.firstKey + 1).fill(-1);
    keys.forEach((key, slot) => (this.slots[key - this.firstKey] = slot));
  }

  /** The bucket of an instant inside the query's range. */
  bucketOf(instant: number): number {
    return this.slots[bucketKey(this.interval, instant + offsetIn(this.table, instant)) - this.firstKey]!;
  }

  /** Bucket numbers of the selected rows (indexed by row; other rows left 0). */
  rowBuckets(timestamps: Float64Array, selection: Uint32Array): Int32Array {
    const out = new Int32Array(timestamps.length);
    for (let i = 0; i < selection.length; i++) {
      const row = selection[i]!;
      out[row] = this.bucketOf(timestamps[row]!);
    }
    return out;
  }
}
