// One column of a part, decoded from its column chunks (one per row group) straight into the
// form the ChunkStore keeps (engine/columns.ts): text and booleans as codes and words (null:
// -1), numbers as values with a presence array when some are null, int32 values and
// timestamps as typed arrays (a null reads 0, as parquet-wasm leaves it).
import { WordIds } from "../../storage/word-ids.ts";
import type { Decoded } from "../columns.ts";
import { heapArrays, type ArrayAllocator } from "../parallel/arrays.ts";
import { decodeHybrid, varint } from "./bits.ts";
import type { LeafColumn } from "./footer.ts";
import { chunkPages } from "./pages.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";
import type { PageDictionary } from "./dictionary.ts";
import { boolWords, decodeDictionary, decodeValues } from "./values.ts";

/**
 * A row group's chunk of the column: how to read its bytes from the first page (valid until the
 * next chunk is read), or null when statistics say every value is null.
 */
export interface ChunkBytes {
  rows: number;
  codec: number;
  read: (() => Uint8Array) | null;
}

let levels = new Int32Array(0);
let denseNumbers = new Float64Array(0);
let denseInts = new Int32Array(0);

/** How many of a page's `count` slots are set (definition level 1), read from the level runs without expanding them. */
function definedCount(data: Uint8Array, count: number): number {
  const cursor = { bytes: data, pos: 0 };
  let slots = 0;
  let defined = 0;
  while (slots < count) {
    if (cursor.pos >= data.byteLength) throw new ParquetUnsupportedError("definition levels end early");
    const header = varint(cursor);
    if (header % 2 === 0) {
      const run = Math.min(header / 2, count - slots);
      if (cursor.pos >= data.byteLength) throw new ParquetUnsupportedError("definition levels end early");
      if (data[cursor.pos++] === 1) defined += run;
      slots += run;
    } else {
      const groups = (header - 1) / 2;
      // One bit per slot: count the set bits of the slots that are in the page.
      const take = Math.min(groups * 8, count - slots);
      for (let bit = 0; bit < take; bit++) defined += (data[cursor.pos + (bit >> 3)]! >> (bit & 7)) & 1;
      cursor.pos += groups;
      slots += take;
    }
  }
  return defined;
}

/** Definition levels of a page's `count` slots into `levels`. */
function expandLevels(data: Uint8Array, count: number): void {
  if (levels.length < count) levels = new Int32Array(count);
  decodeHybrid({ bytes: data, pos: 0 }, data.byteLength, 1, count, levels, 0);
}

// One scatter per array type (an element access that sees both is compiled for either, slower).
function scatterInts(dense: Int32Array, count: number, out: Int32Array, at: number, nullValue: number): void {
  let next = 0;
  for (let i = 0; i < count; i++) out[at + i] = levels[i] === 1 ? dense[next++]! : nullValue;
}

function scatterNumbers(dense: Float64Array, count: number, out: Float64Array, at: number): void {
  let next = 0;
  for (let i = 0; i < count; i++) out[at + i] = levels[i] === 1 ? dense[next++]! : 0;
}

function denseFor(out: Float64Array | Int32Array, count: number): Float64Array | Int32Array {
  if (out instanceof Float64Array) {
    if (denseNumbers.length < count) denseNumbers = new Float64Array(count);
    return denseNumbers;
  }
  if (denseInts.length < count) denseInts = new Int32Array(count);
  return denseInts;
}

/** The column's values in arrays from `arrays` (shared memory when a worker decodes). */
export function decodeColumn(column: LeafColumn, chunks: ChunkBytes[], arrays: ArrayAllocator = heapArrays): Decoded {
  const rows = chunks.reduce((sum, chunk) => sum + chunk.rows, 0);
  const words = new WordIds();
  if (column.type === "bool") for (const word of boolWords) words.id(word);
  const text = column.type === "text" || column.type === "bool";
  const out = text || column.type === "int32" ? arrays.int32(rows) : arrays.float64(rows);
  const nullValue = text ? -1 : 0;
  let present: Uint8Array | null = null;
  let at = 0;
  /** Marks rows [from, from + count) of a number column as set, unset, or as the page's `levels` say. */
  const markPresent = (from: number, count: number, set: "all" | "none" | "levels") => {
    if (column.type !== "number") return;
    if (set !== "all") present ??= arrays.uint8(rows).fill(1, 0, from);
    if (present === null) return;
    if (set === "levels") for (let i = 0; i < count; i++) present[from + i] = levels[i]!;
    else present.fill(set === "all" ? 1 : 0, from, from + count);
  };
  for (const chunk of chunks) {
    const end = at + chunk.rows;
    if (chunk.read === null) {
      out.fill(nullValue, at, end);
      markPresent(at, chunk.rows, "none");
      at = end;
      continue;
    }
    let dictionary: PageDictionary | null = null;
    for (const page of chunkPages(chunk.read(), chunk.codec, column.optional)) {
      if (page.kind === "dictionary") {
        dictionary = decodeDictionary(column.physical, page.data, page.values, words);
        continue;
      }
      const count = page.values;
      if (at + count > end) throw new ParquetUnsupportedError(`column "${column.name}" has more values than its row group's rows`);
      const defined = page.levels === null ? count : definedCount(page.levels, count);
      if (defined === count) {
        decodeValues(column.physical, page.encoding, page.data, count, dictionary, words, out, at);
        markPresent(at, count, "all");
      } else {
        expandLevels(page.levels!, count);
        const dense = denseFor(out, defined);
        decodeValues(column.physical, page.encoding, page.data, defined, dictionary, words, dense, 0);
        if (out instanceof Int32Array) scatterInts(dense as Int32Array, count, out, at, nullValue);
        else scatterNumbers(dense as Float64Array, count, out, at);
        markPresent(at, count, "levels");
      }
      at += count;
    }
    if (at !== end) throw new ParquetUnsupportedError(`column "${column.name}" has fewer values than its row group's rows`);
  }
  if (column.type === "number") return { kind: "number", values: out as Float64Array, present };
  if (text) return { kind: "text", codes: out as Int32Array, words: words.words };
  return out;
}
