// Arrow vectors built straight from JS arrays and read straight back, without apache-arrow's
// per-value builders and getters (measured: they cost most of the storage worker's time).
// Each builder fills the Arrow buffers itself: a validity bitmap, offsets plus one UTF-8
// buffer for strings, indices plus a dictionary for repeated strings, bit-packed booleans.
import {
  Bool, Dictionary, Float64, Int32, TimestampMillisecond, Type, Utf8, makeData, makeVector, type Data, type Vector,
} from "apache-arrow";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Validity bitmap (bit set = value present) and null count; no bitmap when nothing is null. */
function validity(values: ArrayLike<unknown>): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  let nullCount = 0;
  for (let i = 0; i < values.length; i++) if (values[i] === null || values[i] === undefined) nullCount++;
  if (nullCount === 0) return { nullBitmap: undefined, nullCount };
  const nullBitmap = new Uint8Array((values.length + 7) >> 3);
  for (let i = 0; i < values.length; i++) if (values[i] !== null && values[i] !== undefined) nullBitmap[i >> 3]! |= 1 << (i & 7);
  return { nullBitmap, nullCount };
}

/** Offsets and UTF-8 bytes of strings (nulls take no bytes). */
function utf8Buffers(values: ArrayLike<string | null | undefined>): { valueOffsets: Int32Array; data: Uint8Array } {
  const valueOffsets = new Int32Array(values.length + 1);
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === "string") {
      parts.push(value);
      length += value.length;
    }
    valueOffsets[i + 1] = length;
  }
  const joined = parts.join("");
  const data = encoder.encode(joined);
  if (data.byteLength === joined.length) return { valueOffsets, data };
  // Not all ASCII: UTF-8 lengths differ from string lengths, so encode value by value.
  const exact = new Uint8Array(data.byteLength);
  let offset = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === "string") offset += encoder.encodeInto(value, exact.subarray(offset)).written;
    valueOffsets[i + 1] = offset;
  }
  return { valueOffsets, data: exact };
}

export function utf8Vector(values: ArrayLike<string | null | undefined>): Vector<Utf8> {
  return makeVector(makeData({ type: new Utf8(), length: values.length, ...validity(values), ...utf8Buffers(values) }));
}

/** Repeated strings (event names, countries, library versions): Int32 indices into a dictionary. */
export function dictionaryVector(values: ArrayLike<string | null | undefined>): Vector<Dictionary<Utf8, Int32>> {
  const indices = new Int32Array(values.length);
  const positions = new Map<string, number>();
  const words: string[] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value !== "string") continue;
    let position = positions.get(value);
    if (position === undefined) {
      position = words.length;
      positions.set(value, position);
      words.push(value);
    }
    indices[i] = position;
  }
  const type = new Dictionary(new Utf8(), new Int32());
  return makeVector(makeData({ type, length: values.length, ...validity(values), data: indices, dictionary: utf8Vector(words) }));
}

export function float64Vector(values: ArrayLike<number | null | undefined>): Vector<Float64> {
  const data = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) data[i] = values[i] ?? 0;
  return makeVector(makeData({ type: new Float64(), length: values.length, ...validity(values), data }));
}

export function boolVector(values: ArrayLike<boolean | null | undefined>): Vector<Bool> {
  const data = new Uint8Array((values.length + 7) >> 3);
  for (let i = 0; i < values.length; i++) if (values[i] === true) data[i >> 3]! |= 1 << (i & 7);
  return makeVector(makeData({ type: new Bool(), length: values.length, ...validity(values), data }));
}

/** Dense integer ids (person indexes), never null. */
export function int32Vector(values: ArrayLike<number>): Vector<Int32> {
  return makeVector(makeData({ type: new Int32(), length: values.length, nullCount: 0, data: Int32Array.from(values) }));
}

/** UTC instants in epoch milliseconds, never null. */
export function timestampVector(values: ArrayLike<number>): Vector<TimestampMillisecond> {
  const data = new BigInt64Array(values.length);
  for (let i = 0; i < values.length; i++) data[i] = BigInt(values[i]!);
  return makeVector(makeData({ type: new TimestampMillisecond("UTC"), length: values.length, nullCount: 0, data }));
}

export type ColumnValue = string | number | boolean | null;

const isValid = (chunk: Data, row: number): boolean => {
  const bitmap = chunk.nullBitmap;
  if (!bitmap || bitmap.byteLength === 0 || chunk.nullCount === 0) return true;
  const bit = chunk.offset + row;
  return (bitmap[bit >> 3]! & (1 << (bit & 7))) !== 0;
};

// A sliced chunk's offset and value buffers already start at its first row; only the validity
// and boolean bitmaps are addressed from `chunk.offset`.

/** Strings of a Utf8 chunk: one decode of the whole buffer when it is ASCII, else value by value. */
function readUtf8(chunk: Data, into: ColumnValue[]): void {
  const offsets = chunk.valueOffsets as Int32Array;
  const bytes = chunk.values as Uint8Array;
  const first = offsets[0]!;
  const last = offsets[chunk.length]!;
  const text = decoder.decode(bytes.subarray(first, last));
  const ascii = text.length === last - first;
  for (let row = 0; row < chunk.length; row++) {
    if (!isValid(chunk, row)) {
      into.push(null);
      continue;
    }
    const start = offsets[row]!;
    const end = offsets[row + 1]!;
    into.push(ascii ? text.slice(start - first, end - first) : decoder.decode(bytes.subarray(start, end)));
  }
}

function readChunk(chunk: Data, into: ColumnValue[]): void {
  switch (chunk.type.typeId) {
    case Type.Utf8:
      return readUtf8(chunk, into);
    case Type.Dictionary: {
      const words: ColumnValue[] = [];
      for (const dictionaryChunk of chunk.dictionary!.data) readChunk(dictionaryChunk, words);
      const indices = chunk.values as ArrayLike<number | bigint>;
      for (let row = 0; row < chunk.length; row++) into.push(isValid(chunk, row) ? words[Number(indices[row]!)]! : null);
      return;
    }
    case Type.Int: {
      if ((chunk.type as Int32).bitWidth !== 32) throw new Error(`column type ${chunk.type} is not one the event store writes`);
      const values = chunk.values as Int32Array;
      for (let row = 0; row < chunk.length; row++) into.push(isValid(chunk, row) ? values[row]! : null);
      return;
    }
    case Type.Float: {
      const values = chunk.values as Float64Array;
      for (let row = 0; row < chunk.length; row++) into.push(isValid(chunk, row) ? values[row]! : null);
      return;
    }
    case Type.Bool: {
      const bits = chunk.values as Uint8Array;
      for (let row = 0; row < chunk.length; row++) {
        const bit = chunk.offset + row;
        into.push(isValid(chunk, row) ? (bits[bit >> 3]! & (1 << (bit & 7))) !== 0 : null);
      }
      return;
    }
    case Type.Timestamp: {
      const values = chunk.values as BigInt64Array;
      for (let row = 0; row < chunk.length; row++) into.push(isValid(chunk, row) ? Number(values[row]!) : null);
      return;
    }
    default:
      throw new Error(`column type ${chunk.type} is not one the event store writes`);
  }
}

/** Every value of a vector as JS values (null where absent). */
export function vectorValues(vector: Vector): ColumnValue[] {
  const values: ColumnValue[] = [];
  for (const chunk of vector.data) readChunk(chunk, values);
  return values;
}
