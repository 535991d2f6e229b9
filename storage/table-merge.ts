// Compaction's column work: several event files (sealed segments, Parquet parts) read as
// one sequence of rows, then the rows a part keeps (deduplicated by uuid, first arrival wins,
// sorted by person then time) gathered into a new table. Values move between Arrow buffers
// directly: numbers and flags by index, plain strings as bytes, dictionary strings by code
// (each input dictionary's words are looked up once, when first used). Only a property whose
// type differs between files is turned into JS values (its column becomes JSON text), and so
// are the values of keys past the column limit (foldRarestKeys).
import {
  Bool, Float64, Int32, Table, TimestampMillisecond, Type, Utf8, makeData, makeVector, type Data, type Vector,
} from "apache-arrow";
import { int64At, int64Words, vectorValues } from "./arrow-vectors.ts";
import { UuidTable, uuidWordsOfBytes } from "./uuid-index.ts";
import { DictionaryBuilder, Utf8Builder } from "./column-builders.ts";
import {
  dataBytes, fixedColumnNames, mixedPropertyColumnPrefix, propertyColumnPrefix, propertyColumnsMax, type PropertyKind,
} from "./event-columns.ts";

/** Counting sort by person needs an array as long as the largest person index: past this (relative to the rows), sort by comparison. */
const countingSortSpread = 8;
/** Person runs up to this long are put in time order by insertion (they are short and nearly sorted). */
const insertionRunMax = 32;
/** A property column's slot per row, at most (a Float64). */
const propertySlotBytes = 8;
/** The longest JSON text of a number (`-1.2345678901234567e-300`). */
const numberJsonBytesMax = 24;

/** About the bytes of a typed column's values as JSON text, one per row with its offset (gatherMixed's output). */
function jsonTextBytes(data: Data): number {
  // Per present value: a number's longest text, a boolean's, or a string's bytes and quotes.
  const typeId = data.type.typeId;
  const wordBytes = typeId === Type.Dictionary ? dictionaryWordBytes(data) : null;
  const codes = data.values as Int32Array;
  let bytes = 4 * data.length;
  for (let row = 0; row < data.length; row++) {
    if (!data.getValid(row)) continue;
    if (typeId === Type.Float) bytes += numberJsonBytesMax;
    else if (typeId === Type.Bool) bytes += 5;
    else if (wordBytes) bytes += wordBytes[codes[row]!]! + 2;
    else bytes += data.valueOffsets[row + 1]! - data.valueOffsets[row]! + 2;
  }
  return bytes;
}

/** The UTF-8 length of each word of a dictionary column's dictionary. */
function dictionaryWordBytes(data: Data): Int32Array {
  const words = data.dictionary!.data;
  const lengths = new Int32Array(words.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of words) for (let word = 0; word < chunk.length; word++) lengths[at++] = chunk.valueOffsets[word + 1]! - chunk.valueOffsets[word]!;
  return lengths;
}

/** One column's arrays, one per input batch (null where a batch lacks the column). */
type ColumnInputs = (Data | null)[];

/** A timestamp array's values as word pairs (int64Words). */
const timestampWords = (data: Data): Int32Array => int64Words(data.values as BigInt64Array, data.length);

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function propertyKindOf(name: string, data: Data): PropertyKind {
  if (name.startsWith(mixedPropertyColumnPrefix)) return "mixed";
  const typeId = data.type.typeId;
  return typeId === Type.Float ? "number" : typeId === Type.Bool ? "boolean" : "string";
}

/** The rows of several event files in order: row numbers count through the files' batches one after the other. */
export class MergeInput {
  readonly rows: number;
  /** Epoch ms and person index of every row. */
  readonly timestamps: Float64Array;
  readonly persons: Int32Array;
  private readonly batchOfRow: Int32Array;
  private readonly batchStart: number[] = [];
  private readonly batches: { names: Map<string, Data> }[];
  /** Property keys with the kind each batch stores them as. */
  private readonly propertyKinds = new Map<string, PropertyKind[]>();
  /** Bytes of the batches' Arrow buffers, plus what a table gathered from all their rows adds (gatheredExtraBytes). */
  private readonly gatheredBytes: number;

  constructor(tables: Table[]) {
    this.batches = tables.flatMap((table) =>
      table.batches.map((batch) => ({ names: new Map(batch.schema.fields.map((field, index) => [field.name, batch.data.children[index]!] as const)) })),
    );
    foldRarestKeys(this.batches.map((batch) => batch.names));
    let rows = 0;
    for (const batch of this.batches) {
      this.batchStart.push(rows);
      rows += batch.names.get("uuid")!.length;
    }
    this.rows = rows;
    this.batchOfRow = new Int32Array(rows);
    this.timestamps = new Float64Array(rows);
    this.persons = new Int32Array(rows);
    this.batches.forEach((batch, index) => {
      const start = this.batchStart[index]!;
      const words = timestampWords(batch.names.get("timestamp")!);
      const persons = batch.names.get("person_index")!.values as Int32Array;
      for (let row = 0; row < persons.length; row++) {
        this.batchOfRow[start + row] = index;
        this.timestamps[start + row] = int64At(words, row);
        this.persons[start + row] = persons[row]!;
      }
      for (const [name, data] of batch.names) {
        if (fixedColumnNames.includes(name)) continue;
        const key = propertyKey(name);
        let kinds = this.propertyKinds.get(key);
        if (!kinds) this.propertyKinds.set(key, (kinds = []));
        kinds[index] = propertyKindOf(name, data);
      }
    });
    const inputBytes = this.batches.reduce((sum, batch) => sum + [...batch.names.values()].reduce((bytes, data) => bytes + dataBytes(data), 0), 0);
    this.gatheredBytes = inputBytes + this.gatheredExtraBytes();
  }

  /**
   * What a table gathered from every row takes beyond the inputs: a slot in each property
   * column for the rows of batches that lack it, and a key stored as different types in
   * different batches written out as JSON text per row (gatherMixed), where a dictionary
   * input held each string once.
   */
  private gatheredExtraBytes(): number {
    let bytes = 0;
    for (const [key, kinds] of this.propertyKinds) {
      const present = kinds.filter((kind) => kind !== undefined);
      const mixed = present.some((kind) => kind !== present[0]);
      this.batches.forEach((batch, index) => {
        const kind = kinds[index];
        if (kind === undefined) bytes += batch.names.get("uuid")!.length * propertySlotBytes;
        else if (mixed && kind !== "mixed") bytes += jsonTextBytes(batch.names.get(propertyColumnPrefix + key)!);
      });
    }
    return bytes;
  }

  /** What a row of a table gathered from these rows takes in memory, on average. */
  get bytesPerRow(): number {
    return this.gatheredBytes / Math.max(1, this.rows);
  }

  /** Of `rows` (in arrival order), the first arrival of each uuid, ordered by (person index, timestamp). */
  firstArrivalsSorted(rows: ArrayLike<number>): Int32Array {
    return sortByPersonAndTime(this.firstArrivals(rows), this.persons, this.timestamps);
  }

  private firstArrivals(rows: ArrayLike<number>): Int32Array {
    // Canonical uuids are compared as 128-bit keys in a typed table (no string per row);
    // anything else a file holds is compared as text.
    const seen = new UuidTable(rows.length);
    const words = new Uint32Array(4);
    let seenText: Set<string> | null = null;
    const uuids = this.batches.map((batch) => batch.names.get("uuid")!);
    const kept = new Int32Array(rows.length);
    let count = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const batch = this.batchOfRow[row]!;
      const data = uuids[batch]!;
      const local = row - this.batchStart[batch]!;
      const bytes = data.values as Uint8Array;
      const start = data.valueOffsets[local]!;
      const end = data.valueOffsets[local + 1]!;
      if (uuidWordsOfBytes(bytes, start, end, words) && (words[0]! | words[1]! | words[2]! | words[3]!) !== 0) {
        if (!seen.add(words[0]!, words[1]!, words[2]!, words[3]!)) continue;
      } else {
        const text = asBuffer(bytes).toString("latin1", start, end);
        seenText ??= new Set();
        if (seenText.has(text)) continue;
        seenText.add(text);
      }
      kept[count++] = row;
    }
    return kept.subarray(0, count);
  }

  /** A table of the rows in `order`: every fixed column, and each property column some of those rows set. */
  gather(order: Int32Array): Table {
    const sourceBatch = new Int32Array(order.length);
    const sourceRow = new Int32Array(order.length);
    for (let i = 0; i < order.length; i++) {
      const batch = this.batchOfRow[order[i]!]!;
      sourceBatch[i] = batch;
      sourceRow[i] = order[i]! - this.batchStart[batch]!;
    }
    const inputs = (name: string): ColumnInputs => this.batches.map((batch) => batch.names.get(name) ?? null);
    const columns: Record<string, Vector> = {};
    for (const name of fixedColumnNames) {
      const column = inputs(name);
      columns[name] = makeVector(gatherColumn(column, fixedKind(column), sourceBatch, sourceRow));
    }
    const properties: [string, Data][] = [];
    for (const [key, kinds] of this.propertyKinds) {
      const present = kinds.filter((kind) => kind !== undefined);
      const kind: PropertyKind = present.every((k) => k === present[0]) ? present[0]! : "mixed";
      const column = this.batches.map((batch, index) => {
        const name = (kinds[index] === "mixed" ? mixedPropertyColumnPrefix : propertyColumnPrefix) + key;
        return kinds[index] === undefined ? null : batch.names.get(name)!;
      });
      const data = gatherColumn(column, kind === "mixed" ? { kind: "mixed", sourceKinds: kinds } : kind === "string" ? "dictionary" : kind, sourceBatch, sourceRow);
      if (data.length - data.nullCount > 0) properties.push([(kind === "mixed" ? mixedPropertyColumnPrefix : propertyColumnPrefix) + key, data]);
    }
    // Most often set first, then by name: the order EventBuffer writes.
    properties.sort(([a, x], [b, y]) => y.length - y.nullCount - (x.length - x.nullCount) || (a < b ? -1 : 1));
    for (const [name, data] of properties) columns[name] = makeVector(data);
    return new Table(columns);
  }
}

const propertyKey = (name: string) =>
  name.startsWith(mixedPropertyColumnPrefix) ? name.slice(mixedPropertyColumnPrefix.length) : name.slice(propertyColumnPrefix.length);

/**
 * When the batches together hold more property keys than one file may have as columns, the
 * keys set on fewest rows leave their columns for the `properties` JSON of each row that sets
 * them (as EventBuffer does with keys past the limit), batch by batch: the work and memory
 * follow the values moved, not the rows times the keys.
 */
function foldRarestKeys(batches: Map<string, Data>[]): void {
  const present = new Map<string, number>();
  for (const names of batches) {
    for (const [name, data] of names) {
      if (fixedColumnNames.includes(name)) continue;
      const key = propertyKey(name);
      present.set(key, (present.get(key) ?? 0) + data.length - data.nullCount);
    }
  }
  if (present.size <= propertyColumnsMax) return;
  const byUse = [...present].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  const folded = new Set(byUse.slice(propertyColumnsMax).map(([key]) => key));
  for (const names of batches) foldIntoProperties(names, folded);
}

/** Moves the `folded` keys' columns of one batch into its `properties` JSON. */
function foldIntoProperties(names: Map<string, Data>, folded: Set<string>): void {
  const rows = names.get("uuid")!.length;
  // Per row, the `"key":value` pairs moved, joined by commas.
  const pairs: (string | undefined)[] = new Array(rows);
  let moved = false;
  for (const [name, data] of names) {
    if (fixedColumnNames.includes(name) || !folded.has(propertyKey(name))) continue;
    names.delete(name);
    const keyJson = JSON.stringify(propertyKey(name));
    const isJson = name.startsWith(mixedPropertyColumnPrefix);
    const values = vectorValues(makeVector(data));
    for (let row = 0; row < rows; row++) {
      const value = values[row];
      if (value === null || value === undefined) continue;
      const pair = `${keyJson}:${isJson ? (value as string) : JSON.stringify(value)}`;
      pairs[row] = pairs[row] === undefined ? pair : `${pairs[row]},${pair}`;
      moved = true;
    }
  }
  if (!moved) return;
  const rest = vectorValues(makeVector(names.get("properties")!)) as (string | null)[];
  const properties = new Utf8Builder();
  for (let row = 0; row < rows; row++) {
    const text = rest[row] ?? null;
    const added = pairs[row];
    if (added === undefined) {
      if (text === null) properties.appendNull();
      else properties.append(text);
    } else if (text === null || text === "{}") properties.append(`{${added}}`);
    else properties.append(`${text.slice(0, -1)},${added}}`);
  }
  names.set("properties", properties.finish());
}

type GatherKind = "utf8" | "dictionary" | "number" | "boolean" | "int32" | "timestamp" | { kind: "mixed"; sourceKinds: PropertyKind[] };

const fixedKinds: Partial<Record<Type, GatherKind>> = {
  [Type.Utf8]: "utf8",
  [Type.Dictionary]: "dictionary",
  [Type.Float]: "number",
  [Type.Bool]: "boolean",
  [Type.Int]: "int32",
  [Type.Timestamp]: "timestamp",
};

function fixedKind(column: ColumnInputs): GatherKind {
  const typeId = column.find((data) => data !== null)!.type.typeId;
  const kind = fixedKinds[typeId];
  if (kind === undefined) throw new Error(`column type ${Type[typeId]} is not one the event store writes`);
  return kind;
}

/**
 * Where each output row comes from, and the output's validity bitmap filled as values are
 * taken. Per batch, a column's buffers sit in plain arrays so the loops touch no getters.
 */
class Gather {
  readonly length: number;
  readonly validity: Uint8Array;
  present = 0;
  /**
   * Every input holds a value in every row (most fixed columns): so does every output row,
   * take() answers without looking, and the output needs no bitmap (a fifth less gather time).
   */
  readonly complete: boolean;
  /** Per batch: the column's array, null when the batch lacks it or holds no value in it (most rows' groups, set, anon_id). */
  readonly arrays: (Data | null)[];
  /** Per batch: the validity bitmap (null when every value is present) and its bit offset. */
  private readonly bitmaps: (Uint8Array | null)[];
  private readonly bitOffsets: number[];

  constructor(column: ColumnInputs, readonly sourceBatch: Int32Array, readonly sourceRow: Int32Array) {
    this.length = sourceBatch.length;
    this.validity = new Uint8Array((this.length + 7) >> 3);
    this.arrays = column.map((data) => (data && data.nullCount < data.length ? data : null));
    this.bitmaps = column.map((data) => (data && data.nullCount > 0 && data.nullBitmap && data.nullBitmap.byteLength > 0 ? data.nullBitmap : null));
    this.bitOffsets = column.map((data) => data?.offset ?? 0);
    this.complete = column.every((data) => data !== null && data.nullCount === 0);
    if (this.complete) this.present = this.length;
  }

  /** Whether output row `i` has a value; marks it present when it does. */
  take(i: number): boolean {
    if (this.complete) return true;
    const batch = this.sourceBatch[i]!;
    if (this.arrays[batch] === null) return false;
    const bitmap = this.bitmaps[batch];
    if (bitmap) {
      const bit = this.bitOffsets[batch]! + this.sourceRow[i]!;
      if ((bitmap[bit >> 3]! & (1 << (bit & 7))) === 0) return false;
    }
    this.validity[i >> 3]! |= 1 << (i & 7);
    this.present++;
    return true;
  }

  /** makeData's validity fields for the output. */
  nulls(): { nullCount: number; nullBitmap: Uint8Array | undefined } {
    const nullCount = this.length - this.present;
    return { nullCount, nullBitmap: nullCount === 0 ? undefined : this.validity };
  }
}

/** The values of `column` at (sourceBatch[i], sourceRow[i]) for each i, as one array of `kind`. */
function gatherColumn(column: ColumnInputs, kind: GatherKind, sourceBatch: Int32Array, sourceRow: Int32Array): Data {
  if (typeof kind === "object") return gatherMixed(column, kind.sourceKinds, sourceBatch, sourceRow);
  const gather = new Gather(column, sourceBatch, sourceRow);
  switch (kind) {
    case "utf8":
      return gatherUtf8(gather);
    case "dictionary":
      return gatherDictionary(gather);
    case "boolean":
      return gatherBool(gather);
    case "timestamp": {
      // 64-bit values as pairs of 32-bit words: no BigInt per value.
      const words = gatherFixedWidth(gather, column.map((data) => (data ? timestampWords(data) : null)), 2);
      return makeData({ type: new TimestampMillisecond("UTC"), length: gather.length, ...gather.nulls(), data: new BigInt64Array(words.buffer) });
    }
    case "number": {
      const values = gatherFixedWidth(gather, column.map((data) => (data ? (data.values as Float64Array) : null)), 1);
      return makeData({ type: new Float64(), length: gather.length, ...gather.nulls(), data: values });
    }
    case "int32": {
      const values = gatherFixedWidth(gather, column.map((data) => (data ? (data.values as Int32Array) : null)), 1);
      return makeData({ type: new Int32(), length: gather.length, ...gather.nulls(), data: values });
    }
  }
}

/** Fixed-width values of `width` elements each (Float64 or Int32 words). */
function gatherFixedWidth<T extends Float64Array | Int32Array>(gather: Gather, values: (T | null)[], width: number): T {
  const Kind = values.find((array) => array !== null)!.constructor as new (length: number) => T;
  const out = new Kind(gather.length * width);
  const { sourceBatch, sourceRow } = gather;
  for (let i = 0; i < gather.length; i++) {
    if (!gather.take(i)) continue;
    const source = values[sourceBatch[i]!]!;
    const row = sourceRow[i]! * width;
    out[i * width] = source[row]!;
    if (width === 2) out[i * width + 1] = source[row + 1]!;
  }
  return out;
}

function gatherBool(gather: Gather): Data {
  const bits = new Uint8Array((gather.length + 7) >> 3);
  const { sourceBatch, sourceRow, arrays } = gather;
  for (let i = 0; i < gather.length; i++) {
    if (!gather.take(i)) continue;
    const data = arrays[sourceBatch[i]!]!;
    const bit = data.offset + sourceRow[i]!;
    if (((data.values as Uint8Array)[bit >> 3]! & (1 << (bit & 7))) !== 0) bits[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({ type: new Bool(), length: gather.length, ...gather.nulls(), data: bits });
}

/** Plain strings: the output's offsets first, then each value's bytes copied as they are. */
function gatherUtf8(gather: Gather): Data {
  const { sourceBatch, sourceRow, arrays } = gather;
  const offsets = arrays.map((data) => (data ? data.valueOffsets : null));
  const bytes = arrays.map((data) => (data ? (data.values as Uint8Array) : null));
  const valueOffsets = new Int32Array(gather.length + 1);
  let total = 0;
  for (let i = 0; i < gather.length; i++) {
    if (gather.take(i)) {
      const source = offsets[sourceBatch[i]!]!;
      const row = sourceRow[i]!;
      total += source[row + 1]! - source[row]!;
    }
    valueOffsets[i + 1] = total;
  }
  const data = new Uint8Array(total);
  for (let i = 0; i < gather.length; i++) {
    const size = valueOffsets[i + 1]! - valueOffsets[i]!;
    if (size === 0) continue;
    const batch = sourceBatch[i]!;
    const from = offsets[batch]![sourceRow[i]!]!;
    const source = bytes[batch]!;
    const at = valueOffsets[i]!;
    // Short values (uuids, ids) copy faster in a loop than through a subarray view.
    if (size <= 64) for (let k = 0; k < size; k++) data[at + k] = source[from + k]!;
    else data.set(source.subarray(from, from + size), at);
  }
  return makeData({ type: new Utf8(), length: gather.length, ...gather.nulls(), valueOffsets, data });
}

/** Dictionary output: each input dictionary's word is looked up in the output's once, when a row first uses it. */
function gatherDictionary(gather: Gather): Data {
  const { sourceBatch, sourceRow, arrays } = gather;
  const dictionary = new DictionaryBuilder();
  const codes = new Int32Array(gather.length);
  const codeMaps: (Int32Array | undefined)[] = [];
  const words: (string[] | undefined)[] = [];
  for (let i = 0; i < gather.length; i++) {
    if (!gather.take(i)) continue;
    const batch = sourceBatch[i]!;
    const data = arrays[batch]!;
    const row = sourceRow[i]!;
    if (data.type.typeId === Type.Utf8) {
      // A plain string column (files from before property strings were dictionary-encoded).
      codes[i] = dictionary.codeOf(asBuffer(data.values as Uint8Array).toString("utf8", data.valueOffsets[row]!, data.valueOffsets[row + 1]!));
      continue;
    }
    const codeMap = (codeMaps[batch] ??= new Int32Array(data.dictionary!.length).fill(-1));
    const code = (data.values as Int32Array)[row]!;
    let outCode = codeMap[code]!;
    if (outCode < 0) {
      const batchWords = (words[batch] ??= vectorValues(data.dictionary as Vector) as string[]);
      outCode = codeMap[code] = dictionary.codeOf(batchWords[code]!);
    }
    codes[i] = outCode;
  }
  return dictionary.finishWithCodes(codes, gather.length, gather.nulls());
}

/** A property stored with different types in different files: every value as JSON text. */
function gatherMixed(column: ColumnInputs, sourceKinds: PropertyKind[], sourceBatch: Int32Array, sourceRow: Int32Array): Data {
  const out = new Utf8Builder();
  const values = column.map((data) => (data ? vectorValues(makeVector(data)) : null));
  for (let i = 0; i < sourceBatch.length; i++) {
    const batch = sourceBatch[i]!;
    const value = values[batch]?.[sourceRow[i]!] ?? null;
    if (value === null) out.appendNull();
    else out.append(sourceKinds[batch] === "mixed" ? (value as string) : JSON.stringify(value));
  }
  return out.finish();
}

/**
 * `rows` ordered by (person, timestamp), rows of one person and time keeping their order. A
 * counting sort by person (indexes are dense per project), then each person's run put in time
 * order; when indexes are too spread out for that, a comparison sort.
 */
export function sortByPersonAndTime(rows: Int32Array, persons: Int32Array, timestamps: Float64Array): Int32Array {
  const byTime = (a: number, b: number) => timestamps[a]! - timestamps[b]! || a - b;
  let maxPerson = 0;
  for (let i = 0; i < rows.length; i++) maxPerson = Math.max(maxPerson, persons[rows[i]!]!);
  if (maxPerson > countingSortSpread * rows.length + 65_536) {
    return Int32Array.from(rows).sort((a, b) => persons[a]! - persons[b]! || byTime(a, b));
  }
  const starts = new Int32Array(maxPerson + 2);
  for (let i = 0; i < rows.length; i++) starts[persons[rows[i]!]! + 1]!++;
  for (let person = 1; person < starts.length; person++) starts[person]! += starts[person - 1]!;
  const sorted = new Int32Array(rows.length);
  const next = starts.slice();
  for (let i = 0; i < rows.length; i++) sorted[next[persons[rows[i]!]!]!++] = rows[i]!;
  for (let person = 0; person <= maxPerson; person++) {
    const start = starts[person]!;
    const end = starts[person + 1]!;
    let ordered = true;
    for (let i = start + 1; i < end && ordered; i++) ordered = byTime(sorted[i - 1]!, sorted[i]!) <= 0;
    if (ordered) continue;
    if (end - start > insertionRunMax) {
      sorted.subarray(start, end).sort(byTime);
      continue;
    }
    for (let i = start + 1; i < end; i++) {
      const row = sorted[i]!;
      let at = i - 1;
      while (at >= start && byTime(sorted[at]!, row) > 0) {
        sorted[at + 1] = sorted[at]!;
        at--;
      }
      sorted[at + 1] = row;
    }
  }
  return sorted;
}
