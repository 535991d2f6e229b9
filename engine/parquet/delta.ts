// DELTA_BINARY_PACKED (parquet-format, Encodings.md): a header (values per block, miniblocks
// per block, value count, first value), then blocks of a minimum delta, one bit width per
// miniblock and the miniblocks' bit-packed (delta - minimum). Storage writes `timestamp` and
// `person_index` this way. Values are summed as JS numbers: a miniblock is decoded only when
// none of its sums can pass 2^53 (int64 columns past that are refused); int32 sums wrap to 32
// bits after each miniblock, as int32 arithmetic does. Each block's miniblocks are copied into
// aligned words once (bits.ts) and unpacked from there.
import { packedBitsMax, packedWords, unpackWide, varint, widthMask, wordBitsMax, zigzag, type Cursor } from "./bits.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

/** Block and miniblock sizes are multiples of these (the specification's rules): miniblocks take whole words. */
const blockValuesUnit = 128;
const miniblockValuesUnit = 32;

/**
 * Adds `take` deltas of `width` bits (at most 32) packed in `words` from word `from` to
 * `value`, writing each sum; returns the last. (The extraction is packedValue's, inline: this
 * loop runs while the process is cold, before JSC would inline a call.)
 */
function addPacked(words: Int32Array, from: number, width: number, take: number, minDelta: number, value: number, out: Float64Array, at: number): number {
  const mask = widthMask(width);
  for (let i = 0; i < take; i++) {
    const bit = i * width;
    const word = from + (bit >>> 5);
    const shift = bit & 31;
    value += minDelta + ((((words[word]! >>> shift) | ((words[word + 1]! << 1) << (31 - shift))) & mask) >>> 0);
    out[at + i] = value;
  }
  return value;
}

let wide = new Float64Array(0);

/** Deltas wider than 32 bits (up to packedBitsMax), read from bytes. */
function addWide(bytes: Uint8Array, pos: number, width: number, take: number, minDelta: number, value: number, out: Float64Array, at: number): number {
  if (wide.length < take) wide = new Float64Array(take);
  const packed = wide;
  unpackWide(bytes, pos, width, take, packed);
  for (let i = 0; i < take; i++) out[at + i] = value += minDelta + packed[i]!;
  return value;
}

/** Reads a zigzag varint at `cursor.pos` without bounds checks (a read past the end stops it, and the caller's end check catches that). */
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

/** What deltaBlocks found wrong, if anything. */
const sumsPassExactness = -1;
const valuesPassEnd = -2;

/**
 * The blocks after the header: `count` - 1 values after `first`. Returns the position after
 * the last miniblock (padded to its full size, as the specification has writers do), or
 * sumsPassExactness when a sum might pass 2^53 or a width packedBitsMax, or valuesPassEnd when
 * the values read pass `end` (a last miniblock without its padding is accepted). It has no
 * error paths of its own: JSC optimises a function only once most of its code has run, and
 * throws that never ran kept it in its baseline tier (measured).
 */
function deltaBlocks(
  bytes: Uint8Array, pos: number, end: number, miniblocks: number, miniblockValues: number, count: number, first: number, out: Float64Array, at: number, int32: boolean,
): number {
  const cursor = { pos };
  let value = first;
  let reach = 0;
  let read = pos;
  let done = 1;
  while (done < count) {
    const minDelta = leanZigzag(bytes, cursor);
    const widthsAt = cursor.pos;
    cursor.pos += miniblocks;
    let blockBytes = 0;
    for (let miniblock = 0; miniblock < miniblocks; miniblock++) blockBytes += (miniblockValues * bytes[widthsAt + miniblock]!) / 8;
    // The last block may end early (its unused miniblocks, and the last one's padding, need not be written).
    const words = packedWords(bytes, cursor.pos, Math.min(cursor.pos + blockBytes, bytes.length));
    let word = 0;
    for (let miniblock = 0; miniblock < miniblocks && done < count; miniblock++) {
      const width = bytes[widthsAt + miniblock]!;
      const take = Math.min(miniblockValues, count - done);
      reach = Math.max(reach, Math.abs(value) + take * (Math.abs(minDelta) + 2 ** width), width > packedBitsMax ? Infinity : 0);
      if (width <= wordBitsMax) value = addPacked(words, word, width, take, minDelta, value, out, at + done);
      else value = addWide(bytes, cursor.pos + 4 * word, Math.min(width, packedBitsMax), take, minDelta, value, out, at + done);
      if (int32) value |= 0;
      read = cursor.pos + 4 * word + Math.ceil((take * width) / 8);
      word += (miniblockValues * width) / 32;
      done += take;
    }
    cursor.pos += 4 * word;
  }
  if (reach > Number.MAX_SAFE_INTEGER) return sumsPassExactness;
  return read > end ? valuesPassEnd : cursor.pos;
}

/**
 * Decodes `count` values from `cursor` (which must not pass `end`) into `out` from `at` (int32
 * columns: as int32 sums), leaving the cursor after them (what follows in DELTA_LENGTH_BYTE_ARRAY).
 */
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
  const after = deltaBlocks(cursor.bytes, cursor.pos, end, miniblocks, miniblockValues, count, first, out, at, int32);
  if (after === sumsPassExactness) throw new ParquetUnsupportedError("delta values may pass 2^53");
  if (after === valuesPassEnd) throw new ParquetUnsupportedError("delta data passes its page");
  cursor.pos = Math.min(after, end);
}
