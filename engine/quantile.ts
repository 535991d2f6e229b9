// Percentiles as DuckDB's quantile_cont computes them: sort, then interpolate linearly between
// the two values around position q * (n - 1).

export function quantile(values: Float64Array, q: number): number | null {
  if (values.length === 0) return null;
  const sorted = values.slice().sort();
  const position = q * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  if (low === high) return sorted[low]!;
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
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
}
