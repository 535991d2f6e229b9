// Dictionary-encoded data pages (RLE_DICTIONARY, or PLAIN_DICTIONARY from older writers): a
// bit width byte, then the RLE / bit-packing hybrid of indices into the row group's dictionary
// page. Each index is looked up as it is unpacked, into the column's codes (text: codes of the
// part's shared words) or values (numbers), without a separate array of indices.
//
// One copy of each loop per array type: an element access that sees both Int32Array and
// Float64Array is compiled for either and runs several times slower; and the loops have no
// error paths (an index outside the dictionary is flagged and thrown for after the page), as JSC
// optimises a function only once most of its code has run (measured: functions with error paths
// that never ran stayed in the baseline tier).
import { packedWords, varint, widthMask, wordBitsMax } from "./bits.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

/** A row group's dictionary: its values (numbers, int32 values, or codes of words), and whether value i is i (the part's first dictionary of a text column). */
export interface PageDictionary {
  values: Float64Array | Int32Array;
  identity: boolean;
}

export function pageDictionary(values: Float64Array | Int32Array): PageDictionary {
  let identity = values instanceof Int32Array;
  for (let i = 0; i < values.length && identity; i++) identity = values[i] === i;
  return { values, identity };
}

// The loops extract each index as bits.ts's packedValue does, written out: they run while the
// process is cold, before JSC would inline a call. An index past the dictionary makes `invalid`
// negative (size - 1 - index < 0).

/** Bit-packed indices into `out` as they are (an identity dictionary); returns a negative number if one is `size` or more. */
function packedIndices(words: Int32Array, width: number, take: number, size: number, out: Int32Array, at: number): number {
  const mask = widthMask(width);
  let invalid = 0;
  for (let i = 0; i < take; i++) {
    const bit = i * width;
    const word = bit >>> 5;
    const shift = bit & 31;
    const index = ((words[word]! >>> shift) | ((words[word + 1]! << 1) << (31 - shift))) & mask;
    invalid |= size - 1 - index;
    out[at + i] = index;
  }
  return invalid;
}

function packedInts(words: Int32Array, width: number, take: number, dictionary: Int32Array, out: Int32Array, at: number): number {
  const mask = widthMask(width);
  const size = dictionary.length;
  let invalid = 0;
  for (let i = 0; i < take; i++) {
    const bit = i * width;
    const word = bit >>> 5;
    const shift = bit & 31;
    const index = ((words[word]! >>> shift) | ((words[word + 1]! << 1) << (31 - shift))) & mask;
    invalid |= size - 1 - index;
    out[at + i] = dictionary[index]!;
  }
  return invalid;
}

function packedNumbers(words: Int32Array, width: number, take: number, dictionary: Float64Array, out: Float64Array, at: number): number {
  const mask = widthMask(width);
  const size = dictionary.length;
  let invalid = 0;
  for (let i = 0; i < take; i++) {
    const bit = i * width;
    const word = bit >>> 5;
    const shift = bit & 31;
    const index = ((words[word]! >>> shift) | ((words[word + 1]! << 1) << (31 - shift))) & mask;
    invalid |= size - 1 - index;
    out[at + i] = dictionary[index]!;
  }
  return invalid;
}

/** Decodes `count` dictionary indices of a data page as their dictionary values into `out` from `at`. */
export function dictionaryValues(data: Uint8Array, count: number, dictionary: PageDictionary | null, out: Float64Array | Int32Array, at: number): void {
  if (dictionary === null) throw new ParquetUnsupportedError("a dictionary-encoded page comes without a dictionary page");
  if (count === 0) return;
  const values = dictionary.values;
  const ints = out instanceof Int32Array && values instanceof Int32Array;
  if (!ints && !(out instanceof Float64Array && values instanceof Float64Array)) throw new Error("a dictionary's values and its column's are of different array types");
  const width = data[0]!;
  // Up to 31 bits, so every index reads as a non-negative int32 (no dictionary has 2^31 entries).
  if (width >= wordBitsMax) throw new ParquetUnsupportedError(`dictionary indices of ${width} bits are not read`);
  const end = data.byteLength;
  const cursor = { bytes: data, pos: 1 };
  const valueBytes = (width + 7) >> 3;
  let invalid = 0;
  let done = 0;
  while (done < count) {
    if (cursor.pos >= end) throw new ParquetUnsupportedError("dictionary indices end early");
    const header = varint(cursor);
    if (header % 2 === 1) {
      const groups = (header - 1) / 2;
      const runEnd = cursor.pos + groups * width;
      if (runEnd > end) throw new ParquetUnsupportedError("bit-packed indices pass their page");
      const take = Math.min(groups * 8, count - done);
      const words = packedWords(data, cursor.pos, runEnd);
      if (!ints) invalid |= packedNumbers(words, width, take, values as Float64Array, out as Float64Array, at + done);
      else if (dictionary.identity) invalid |= packedIndices(words, width, take, values.length, out as Int32Array, at + done);
      else invalid |= packedInts(words, width, take, values as Int32Array, out as Int32Array, at + done);
      cursor.pos = runEnd;
      done += take;
    } else {
      if (cursor.pos + valueBytes > end) throw new ParquetUnsupportedError("an RLE index run passes its page");
      let index = 0;
      for (let byte = 0; byte < valueBytes; byte++) index += data[cursor.pos + byte]! * 2 ** (8 * byte);
      cursor.pos += valueBytes;
      if (index >= values.length) throw new ParquetUnsupportedError("a dictionary index passes its dictionary");
      const run = Math.min(header / 2, count - done);
      out.fill(values[index]!, at + done, at + done + run);
      done += run;
    }
  }
  if (invalid < 0) throw new ParquetUnsupportedError("a dictionary index passes its dictionary");
}
