// Bit-level pieces of Parquet's encodings (parquet-format, Encodings.md): ULEB128 varints and
// zigzag integers, bit-packed values (least significant bit first), and the RLE / bit-packing
// hybrid that definition levels, dictionary indices and RLE booleans are written in.
import { ParquetUnsupportedError } from "./unsupported.ts";

/** A read position in a byte array, advanced by the readers below. */
export interface Cursor {
  bytes: Uint8Array;
  pos: number;
}

/** Widest bit-packed value read as a JS number: wider ones could not be exact. */
export const packedBitsMax = 52;
/** Widths up to this take one refill loop of a 32-bit accumulator per value. */
const narrowBitsMax = 24;
/** Wider values are read in pieces of this many bits. */
const pieceBits = 16;

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

/**
 * `count` bit-packed values of `width` bits (at most 32) from byte `pos` into `out` from
 * `at`; values of 32 bits land as their int32 reading.
 */
export function unpackInts(bytes: Uint8Array, pos: number, width: number, count: number, out: Int32Array, at: number): void {
  if (width > narrowBitsMax) {
    const wide = new Float64Array(count);
    unpackNumbers(bytes, pos, width, count, wide, 0);
    out.set(wide, at);
    return;
  }
  const mask = (1 << width) - 1;
  let buffer = 0;
  let bits = 0;
  let p = pos;
  // Before each refill fewer than `width` <= 24 bits are held, so the accumulator never passes 32 bits.
  for (let i = 0; i < count; i++) {
    while (bits < width) {
      buffer |= bytes[p++]! << bits;
      bits += 8;
    }
    out[at + i] = buffer & mask;
    buffer >>>= width;
    bits -= width;
  }
}

/** `count` bit-packed values of `width` bits (at most packedBitsMax) as non-negative numbers. */
export function unpackNumbers(bytes: Uint8Array, pos: number, width: number, count: number, out: Float64Array, at: number): void {
  if (width > packedBitsMax) throw new ParquetUnsupportedError(`bit-packed values of ${width} bits are not read`);
  let buffer = 0;
  let bits = 0;
  let p = pos;
  if (width <= narrowBitsMax) {
    const mask = (1 << width) - 1;
    for (let i = 0; i < count; i++) {
      while (bits < width) {
        buffer |= bytes[p++]! << bits;
        bits += 8;
      }
      out[at + i] = (buffer & mask) >>> 0;
      buffer >>>= width;
      bits -= width;
    }
    return;
  }
  for (let i = 0; i < count; i++) {
    let value = 0;
    let scale = 1;
    for (let done = 0; done < width; done += pieceBits) {
      const take = Math.min(pieceBits, width - done);
      while (bits < take) {
        buffer |= bytes[p++]! << bits;
        bits += 8;
      }
      value += (buffer & ((1 << take) - 1)) * scale;
      buffer >>>= take;
      bits -= take;
      scale *= 2 ** pieceBits;
    }
    out[at + i] = value;
  }
}

/**
 * The RLE / bit-packing hybrid: `count` values of `width` bits from `cursor` (which must not
 * pass `end`) into `out` from `at`. Runs are a varint header (low bit 1: that many groups of
 * eight bit-packed values; 0: a repeat count and one value in whole bytes).
 */
export function decodeHybrid(cursor: Cursor, end: number, width: number, count: number, out: Int32Array, at: number): void {
  if (width > 32) throw new ParquetUnsupportedError(`RLE values of ${width} bits are not read`);
  const { bytes } = cursor;
  const valueBytes = (width + 7) >> 3;
  let done = 0;
  while (done < count) {
    if (cursor.pos >= end) throw new ParquetUnsupportedError("RLE data ends early");
    const header = varint(cursor);
    if (header % 2 === 1) {
      const groups = (header - 1) / 2;
      const packedBytes = groups * width;
      if (cursor.pos + packedBytes > end) throw new ParquetUnsupportedError("bit-packed run passes its data");
      unpackInts(bytes, cursor.pos, width, Math.min(groups * 8, count - done), out, at + done);
      cursor.pos += packedBytes;
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
