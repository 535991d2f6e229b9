// One definition of a latency percentile for every benchmark, so their figures compare.

/** Nearest-rank percentile of sorted values: the smallest value at or above `fraction` of them (NaN for none). */
export function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;
}
