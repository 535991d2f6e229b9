// Trends' aggregation: one series' sums, weights, extremes, distinct sets or value lists per
// cell (group x bucket) and per group, filled a chunk at a time. A group is a breakdown slot,
// or, in the single pass for additive maths (trends.ts), a breakdown value folded into its
// slot afterwards.
import { DistinctPairs } from "../distinct-pairs.ts";
import type { Series } from "../ir/query.ts";
import { quantileInPlace, ValueLists } from "../quantile.ts";
import { sameBit, type SeriesRows } from "../selection.ts";

/** Maths whose cells combine by adding (or taking extremes), so groups can be merged after the pass. */
export const isAdditive = (math: string) => math === "total" || math === "sum" || math === "avg" || math === "min" || math === "max";

/** Where a chunk's rows land: their group (else 0) and bucket; cell = group * buckets + bucket. */
export interface ChunkCells {
  /** Each row's bucket. */
  buckets: Int32Array;
  /** With a breakdown: each row's code, and each code's group at index code + 1. */
  groupCodes: Int32Array | null;
  groupOfCode: Int32Array | null;
}

const rowGroup = (cells: ChunkCells, row: number) => (cells.groupOfCode === null ? 0 : cells.groupOfCode[cells.groupCodes![row]! + 1]!);

const quantiles: Record<string, number> = { p50: 0.5, p90: 0.9, p99: 0.99 };

/** One series' aggregate over cells (group x bucket) and totals (group). */
export class SeriesAggregate {
  readonly sums: Float64Array;
  readonly weights: Float64Array;
  readonly extremes: Float64Array;
  readonly totalSums: Float64Array;
  readonly totalWeights: Float64Array;
  readonly totalExtremes: Float64Array;
  readonly distinct: DistinctPairs | null;
  readonly totalDistinct: DistinctPairs | null;
  /** Percentile values per cell; a group's total reads its cells' lists together. */
  readonly lists: ValueLists | null;
  /** Rows the series selected per group (an "other" group only some series fed is left out for the rest). */
  readonly rowsSeen: Float64Array;

  constructor(readonly series: Series, readonly groups: number, readonly buckets: number) {
    const cells = groups * buckets;
    const math = series.math;
    this.sums = new Float64Array(cells);
    this.weights = new Float64Array(cells);
    this.totalSums = new Float64Array(groups);
    this.totalWeights = new Float64Array(groups);
    const start = math === "min" ? Infinity : -Infinity;
    this.extremes = new Float64Array(cells).fill(start);
    this.totalExtremes = new Float64Array(groups).fill(start);
    const distinct = math.startsWith("unique_");
    this.distinct = distinct ? new DistinctPairs(cells) : null;
    this.totalDistinct = distinct ? new DistinctPairs(groups) : null;
    this.lists = math in quantiles ? new ValueLists(cells) : null;
    this.rowsSeen = new Float64Array(groups);
  }

  /** math total: each row's weight (1 / sample rate); rows of another event add 0 rather than branch. */
  addTotals({ buckets, groupCodes, groupOfCode }: ChunkCells, { rows, events, code }: SeriesRows, weights: Float64Array | null): void {
    // The hottest loop of trends: everything it reads is a local, and nothing branches on data.
    const { sums, totalSums, rowsSeen } = this;
    const bucketCount = this.buckets | 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const matched = events === null ? 1 : sameBit(events[row]!, code);
      // Chosen, not multiplied, where rows are sampled: a row of another event adds 0, and an
      // infinite weight (a client's $sample_rate of 1e-320) times 0 would be NaN.
      const weight = weights === null ? matched * 1.0 : matched === 1 ? weights[row]! : 0;
      const group = groupOfCode === null ? 0 : groupOfCode[groupCodes![row]! + 1]!;
      sums[group * bucketCount + buckets[row]!]! += weight;
      totalSums[group]! += weight;
      rowsSeen[group]! += matched;
    }
  }

  /** unique_*: each row's id (-1: none) into its cell's and its group's distinct set. */
  addDistinct(cells: ChunkCells, { rows, events, code }: SeriesRows, ids: Int32Array): void {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (events !== null && events[row] !== code) continue;
      const group = rowGroup(cells, row);
      this.rowsSeen[group]!++;
      const id = ids[row]!;
      if (id < 0) continue;
      this.distinct!.add(group * this.buckets + cells.buckets[row]!, id);
      this.totalDistinct!.add(group, id);
    }
  }

  /** sum, avg, min, max and percentiles of each row's number (NaN: the row has none). */
  addNumbers(cells: ChunkCells, { rows, events, code }: SeriesRows, weights: Float64Array | null, numbers: Float64Array): void {
    const math = this.series.math;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (events !== null && events[row] !== code) continue;
      const group = rowGroup(cells, row);
      this.rowsSeen[group]!++;
      const value = numbers[row]!;
      if (Number.isNaN(value)) continue;
      const cell = group * this.buckets + cells.buckets[row]!;
      const weight = weights === null ? 1 : weights[row]!;
      if (math === "sum" || math === "avg") {
        this.sums[cell]! += value * weight;
        this.weights[cell]! += weight;
        this.totalSums[group]! += value * weight;
        this.totalWeights[group]! += weight;
      } else if (math === "min") {
        if (value < this.extremes[cell]!) this.extremes[cell] = value;
        if (value < this.totalExtremes[group]!) this.totalExtremes[group] = value;
      } else if (math === "max") {
        if (value > this.extremes[cell]!) this.extremes[cell] = value;
        if (value > this.totalExtremes[group]!) this.totalExtremes[group] = value;
      } else {
        this.lists!.push(cell, value);
      }
    }
  }

  /**
   * Adds this aggregate's groups into `target`'s: group g into target group `targetOf[g]`.
   * Only for additive maths (sums, weights and extremes combine; distinct sets and value lists do not).
   */
  foldInto(target: SeriesAggregate, targetOf: Int32Array): void {
    for (let group = 0; group < this.groups; group++) {
      // A value no row of this series had holds nothing (and without an "other" slot, a value
      // outside the top has nowhere to go).
      if (this.rowsSeen[group] === 0) continue;
      const into = targetOf[group]!;
      target.rowsSeen[into]! += this.rowsSeen[group]!;
      target.totalSums[into]! += this.totalSums[group]!;
      target.totalWeights[into]! += this.totalWeights[group]!;
      target.totalExtremes[into] = this.combine(target.totalExtremes[into]!, this.totalExtremes[group]!);
      for (let bucket = 0; bucket < this.buckets; bucket++) {
        const [from, to] = [group * this.buckets + bucket, into * this.buckets + bucket];
        target.sums[to]! += this.sums[from]!;
        target.weights[to]! += this.weights[from]!;
        target.extremes[to] = this.combine(target.extremes[to]!, this.extremes[from]!);
      }
    }
  }

  private combine(a: number, b: number): number {
    return this.series.math === "min" ? Math.min(a, b) : Math.max(a, b);
  }

  value(cell: number, total: boolean): number | null {
    const math = this.series.math;
    if (math === "total" || math === "sum") return (total ? this.totalSums : this.sums)[cell]!;
    if (math.startsWith("unique_")) return (total ? this.totalDistinct! : this.distinct!).counts[cell]!;
    if (math === "avg") {
      const weight = (total ? this.totalWeights : this.weights)[cell]!;
      return weight === 0 ? null : (total ? this.totalSums : this.sums)[cell]! / weight;
    }
    if (math === "min" || math === "max") {
      const extreme = (total ? this.totalExtremes : this.extremes)[cell]!;
      return Number.isFinite(extreme) ? extreme : null;
    }
    // Each list is read once per query, so selection may reorder it in place.
    const values = total ? this.lists!.concat(cell * this.buckets, (cell + 1) * this.buckets) : this.lists!.values(cell);
    return quantileInPlace(values, quantiles[math]!);
  }
}
