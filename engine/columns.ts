// Decoded columns as the executor reads them: typed arrays, strings dictionary-encoded.
//   TextColumn    codes[row] indexes `words`, -1 where the value is absent
//   NumberColumn  values[row], present[row] = 1 where set (null: every row is set)
// Arrow data from Parquet parts, segments and buffered rows is turned into these once per
// file and column (decode-cache.ts keeps them), reading Arrow's buffers directly: no row
// proxies, no BigInt per value.
import { Type, type Data, type Vector } from "apache-arrow";
import { WordIds } from "./word-ids.ts";

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

const decoder = new TextDecoder();

const isValid = (chunk: Data, row: number): boolean => {
  const bitmap = chunk.nullBitmap;
  if (!bitmap || bitmap.byteLength === 0 || chunk.nullCount === 0) return true;
  const bit = chunk.offset + row;
  return (bitmap[bit >> 3]! & (1 << (bit & 7))) !== 0;
};

function utf8Words(chunk: Data): (string | null)[] {
  const offsets = chunk.valueOffsets as Int32Array;
  const bytes = chunk.values as Uint8Array;
  const out: (string | null)[] = new Array(chunk.length);
  const first = offsets[0]!;
  const last = offsets[chunk.length]!;
  const text = decoder.decode(bytes.subarray(first, last));
  const ascii = text.length === last - first;
  for (let row = 0; row < chunk.length; row++) {
    if (!isValid(chunk, row)) out[row] = null;
    else out[row] = ascii ? text.slice(offsets[row]! - first, offsets[row + 1]! - first) : decoder.decode(bytes.subarray(offsets[row]!, offsets[row + 1]!));
  }
  return out;
}

/** A string, dictionary or boolean vector as a TextColumn (booleans read "true" / "false"). */
export function textColumn(vector: Vector): TextColumn {
  const codes = new Int32Array(vector.length);
  const dictionary = new WordIds();
  let at = 0;
  for (const chunk of vector.data) {
    const typeId = chunk.type.typeId;
    if (typeId === Type.Dictionary) {
      const local: number[] = [];
      for (const part of chunk.dictionary!.data) for (const word of utf8Words(part)) local.push(word === null ? -1 : dictionary.id(word));
      const indices = chunk.values as Int32Array;
      for (let row = 0; row < chunk.length; row++) codes[at + row] = isValid(chunk, row) ? local[indices[row]!]! : -1;
    } else if (typeId === Type.Utf8) {
      const words = utf8Words(chunk);
      for (let row = 0; row < chunk.length; row++) {
        const word = words[row];
        codes[at + row] = word === null ? -1 : dictionary.id(word!);
      }
    } else if (typeId === Type.Bool) {
      const [no, yes] = [dictionary.id("false"), dictionary.id("true")];
      const bits = chunk.values as Uint8Array;
      for (let row = 0; row < chunk.length; row++) {
        const bit = chunk.offset + row;
        codes[at + row] = isValid(chunk, row) ? ((bits[bit >> 3]! & (1 << (bit & 7))) !== 0 ? yes : no) : -1;
      }
    } else throw new Error(`a ${chunk.type} column cannot be read as text`);
    at += chunk.length;
  }
  return { kind: "text", codes, words: dictionary.words };
}

export function numberColumn(vector: Vector): NumberColumn {
  const values = new Float64Array(vector.length);
  let present: Uint8Array | null = null;
  let at = 0;
  for (const chunk of vector.data) {
    if (chunk.type.typeId !== Type.Float) throw new Error(`a ${chunk.type} column cannot be read as numbers`);
    values.set((chunk.values as Float64Array).subarray(0, chunk.length), at);
    if (chunk.nullCount > 0) {
      present ??= new Uint8Array(vector.length).fill(1, 0, at);
      for (let row = 0; row < chunk.length; row++) present[at + row] = isValid(chunk, row) ? 1 : 0;
    } else present?.fill(1, at, at + chunk.length);
    at += chunk.length;
  }
  return { kind: "number", values, present };
}

/** Epoch milliseconds of a timestamp vector (int64 read as two int32 halves, never BigInt). */
export function timestampColumn(vector: Vector): Float64Array {
  const out = new Float64Array(vector.length);
  let at = 0;
  for (const chunk of vector.data) {
    const wide = chunk.values as BigInt64Array;
    const halves = new Int32Array(wide.buffer, wide.byteOffset, chunk.length * 2);
    for (let row = 0; row < chunk.length; row++) out[at + row] = halves[2 * row + 1]! * 4294967296 + (halves[2 * row]! >>> 0);
    at += chunk.length;
  }
  return out;
}

export function int32Column(vector: Vector): Int32Array {
  const out = new Int32Array(vector.length);
  let at = 0;
  for (const chunk of vector.data) {
    out.set((chunk.values as Int32Array).subarray(0, chunk.length), at);
    at += chunk.length;
  }
  return out;
}

export const nullTextColumn = (rows: number): TextColumn => ({ kind: "text", codes: new Int32Array(rows).fill(-1), words: [] });
export const nullNumberColumn = (rows: number): NumberColumn => ({ kind: "number", values: new Float64Array(rows), present: new Uint8Array(rows) });

/** Approximate bytes a decoded column holds (for the cache's bound). */
export function columnBytes(column: Column | Float64Array | Int32Array): number {
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
