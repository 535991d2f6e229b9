// A column chunk's Statistics as parquet-format's parquet.thrift defines them, so readers
// (ours, DuckDB, pyarrow, Spark) can skip row groups: null_count always; min_value and
// max_value PLAIN-encoded (byte arrays without their length) in the column's type-defined
// order (the footer's column_orders say TYPE_ORDER): signed for INT32, INT64 and DOUBLE,
// false < true for BOOLEAN, unsigned bytewise for UTF8. Doubles follow the spec's TYPE_ORDER
// rules: nan_count always, min and max from non-NaN values only (none when every value is
// NaN), a zero min written as -0.0 and a zero max as +0.0. A chunk holding NaN gets no max:
// DuckDB (1.5) orders NaN above every number and skips by max_value without reading nan_count,
// so `x > 100` missed a row group's NaN rows (measured); the min bounds them either way.

/** Longer strings are cut in the statistics (a min to a prefix, a max to a prefix one step above), so long texts do not swell the footer. */
export const statisticsValueBytesMax = 64;

export interface ColumnStatistics {
  nullCount: number;
  /** PLAIN-encoded min_value and max_value; null when not written. */
  min: Uint8Array | null;
  max: Uint8Array | null;
  /** Whether min and max are values of the chunk (false once cut). */
  minExact: boolean;
  maxExact: boolean;
  /** NaN values (double columns only, else null). */
  nanCount: number | null;
}

export const nullsOnly = (nullCount: number): ColumnStatistics => ({ nullCount, min: null, max: null, minExact: false, maxExact: false, nanCount: null });

function plainInt32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setInt32(0, value, true);
  return bytes;
}

function plainInt64(value: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, BigInt(value), true);
  return bytes;
}

function plainDouble(value: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, value, true);
  return bytes;
}

/** Statistics of integer values (INT32 or INT64, signed order). */
export function integerStatistics(values: ArrayLike<number>, count: number, nullCount: number, physical: "int32" | "int64"): ColumnStatistics {
  if (count === 0) return nullsOnly(nullCount);
  let min = values[0]!;
  let max = min;
  for (let i = 1; i < count; i++) {
    const value = values[i]!;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const plain = physical === "int32" ? plainInt32 : plainInt64;
  return { nullCount, min: plain(min), max: plain(max), minExact: true, maxExact: true, nanCount: null };
}

/** Statistics of doubles under TYPE_ORDER: NaNs counted and left out of min and max; zeros signed as the spec asks. */
export function doubleStatistics(values: Float64Array, nullCount: number): ColumnStatistics {
  let min = Infinity;
  let max = -Infinity;
  let nanCount = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (value !== value) nanCount++;
    else {
      if (value < min) min = value;
      if (value > max) max = value;
    }
  }
  if (nanCount === values.length) return { ...nullsOnly(nullCount), nanCount };
  // Either zero may stand for both: -0.0 as a min and +0.0 as a max bound them.
  return {
    nullCount, nanCount, minExact: true, maxExact: nanCount === 0,
    min: plainDouble(min === 0 ? -0 : min), max: nanCount === 0 ? plainDouble(max === 0 ? 0 : max) : null,
  };
}

/** Statistics of booleans (false < true) from whether any present value is false and any is true. */
export function booleanStatistics(anyFalse: boolean, anyTrue: boolean, nullCount: number): ColumnStatistics {
  if (!anyFalse && !anyTrue) return nullsOnly(nullCount);
  return { nullCount, min: Uint8Array.of(anyFalse ? 0 : 1), max: Uint8Array.of(anyTrue ? 1 : 0), minExact: true, maxExact: true, nanCount: null };
}

/** Unsigned bytewise order of a[aFrom, aTo) and b[bFrom, bTo): negative, zero or positive. */
export function compareBytes(a: Uint8Array, aFrom: number, aTo: number, b: Uint8Array, bFrom: number, bTo: number): number {
  const length = Math.min(aTo - aFrom, bTo - bFrom);
  for (let i = 0; i < length; i++) {
    const difference = a[aFrom + i]! - b[bFrom + i]!;
    if (difference !== 0) return difference;
  }
  return aTo - aFrom - (bTo - bFrom);
}

/** A lower bound of a UTF-8 string within the size limit: the string, or a prefix cut at a character boundary. */
function lowerBound(bytes: Uint8Array): { value: Uint8Array; exact: boolean } {
  if (bytes.byteLength <= statisticsValueBytesMax) return { value: bytes.slice(), exact: true };
  let cut = statisticsValueBytesMax;
  // 0b10xxxxxx bytes continue a character: cut before the character they belong to.
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return { value: bytes.slice(0, cut), exact: false };
}

/**
 * An upper bound of a UTF-8 string within the size limit: the string, or a prefix ending in an
 * ASCII byte raised by one (above every string the prefix starts, and still valid UTF-8);
 * null when the prefix has no ASCII byte below 0x7f to raise.
 */
function upperBound(bytes: Uint8Array): { value: Uint8Array; exact: boolean } | null {
  if (bytes.byteLength <= statisticsValueBytesMax) return { value: bytes.slice(), exact: true };
  for (let last = statisticsValueBytesMax - 1; last >= 0; last--) {
    if (bytes[last]! < 0x7f) {
      const value = bytes.slice(0, last + 1);
      value[last]!++;
      return { value, exact: false };
    }
  }
  return null;
}

/** Statistics of strings from the present values' min and max (null when none is present). */
export function stringStatistics(min: Uint8Array | null, max: Uint8Array | null, nullCount: number): ColumnStatistics {
  if (min === null || max === null) return nullsOnly(nullCount);
  const lower = lowerBound(min);
  const upper = upperBound(max);
  return { nullCount, min: lower.value, max: upper?.value ?? null, minExact: lower.exact, maxExact: upper?.exact ?? false, nanCount: null };
}
