// DELTA_BINARY_PACKED (parquet-format, Encodings.md): a header (values per block, miniblocks
// per block, value count, first value), then blocks of a minimum delta, one bit width per
// miniblock and the miniblocks' bit-packed (delta - minimum). Storage writes `timestamp` and
// `person_index` this way. Values are summed as JS numbers: a miniblock is decoded only when
// none of its sums can pass 2^53 (int64 columns past that are refused); int32 sums wrap to 32
// bits after each miniblock, as int32 arithmetic does.
//
// The unpacking loops are small functions of their own: JSC compiles a function with optimising
// tiers only once enough of it has run, and one function holding every width's loop stayed in
// its baseline tier (measured: 20-90 ns a value instead of a few).
import { packedBitsMax, unpackNumbers, varint, zigzag, type Cursor } from "./bits.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

/** Block and miniblock sizes are multiples of these (the specification's rules). */
const blockValuesUnit = 128;
const miniblockValuesUnit = 32;
/** Miniblocks up to this width take one refill of a 32-bit accumulator per value, up to twice that two. */
const narrowBitsMax = 16;

/** Adds `take` deltas of up to 16 bits to `value`, writing each sum; returns the last. */
function addNarrow(bytes: Uint8Array, pos: number, width: number, take: number, minDelta: number, value: number, out: Float64Array, at: number): number {
  const mask = (1 << width) - 1;
  let buffer = 0;
  let bits = 0;
  let p = pos;
  for (let i = 0; i < take; i++) {
    while (bits < width) {
      buffer |= bytes[p++]! << bits;
      bits += 8;
    }
    value += minDelta + (buffer & mask);
    buffer >>>= width;
    bits -= width;
    out[at + i] = value;
  }
  return value;
}

/** Deltas of 17 to 32 bits: the low 16 bits, then the rest (fewer than 16 bits are held before each refill). */
function addTwoPieces(bytes: Uint8Array, pos: number, width: number, take: number, minDelta: number, value: number, out: Float64Array, at: number): number {
  const high = width - narrowBitsMax;
  const highMask = (1 << high) - 1;
  let buffer = 0;
  let bits = 0;
  let p = pos;
  for (let i = 0; i < take; i++) {
    while (bits < narrowBitsMax) {
      buffer |= bytes[p++]! << bits;
      bits += 8;
    }
    const low = buffer & 0xffff;
    buffer >>>= narrowBitsMax;
    bits -= narrowBitsMax;
    while (bits < high) {
      buffer |= bytes[p++]! << bits;
      bits += 8;
    }
    value += minDelta + low + (buffer & highMask) * 65536;
    buffer >>>= high;
    bits -= high;
    out[at + i] = value;
  }
  return value;
}

/**
 * Bytes a windowed read may look at past a miniblock's last value: each value is read from
 * the three (up to 16 bits) or five (up to 32) bytes where it starts, without a refill loop.
 */
const windowSlackBytes = 4;

/** addNarrow without the refill loop: each value from the 24 bits at its first byte (it needs at most 16 + 7). */
function addNarrowWindowed(bytes: Uint8Array, pos: number, width: number, take: number, minDelta: number, value: number, out: Float64Array, at: number): number {
  const mask = (1 << width) - 1;
  for (let i = 0; i < take; i++) {
    const bit = i * width;
    const b = pos + (bit >>> 3);
    value += minDelta + (((bytes[b]! | (bytes[b + 1]! << 8) | (bytes[b + 2]! << 16)) >>> (bit & 7)) & mask);
    out[at + i] = value;
  }
  return value;
}

/** addTwoPieces without the refill loops: the low 16 bits from the value's first 3 bytes, the rest from the 3 after its first 2. */
function addTwoPiecesWindowed(bytes: Uint8Array, pos: number, width: number, take: number, minDelta: number, value: number, out: Float64Array, at: number): number {
  const highMask = (1 << (width - narrowBitsMax)) - 1;
  for (let i = 0; i < take; i++) {
    const bit = i * width;
    const b = pos + (bit >>> 3);
    const shift = bit & 7;
    const low = ((bytes[b]! | (bytes[b + 1]! << 8) | (bytes[b + 2]! << 16)) >>> shift) & 0xffff;
    const high = ((bytes[b + 2]! | (bytes[b + 3]! << 8) | (bytes[b + 4]! << 16)) >>> shift) & highMask;
    value += minDelta + low + high * 65536;
    out[at + i] = value;
  }
  return value;
}

let wide = new Float64Array(0);

/** Deltas wider than 32 bits (up to packedBitsMax). */
function addWide(bytes: Uint8Array, pos: number, width: number, take: number, minDelta: number, value: number, out: Float64Array, at: number): number {
  if (wide.length < take) wide = new Float64Array(take);
  const packed = wide;
  unpackNumbers(bytes, pos, width, take, packed, 0);
  for (let i = 0; i < take; i++) out[at + i] = value += minDelta + packed[i]!;
  return value;
}

/** Reads a zigzag varint at `cursor.pos` without bounds checks (a read past the end gives NaN, which the caller's checks catch). */
function leanZigzag(bytes: Uint8Array, cursor: { pos: number }): number {
  let value = 0;
  let scale = 1;
  let byte = 0;
  do {
    byte = bytes[cursor.pos++]!;
    value += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte >= 0x80 && scale < 2 ** 56);
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

/**
 * The blocks after the header: `count` - 1 values after `first`. Returns the position after
 * the last miniblock read, or -1 when a sum might have passed 2^53 or a width is past
 * packedBitsMax. It has no error paths of its own: JSC optimises a function only once most of
 * its code has run, and throws that never run kept it in its baseline tier.
 */
function deltaBlocks(bytes: Uint8Array, pos: number, miniblocks: number, miniblockValues: number, count: number, first: number, out: Float64Array, at: number, int32: boolean): number {
  const cursor = { pos };
  let value = first;
  let reach = 0;
  let done = 1;
  while (done < count) {
    const minDelta = leanZigzag(bytes, cursor);
    const widthsAt = cursor.pos;
    cursor.pos += miniblocks;
    for (let miniblock = 0; miniblock < miniblocks && done < count; miniblock++) {
      const width = bytes[widthsAt + miniblock]!;
      const take = Math.min(miniblockValues, count - done);
      reach = Math.max(reach, Math.abs(value) + take * (Math.abs(minDelta) + 2 ** width), width > packedBitsMax ? Infinity : 0);
      // Windowed reads while the bytes they may look at are in the page (all but its end).
      const windowed = cursor.pos + Math.ceil((take * width) / 8) + windowSlackBytes <= bytes.length;
      if (width <= narrowBitsMax) {
        value = windowed ? addNarrowWindowed(bytes, cursor.pos, width, take, minDelta, value, out, at + done) : addNarrow(bytes, cursor.pos, width, take, minDelta, value, out, at + done);
      } else if (width <= 2 * narrowBitsMax) {
        value = windowed ? addTwoPiecesWindowed(bytes, cursor.pos, width, take, minDelta, value, out, at + done) : addTwoPieces(bytes, cursor.pos, width, take, minDelta, value, out, at + done);
      }
      else value = addWide(bytes, cursor.pos, Math.min(width, packedBitsMax), take, minDelta, value, out, at + done);
      if (int32) value |= 0;
      // The last miniblock need not be padded to its full size: it ends after its values.
      cursor.pos += done + take < count ? (miniblockValues * width) / 8 : Math.ceil((take * width) / 8);
      done += take;
    }
  }
  return reach <= Number.MAX_SAFE_INTEGER ? cursor.pos : -1;
}

/** Decodes `count` values from `cursor` (which must not pass `end`) into `out` from `at` (int32 columns: as int32 sums). */
export function decodeDelta(cursor: Cursor, end: number, count: number, out: Float64Array, at: number, int32: boolean): void {
  const blockValues = varint(cursor);
  const miniblocks = varint(cursor);
  const total = varint(cursor);
  const first = zigzag(cursor);
  const miniblockValues = blockValues / miniblocks;
  if (blockValues % blockValuesUnit !== 0 || !Number.isInteger(miniblockValues) || miniblockValues % miniblockValuesUnit !== 0) {
    throw new ParquetUnsupportedError(`a delta block of ${blockValues} values in ${miniblocks} miniblocks is not valid`);
  }
  if (total !== count) throw new ParquetUnsupportedError(`delta data holds ${total} values where ${count} are expected`);
  if (count === 0) return;
  out[at] = first;
  const after = deltaBlocks(cursor.bytes, cursor.pos, miniblocks, miniblockValues, count, first, out, at, int32);
  if (after < 0) throw new ParquetUnsupportedError("delta values may pass 2^53");
  if (after > end) throw new ParquetUnsupportedError("delta data passes its page");
  cursor.pos = after;
}
