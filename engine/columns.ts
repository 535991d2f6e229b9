// Decoded columns as the executor reads them: typed arrays, strings dictionary-encoded.
//   TextColumn    codes[row] indexes `words`, -1 where the value is absent
//   NumberColumn  values[row], present[row] = 1 where set (null: every row is set)
// Parquet parts are decoded into these by parquet/ (the ChunkStore keeps them); Arrow data from
// segments and buffered rows (apache-arrow), and from parts parquet/ leaves to parquet-wasm
// (arrow-ffi.ts), is turned into them once per file and column, reading Arrow's buffers
// directly: no row proxies, no BigInt per value.
import { Type, type Data } from "apache-arrow";
import type { ColumnType } from "./chunk-store.ts";
import { WordIds } from "../storage/word-ids.ts";

/**
 * One Arrow array as the decoders read it, whichever library holds it. Fixed-width `values`
 * and `valueOffsets` start at the array's first row; bitmaps (`nullBitmap`, booleans' values)
 * start at bit `offset`. Utf8 `values` are the whole data buffer (offsets index it).
 */
export interface ArrowData {
  typeId: Type;
  length: number;
  offset: number;
  nullCount: number;
  nullBitmap: Uint8Array | null;
  values: Uint8Array | Int32Array | Float64Array | BigInt64Array;
  valueOffsets: Int32Array | null;
  /** A dictionary array's words. */
  dictionary: ArrowData[] | null;
}

/** An apache-arrow array (segments, buffered rows) as ArrowData: its buffers, not copied. */
export function fromArrowData(data: Data): ArrowData {
  return {
    typeId: data.type.typeId,
    length: data.length,
    offset: data.offset,
    nullCount: data.nullCount,
    nullBitmap: data.nullBitmap && data.nullBitmap.byteLength > 0 ? data.nullBitmap : null,
    values: data.values,
    valueOffsets: data.valueOffsets ?? null,
    dictionary: data.dictionary ? data.dictionary.data.map(fromArrowData) : null,
  };
}

export interface TextColumn {
  kind: "text";
  codes: Int32Array;
  words: string[];
}

export interface NumberColumn {
  kind: "number";
  values: Float64Array;
  present: Uint8Array | null;
}

export type Column = TextColumn | NumberColumn;

// A leading U+FEFF is part of a value, not a byte order mark to drop.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

const hasNulls = (chunk: ArrowData) => chunk.nullBitmap !== null && chunk.nullCount > 0;

/** The validity bitmap of a chunk with nulls as one byte per row (1 = set), written to `out` from `at`, a byte of the bitmap at a time. */
function expandValidity(chunk: ArrowData, out: Uint8Array, at: number): void {
  const bitmap = chunk.nullBitmap!;
  let row = 0;
  // Rows up to the first whole byte of the bitmap, then eight rows per byte, then the rest.
  for (; row < chunk.length && ((chunk.offset + row) & 7) !== 0; row++) out[at + row] = isValid(chunk, row) ? 1 : 0;
  for (; row + 8 <= chunk.length; row += 8) {
    const byte = bitmap[(chunk.offset + row) >> 3]!;
    const base = at + row;
    out[base] = byte & 1;
    out[base + 1] = (byte >> 1) & 1;
    out[base + 2] = (byte >> 2) & 1;
    out[base + 3] = (byte >> 3) & 1;
    out[base + 4] = (byte >> 4) & 1;
    out[base + 5] = (byte >> 5) & 1;
    out[base + 6] = (byte >> 6) & 1;
    out[base + 7] = (byte >> 7) & 1;
  }
  for (; row < chunk.length; row++) out[at + row] = isValid(chunk, row) ? 1 : 0;
}

const isValid = (chunk: ArrowData, row: number): boolean => {
  const bitmap = chunk.nullBitmap;
  if (!bitmap || chunk.nullCount === 0) return true;
  const bit = chunk.offset + row;
  return (bitmap[bit >> 3]! & (1 << (bit & 7))) !== 0;
};

/** A utf8 array's word at a row, decoding the whole array's text once on first use (one TextDecoder call is far cheaper than one per word). */
function utf8Reader(chunk: ArrowData): (row: number) => string {
  const offsets = chunk.valueOffsets as Int32Array;
  const bytes = chunk.values as Uint8Array;
  const first = offsets[0]!;
  const last = offsets[chunk.length]!;
  let text: string | null = null;
  let ascii = false;
  return (row) => {
    if (text === null) {
      text = decoder.decode(bytes.subarray(first, last));
      ascii = text.length === last - first;
    }
    return ascii ? text.slice(offsets[row]! - first, offsets[row + 1]! - first) : decoder.decode(bytes.subarray(offsets[row]!, offsets[row + 1]!));
  };
}

function utf8Words(chunk: ArrowData): (string | null)[] {
  const word = utf8Reader(chunk);
  const out: (string | null)[] = new Array(chunk.length);
  for (let row = 0; row < chunk.length; row++) out[row] = isValid(chunk, row) ? word(row) : null;
  return out;
}

/**
 * Codes in `dictionary` of a utf8 array's rows, written to `codes` from `at`. Rows are sorted
 * by person and time, so a value often repeats the previous row's (a person's currency, a
 * session's id): comparing bytes with that row skips making a string and a Map lookup, which
 * cost several times more (measured on a cold query; hashing bytes in JS to find other repeats
 * was slower than the Map on long or many distinct values while cold).
 */
function utf8Codes(chunk: ArrowData, dictionary: WordIds, codes: Int32Array, at: number): void {
  const offsets = chunk.valueOffsets!;
  const bytes = chunk.values as Uint8Array;
  const word = utf8Reader(chunk);
  let previousStart = 0;
  let previousEnd = 0;
  let previousCode = -1;
  for (let row = 0; row < chunk.length; row++) {
    if (!isValid(chunk, row)) {
      codes[at + row] = -1;
      continue;
    }
    const start = offsets[row]!;
    const end = offsets[row + 1]!;
    if (previousCode < 0 || !sameBytes(bytes, previousStart, previousEnd, start, end)) {
      previousCode = dictionary.id(word(row));
      previousStart = start;
      previousEnd = end;
    }
    codes[at + row] = previousCode;
  }
}

function sameBytes(bytes: Uint8Array, start: number, end: number, otherStart: number, otherEnd: number): boolean {
  if (end - start !== otherEnd - otherStart) return false;
  for (let i = 0; i < end - start; i++) if (bytes[start + i] !== bytes[otherStart + i]) return false;
  return true;
}

const rowsOf = (chunks: ArrowData[]) => chunks.reduce((sum, chunk) => sum + chunk.length, 0);

/** A string, dictionary or boolean column as a TextColumn (booleans read "true" / "false"). */
export function textColumn(chunks: ArrowData[]): TextColumn {
  const codes = new Int32Array(rowsOf(chunks));
  const dictionary = new WordIds();
  let at = 0;
  for (const chunk of chunks) {
    const typeId = chunk.typeId;
    if (typeId === Type.Dictionary) {
      const local: number[] = [];
      for (const part of chunk.dictionary!) for (const word of utf8Words(part)) local.push(word === null ? -1 : dictionary.id(word));
      const indices = chunk.values as Int32Array;
      const lookup = Int32Array.from(local);
      // Cold queries run these loops before the JIT has optimised them: no per-row validity
      // test when the chunk has no nulls, and a plain table lookup.
      if (!hasNulls(chunk)) for (let row = 0; row < chunk.length; row++) codes[at + row] = lookup[indices[row]!]!;
      else for (let row = 0; row < chunk.length; row++) codes[at + row] = isValid(chunk, row) ? lookup[indices[row]!]! : -1;
    } else if (typeId === Type.Utf8) utf8Codes(chunk, dictionary, codes, at);
    else if (typeId === Type.Bool) {
      const [no, yes] = [dictionary.id("false"), dictionary.id("true")];
      const bits = chunk.values as Uint8Array;
      for (let row = 0; row < chunk.length; row++) {
        const bit = chunk.offset + row;
        codes[at + row] = isValid(chunk, row) ? ((bits[bit >> 3]! & (1 << (bit & 7))) !== 0 ? yes : no) : -1;
      }
    } else throw new Error(`an Arrow ${Type[typeId]} column cannot be read as text`);
    at += chunk.length;
  }
  return { kind: "text", codes, words: dictionary.words };
}

export function numberColumn(chunks: ArrowData[]): NumberColumn {
  const rows = rowsOf(chunks);
  const values = new Float64Array(rows);
  let present: Uint8Array | null = null;
  let at = 0;
  for (const chunk of chunks) {
    if (chunk.typeId !== Type.Float) throw new Error(`an Arrow ${Type[chunk.typeId]} column cannot be read as numbers`);
    values.set((chunk.values as Float64Array).subarray(0, chunk.length), at);
    if (hasNulls(chunk)) {
      present ??= new Uint8Array(rows).fill(1, 0, at);
      expandValidity(chunk, present, at);
      // What a null slot holds is unspecified (it differs between Parquet readers): zero it.
      for (let row = 0; row < chunk.length; row++) if (present[at + row] === 0) values[at + row] = 0;
    } else present?.fill(1, at, at + chunk.length);
    at += chunk.length;
  }
  return { kind: "number", values, present };
}

/** Epoch milliseconds of a millisecond timestamp column (int64 read as two int32 halves, never BigInt). */
export function timestampColumn(chunks: ArrowData[]): Float64Array {
  const out = new Float64Array(rowsOf(chunks));
  let at = 0;
  for (const chunk of chunks) {
    const wide = chunk.values as BigInt64Array;
    const halves = new Int32Array(wide.buffer, wide.byteOffset, chunk.length * 2);
    for (let row = 0; row < chunk.length; row++) out[at + row] = halves[2 * row + 1]! * 4294967296 + (halves[2 * row]! >>> 0);
    at += chunk.length;
  }
  return out;
}

export function int32Column(chunks: ArrowData[]): Int32Array {
  const out = new Int32Array(rowsOf(chunks));
  let at = 0;
  for (const chunk of chunks) {
    out.set((chunk.values as Int32Array).subarray(0, chunk.length), at);
    at += chunk.length;
  }
  return out;
}

/** A column as the ChunkStore keeps it: timestamps as epoch ms, int32 columns as they are. */
export type Decoded = Column | Float64Array | Int32Array;

export function decodeColumn(arrays: ArrowData[], type: ColumnType): Decoded {
  if (type === "number") return numberColumn(arrays);
  if (type === "int32") return int32Column(arrays);
  if (type === "timestamp") return timestampColumn(arrays);
  return textColumn(arrays);
}

export const nullTextColumn = (rows: number): TextColumn => ({ kind: "text", codes: new Int32Array(rows).fill(-1), words: [] });
export const nullNumberColumn = (rows: number): NumberColumn => ({ kind: "number", values: new Float64Array(rows), present: new Uint8Array(rows) });

/** Approximate bytes a decoded column holds (for the cache's bound). */
export function columnBytes(column: Decoded): number {
  if (column instanceof Float64Array || column instanceof Int32Array) return column.byteLength;
  if (column.kind === "number") return column.values.byteLength + (column.present?.byteLength ?? 0);
  let words = 0;
  for (const word of column.words) words += 40 + word.length * 2;
  return column.codes.byteLength + words;
}

/** Canonical text of a number, as JavaScript writes it (what a mixed-type property compares as). */
export const numberText = (value: number): string => String(value);

/** The text a value compares as: strings as they are, numbers as JavaScript writes them, anything else as its JSON (true, false, objects). */
export const valueText = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" ? numberText(value) : JSON.stringify(value);

/** A number written as text, or null: the numeric reading of a text value (strict: no spaces, no hex, no "Infinity"). */
const numericText = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
export const numericPattern = numericText.source;
export function textNumber(text: string): number | null {
  return numericText.test(text) ? Number(text) : null;
}

/** A number column read as text (for a property whose files disagree on its type). */
export function numbersAsText(column: NumberColumn): TextColumn {
  const dictionary = new WordIds();
  const codes = new Int32Array(column.values.length);
  const byValue = new Map<number, number>();
  for (let row = 0; row < codes.length; row++) {
    if (column.present && column.present[row] === 0) {
      codes[row] = -1;
      continue;
    }
    const value = column.values[row]!;
    let code = byValue.get(value);
    if (code === undefined) {
      code = dictionary.id(numberText(value));
      byValue.set(value, code);
    }
    codes[row] = code;
  }
  return { kind: "text", codes, words: dictionary.words };
}

/** A column of JSON texts (a mixed-type property) read as text: strings as themselves, numbers and booleans as written. */
export function jsonAsText(column: TextColumn): TextColumn {
  const remap = column.words.map((word) => valueText(JSON.parse(word)));
  const dictionary = new WordIds();
  const codesOfWord = remap.map((word) => dictionary.id(word));
  const codes = new Int32Array(column.codes.length);
  for (let row = 0; row < codes.length; row++) codes[row] = column.codes[row]! < 0 ? -1 : codesOfWord[column.codes[row]!]!;
  return { kind: "text", codes, words: dictionary.words };
}
