// Distinct persons who paid, per (currency slot, interval) and per currency slot over the
// range, for revenue per person: keys collected in a growing typed array, then sorted and
// counted once (no Map in the loop over events).

/** A key is (slot * buckets + bucket) * personsSpan + person: exact below 2^53 while slots x buckets stays under 2^22 (answers are bounded to far fewer cells). */
const personsSpan = 2 ** 31;

export interface PayerCounts {
  perBucket(slot: number): Int32Array;
  overRange(slot: number): number;
}

export class DistinctPayers {
  private keys = new Float64Array(1024);
  private size = 0;

  constructor(private readonly buckets: number) {}

  add(slot: number, bucket: number, person: number): void {
    if (this.size === this.keys.length) {
      const grown = new Float64Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    this.keys[this.size++] = (slot * this.buckets + bucket) * personsSpan + person;
  }

  counts(): PayerCounts {
    const keys = this.keys.subarray(0, this.size).sort();
    const perBucket = new Map<number, Int32Array>();
    const ranged: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      if (i > 0 && keys[i] === keys[i - 1]) continue;
      const cell = Math.floor(keys[i]! / personsSpan);
      const person = keys[i]! - cell * personsSpan;
      const slot = Math.floor(cell / this.buckets);
      let counts = perBucket.get(slot);
      if (!counts) perBucket.set(slot, (counts = new Int32Array(this.buckets)));
      counts[cell - slot * this.buckets]!++;
      ranged.push(slot * personsSpan + person);
    }
    const overRange = new Map<number, number>();
    const sorted = Float64Array.from(ranged).sort();
    for (let i = 0; i < sorted.length; i++) {
      if (i > 0 && sorted[i] === sorted[i - 1]) continue;
      const slot = Math.floor(sorted[i]! / personsSpan);
      overRange.set(slot, (overRange.get(slot) ?? 0) + 1);
    }
    return {
      perBucket: (slot) => perBucket.get(slot) ?? new Int32Array(this.buckets),
      overRange: (slot) => overRange.get(slot) ?? 0,
    };
  }
}
