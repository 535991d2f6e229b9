// Percentiles as DuckDB's quantile_cont computes them: order the values, then interpolate
// linearly between the two values around position q * (n - 1). Only those two order
// statistics are needed, so they are found by selection (linear on average) rather than a sort.

/** Rounds of partitioning before selection gives up on its pivots and sorts what is left. */
const partitionRoundsMax = 64;

/** Rearranges `values` so values[k] is the k-th smallest, smaller or equal ones before it, larger or equal after; returns it. */
function selectInPlace(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  for (let round = 0; right > left; round++) {
    if (round === partitionRoundsMax) {
      values.subarray(left, right + 1).sort();
      break;
    }
    const pivot = medianOfThree(values[left]!, values[(left + right) >>> 1]!, values[right]!);
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swap;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  return values[k]!;
}

const medianOfThree = (a: number, b: number, c: number) => Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));

export const quantile = (values: Float64Array, q: number): number | null => quantileInPlace(values.slice(), q);

/** quantile() without a copy: `scratch` is reordered. */
export function quantileInPlace(scratch: Float64Array, q: number): number | null {
  if (scratch.length === 0) return null;
  const position = q * (scratch.length - 1);
  const low = Math.floor(position);
  const lowValue = selectInPlace(scratch, low);
  if (low === Math.ceil(position)) return lowValue;
  // After selection everything past `low` is >= its value: the next order statistic is their minimum.
  let highValue = Infinity;
  for (let i = low + 1; i < scratch.length; i++) if (scratch[i]! < highValue) highValue = scratch[i]!;
  return lowValue + (highValue - lowValue) * (position - low);
}

/** Growable lists of numbers, one per cell. */
export class ValueLists {
  private readonly lists: Float64Array[];
  private readonly lengths: Int32Array;

  constructor(cellCount: number) {
    this.lists = Array.from({ length: cellCount }, () => new Float64Array(0));
    this.lengths = new Int32Array(cellCount);
  }

  push(cell: number, value: number): void {
    let list = this.lists[cell]!;
    const length = this.lengths[cell]!;
    if (length === list.length) {
      const grown = new Float64Array(Math.max(16, list.length * 2));
      grown.set(list);
      this.lists[cell] = list = grown;
    }
    list[length] = value;
    this.lengths[cell] = length + 1;
  }

  values(cell: number): Float64Array {
    return this.lists[cell]!.subarray(0, this.lengths[cell]!);
  }

  /** The values of cells first .. end - 1, one after another, in a new array. */
  concat(first: number, end: number): Float64Array {
    let length = 0;
    for (let cell = first; cell < end; cell++) length += this.lengths[cell]!;
    const out = new Float64Array(length);
    let at = 0;
    for (let cell = first; cell < end; cell++) {
      out.set(this.values(cell), at);
      at += this.lengths[cell]!;
    }
    return out;
  }
}
