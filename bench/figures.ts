// How every benchmark states its figures: the median of its runs, and numbers with thousands
// separators and a fixed number of decimals.

/** The median of `values` (the upper one of the middle two for an even count). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** `value` with thousands separators and exactly `digits` decimals. */
export const fmt = (value: number, digits = 0) => value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
