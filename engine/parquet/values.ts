// A data page's non-null values, decoded densely into the executor's typed arrays: PLAIN
// (parquet-format, Encodings.md: fixed-width little endian, booleans bit-packed, byte arrays
// each after a 4-byte length), dictionary indices (dictionary.ts), DELTA_BINARY_PACKED for
// integers, the delta encodings of byte arrays (delta-text.ts) and RLE booleans. Text is written
// as codes of a WordIds dictionary shared by the part's row groups; numbers, int32 values and
// timestamps as they are.
import { WordIds } from "../../storage/word-ids.ts";
import { decodeHybrid, packedWords, unpackWords } from "./bits.ts";
import { dictionaryValues, pageDictionary, type PageDictionary } from "./dictionary.ts";
import { decodeDelta } from "./delta.ts";
import { deltaLengthText, deltaText } from "./delta-text.ts";
import { Encoding, PhysicalType } from "../../storage/parquet/parquet-format.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

// A leading U+FEFF is part of a value, not a byte order mark to drop.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Bool columns read as text: these codes, in a dictionary that starts with these words (as engine/columns.ts reads Arrow booleans). */
export const boolWords = ["false", "true"];

function fixedBytes(data: Uint8Array, width: number, count: number): Uint8Array {
  if (data.byteLength < width * count) throw new ParquetUnsupportedError("PLAIN values end early");
  return data.subarray(0, width * count);
}

/** Copies `count` PLAIN values of a fixed width into `out` from `at` (byte copies: page data need not be aligned). */
function copyFixed(data: Uint8Array, count: number, out: Float64Array | Int32Array, at: number): void {
  const width = out.BYTES_PER_ELEMENT;
  new Uint8Array(out.buffer, out.byteOffset + at * width, count * width).set(fixedBytes(data, width, count));
}

let aligned = new Int32Array(0);

/** PLAIN int64 values as numbers (exact below 2^53; larger ones are refused). */
function plainInt64(data: Uint8Array, count: number, out: Float64Array, at: number): void {
  if (aligned.length < 2 * count) aligned = new Int32Array(2 * count);
  new Uint8Array(aligned.buffer, 0, 8 * count).set(fixedBytes(data, 8, count));
  for (let i = 0; i < count; i++) {
    const high = aligned[2 * i + 1]!;
    if (high >= 0x200000 || high < -0x200000) throw new ParquetUnsupportedError("an int64 value passes 2^53");
    out[at + i] = high * 4294967296 + (aligned[2 * i]! >>> 0);
  }
}

/** Whether every byte is ASCII, so a decoded string has one character per byte. */
function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/**
 * `count` PLAIN byte arrays as codes in `words`. Sorted rows often repeat the previous value,
 * which a byte comparison finds without making a string or a Map lookup; an all-ASCII page is
 * decoded to one string and sliced (one TextDecoder call per value costs far more).
 */
export function plainText(data: Uint8Array, count: number, words: WordIds, out: Int32Array, at: number): void {
  const text = isAscii(data) ? decoder.decode(data) : null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let pos = 0;
  let previousStart = -1;
  let previousEnd = -1;
  let previousCode = -1;
  for (let i = 0; i < count; i++) {
    if (pos + 4 > data.byteLength) throw new ParquetUnsupportedError("PLAIN byte arrays end early");
    const start = pos + 4;
    const end = start + view.getUint32(pos, true);
    if (end > data.byteLength) throw new ParquetUnsupportedError("a PLAIN byte array passes its page");
    if (previousCode < 0 || !sameBytes(data, previousStart, previousEnd, start, end)) {
      previousCode = words.id(text !== null ? text.slice(start, end) : decoder.decode(data.subarray(start, end)));
      previousStart = start;
      previousEnd = end;
    }
    out[at + i] = previousCode;
    pos = end;
  }
}

function sameBytes(bytes: Uint8Array, start: number, end: number, otherStart: number, otherEnd: number): boolean {
  if (end - start !== otherEnd - otherStart) return false;
  for (let i = 0; i < end - start; i++) if (bytes[start + i] !== bytes[otherStart + i]) return false;
  return true;
}

/** A dictionary page's values (PLAIN) in the form data pages' indices look up: numbers (doubles, int64 as numbers), int32 values, or codes of words. */
export function decodeDictionary(physical: number, data: Uint8Array, count: number, words: WordIds): PageDictionary {
  if (physical === PhysicalType.byteArray) {
    const codes = new Int32Array(count);
    plainText(data, count, words, codes, 0);
    return pageDictionary(codes);
  }
  if (physical === PhysicalType.int32) {
    const values = new Int32Array(count);
    copyFixed(data, count, values, 0);
    return pageDictionary(values);
  }
  const values = new Float64Array(count);
  if (physical === PhysicalType.double) copyFixed(data, count, values, 0);
  else if (physical === PhysicalType.int64) plainInt64(data, count, values, 0);
  else throw new ParquetUnsupportedError(`dictionaries of physical type ${physical} are not read`);
  return pageDictionary(values);
}

let deltaInts = new Float64Array(0);

/**
 * Decodes a data page's `count` non-null values into `out` from `at`: text and bools as
 * codes (Int32Array), int32 columns as Int32Array, int64 and doubles as Float64Array.
 */
export function decodeValues(
  physical: number, encoding: number, data: Uint8Array, count: number, dictionary: PageDictionary | null, words: WordIds, out: Float64Array | Int32Array, at: number,
): void {
  if (encoding === Encoding.rleDictionary || encoding === Encoding.plainDictionary) return dictionaryValues(data, count, dictionary, out, at);
  if (encoding === Encoding.plain) {
    if (physical === PhysicalType.byteArray) return plainText(data, count, words, out as Int32Array, at);
    if (physical === PhysicalType.int64) return plainInt64(data, count, out as Float64Array, at);
    if (physical === PhysicalType.double || physical === PhysicalType.int32) return copyFixed(data, count, out, at);
    if (physical === PhysicalType.boolean) {
      if (data.byteLength * 8 < count) throw new ParquetUnsupportedError("PLAIN booleans end early");
      return unpackWords(packedWords(data, 0, Math.ceil(count / 8)), 0, 1, count, out as Int32Array, at);
    }
  }
  if (encoding === Encoding.deltaBinaryPacked && physical === PhysicalType.int64) return decodeDelta({ bytes: data, pos: 0 }, data.byteLength, count, out as Float64Array, at, false);
  if (encoding === Encoding.deltaBinaryPacked && physical === PhysicalType.int32) {
    // Summed as numbers (one loop for both widths keeps its array accesses of one type), then copied as int32.
    if (deltaInts.length < count) deltaInts = new Float64Array(count);
    decodeDelta({ bytes: data, pos: 0 }, data.byteLength, count, deltaInts, 0, true);
    return (out as Int32Array).set(deltaInts.subarray(0, count), at);
  }
  if (encoding === Encoding.deltaLengthByteArray && physical === PhysicalType.byteArray) return deltaLengthText(data, count, words, out as Int32Array, at);
  if (encoding === Encoding.deltaByteArray && physical === PhysicalType.byteArray) return deltaText(data, count, words, out as Int32Array, at);
  if (encoding === Encoding.rle && physical === PhysicalType.boolean) {
    // RLE booleans: a 4-byte length, then the hybrid at one bit per value.
    if (data.byteLength < 4) throw new ParquetUnsupportedError("RLE booleans end early");
    const length = new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true);
    return decodeHybrid({ bytes: data, pos: 4 }, Math.min(data.byteLength, 4 + length), 1, count, out as Int32Array, at);
  }
  throw new ParquetUnsupportedError(`encoding ${encoding} of physical type ${physical} is not read`);
}
