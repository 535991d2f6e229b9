// Arrow vectors read back as JS values, straight from Arrow's buffers (apache-arrow's
// per-value getters cost most of the storage worker's time when measured).
import { Type, type Data, type Int32, type Vector } from "apache-arrow";

// ignoreBOM: a value may begin with U+FEFF, which is part of it (the default would drop it as a byte order mark).
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

export type ColumnValue = string | number | boolean | null;

const twoTo32 = 2 ** 32;

/** The first `length` values of a 64-bit integer array as pairs of 32-bit words, low first: read without a BigInt per value. */
export const int64Words = (values: BigInt64Array, length = values.length): Int32Array =>
  new Int32Array(values.buffer, values.byteOffset, 2 * length);

/** Value `index` of int64Words' pairs (exact for safe integers, such as epoch milliseconds). */
export const int64At = (words: Int32Array, index: number): number => (words[2 * index]! >>> 0) + words[2 * index + 1]! * twoTo32;

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
