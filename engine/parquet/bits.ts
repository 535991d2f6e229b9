// Bit-level pieces of Parquet's encodings (parquet-format, Encodings.md): ULEB128 varints and
// zigzag integers, bit-packed values (least significant bit first), and the RLE / bit-packing
// hybrid that definition levels, dictionary indices and RLE booleans are written in.
//
// Bit-packed bytes are first copied into an aligned array of 32-bit words (`packedWords`),
// from which value i of width w is the two words around bit i * w, shifted and masked: two
// loads and no branch per value. Reading bytes one at a time into an accumulator, or four bytes
// per value, took about twice as long (measured on the timestamps of 10M events).
import { ParquetUnsupportedError } from "./unsupported.ts";

/** A read position in a byte array, advanced by the readers below. */
export interface Cursor {
  bytes: Uint8Array;
  pos: number;
}

/** Widest bit-packed value read from words: wider ones (only deltas of int64 columns) are read in pieces. */
export const wordBitsMax = 32;
/** Widest bit-packed value read as a JS number: wider ones could not be exact. */
export const packedBitsMax = 52;
/** Wide values are read in pieces of this many bits. */
const pieceBits = 16;
/** Words after the copied bytes that a value's second word may fall on. */
const paddingWords = 2;

let words = new Int32Array(1024);
let wordBytes = new Uint8Array(words.buffer);

/**
 * Bytes [start, end) copied into an aligned scratch array of words (valid until the next call),
 * followed by at least two words a value's second read may touch (their bits are masked off).
 */
export function packedWords(bytes: Uint8Array, start: number, end: number): Int32Array {
  const needed = ((end - start + 3) >> 2) + paddingWords;
  if (words.length < needed) {
    words = new Int32Array(needed * 2);
    wordBytes = new Uint8Array(words.buffer);
  }
  wordBytes.set(bytes.subarray(start, end));
  return words;
}

/**
 * Value `i` of `width` bits (1 to 32) from `words` starting at word `from`, as an int32 (a
 * 32-bit value with its top bit set reads negative). `(next << 1) << (31 - shift)` is `next <<
 * (32 - shift)` that is 0 when shift is 0, where a shift of 32 would be a shift of 0.
 */
function packedValue(words: Int32Array, from: number, width: number, mask: number, i: number): number {
  const bit = i * width;
  const word = from + (bit >>> 5);
  const shift = bit & 31;
  return ((words[word]! >>> shift) | ((words[word + 1]! << 1) << (31 - shift))) & mask;
}

export const widthMask = (width: number): number => (width >= wordBitsMax ? -1 : (1 << width) - 1);

/** An unsigned LEB128 varint, exact below 2^53. */
export function varint(cursor: Cursor): number {
  const { bytes } = cursor;
  let value = 0;
  let scale = 1;
  for (;;) {
    if (cursor.pos >= bytes.length) throw new ParquetUnsupportedError("encoded values end early");
    const byte = bytes[cursor.pos++]!;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return value;
    scale *= 128;
    if (scale > 2 ** 49) throw new ParquetUnsupportedError("an encoded integer does not fit in 53 bits");
  }
}

export function zigzag(cursor: Cursor): number {
  const value = varint(cursor);
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

/** `count` values of `width` bits (at most 32) from `words` at word `from` into `out` from `at`. */
export function unpackWords(words: Int32Array, from: number, width: number, count: number, out: Int32Array, at: number): void {
  const mask = widthMask(width);
  for (let i = 0; i < count; i++) out[at + i] = packedValue(words, from, width, mask, i);
}

/** `count` bit-packed values of `width` bits (33 to packedBitsMax) from byte `pos`, as non-negative numbers, in pieces of 16 bits. */
export function unpackWide(bytes: Uint8Array, pos: number, width: number, count: number, out: Float64Array): void {
  if (width > packedBitsMax) throw new ParquetUnsupportedError(`bit-packed values of ${width} bits are not read`);
  let buffer = 0;
  let bits = 0;
  let p = pos;
  for (let i = 0; i < count; i++) {
    let value = 0;
    let scale = 1;
    for (let done = 0; done < width; done += pieceBits) {
      const take = Math.min(pieceBits, width - done);
      // Fewer than 16 bits are held before a refill, so the accumulator never passes 32 bits.
      while (bits < take) {
        buffer |= bytes[p++]! << bits;
        bits += 8;
      }
      value += (buffer & ((1 << take) - 1)) * scale;
      buffer >>>= take;
      bits -= take;
      scale *= 2 ** pieceBits;
    }
    out[i] = value;
  }
}

/**
 * The RLE / bit-packing hybrid: `count` values of `width` bits from `cursor` (which must not
 * pass `end`) into `out` from `at`. Runs are a varint header (low bit 1: that many groups of
 * eight bit-packed values; 0: a repeat count and one value in whole bytes).
 */
export function decodeHybrid(cursor: Cursor, end: number, width: number, count: number, out: Int32Array, at: number): void {
  if (width > wordBitsMax) throw new ParquetUnsupportedError(`RLE values of ${width} bits are not read`);
  const { bytes } = cursor;
  const valueBytes = (width + 7) >> 3;
  let done = 0;
  while (done < count) {
    if (cursor.pos >= end) throw new ParquetUnsupportedError("RLE data ends early");
    const header = varint(cursor);
    if (header % 2 === 1) {
      const groups = (header - 1) / 2;
      const runEnd = cursor.pos + groups * width;
      if (runEnd > end) throw new ParquetUnsupportedError("bit-packed run passes its data");
      unpackWords(packedWords(bytes, cursor.pos, runEnd), 0, width, Math.min(groups * 8, count - done), out, at + done);
      cursor.pos = runEnd;
      done += groups * 8;
    } else {
      if (cursor.pos + valueBytes > end) throw new ParquetUnsupportedError("RLE run passes its data");
      let value = 0;
      for (let byte = 0; byte < valueBytes; byte++) value += bytes[cursor.pos + byte]! * 2 ** (8 * byte);
      cursor.pos += valueBytes;
      const run = Math.min(header / 2, count - done);
      out.fill(value, at + done, at + done + run);
      done += run;
    }
  }
}
