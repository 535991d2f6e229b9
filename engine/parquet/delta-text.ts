// The delta encodings of byte arrays (parquet-format, Encodings.md), which writers of data
// page v2 fall back to when a dictionary grows too large: DELTA_LENGTH_BYTE_ARRAY (every
// length, DELTA_BINARY_PACKED, then every value's bytes one after the other) and
// DELTA_BYTE_ARRAY (lengths of the prefix shared with the previous value, then the suffixes as
// DELTA_LENGTH_BYTE_ARRAY). Values are written as codes in the part's words.
import type { WordIds } from "../../storage/word-ids.ts";
import type { Cursor } from "./bits.ts";
import { decodeDelta } from "./delta.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

// A leading U+FEFF is part of a value, not a byte order mark to drop.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

let lengths: Float64Array = new Float64Array(0);
let prefixes: Float64Array = new Float64Array(0);
let value: Uint8Array = new Uint8Array(256);

/** `count` lengths (DELTA_BINARY_PACKED int32) from `cursor` into `into`, grown as needed; returns the array. */
function readLengths(cursor: Cursor, end: number, count: number, into: Float64Array): Float64Array {
  const out = into.length < count ? new Float64Array(count) : into;
  decodeDelta(cursor, end, count, out, 0, true);
  for (let i = 0; i < count; i++) if (out[i]! < 0) throw new ParquetUnsupportedError("a byte array has a negative length");
  return out;
}

export function deltaLengthText(data: Uint8Array, count: number, words: WordIds, out: Int32Array, at: number): void {
  const cursor = { bytes: data, pos: 0 };
  lengths = readLengths(cursor, data.byteLength, count, lengths);
  let pos = cursor.pos;
  for (let i = 0; i < count; i++) {
    const end = pos + lengths[i]!;
    if (end > data.byteLength) throw new ParquetUnsupportedError("byte arrays pass their page");
    out[at + i] = words.id(decoder.decode(data.subarray(pos, end)));
    pos = end;
  }
}

export function deltaText(data: Uint8Array, count: number, words: WordIds, out: Int32Array, at: number): void {
  const cursor = { bytes: data, pos: 0 };
  prefixes = readLengths(cursor, data.byteLength, count, prefixes);
  lengths = readLengths(cursor, data.byteLength, count, lengths);
  let pos = cursor.pos;
  let length = 0;
  let code = -1;
  for (let i = 0; i < count; i++) {
    const prefix = prefixes[i]!;
    const suffix = lengths[i]!;
    if (prefix > length || pos + suffix > data.byteLength) throw new ParquetUnsupportedError("a delta byte array passes its previous value or its page");
    // A value equal to the previous one (its whole prefix, no suffix) keeps its code.
    if (code < 0 || prefix !== length || suffix !== 0) {
      if (value.length < prefix + suffix) value = growTo(value, prefix + suffix, prefix);
      value.set(data.subarray(pos, pos + suffix), prefix);
      length = prefix + suffix;
      code = words.id(decoder.decode(value.subarray(0, length)));
    }
    out[at + i] = code;
    pos += suffix;
  }
}

/** A larger buffer holding the first `keep` bytes of `bytes`. */
function growTo(bytes: Uint8Array, size: number, keep: number): Uint8Array {
  const grown = new Uint8Array(Math.max(size, 2 * bytes.length));
  grown.set(bytes.subarray(0, keep));
  return grown;
}
