// A Parquet file's footer (FileMetaData, parquet-format's parquet.thrift) as far as the
// executor reads parts: the flat schema's columns with the type the executor reads each as,
// and each row group's column chunks (where their pages are, codec, encodings, null count).
// Files outside what storage writes (nested or repeated columns, other types, encryption,
// column chunks in other files) are refused as a whole: parquet-wasm reads those.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { ColumnType } from "../chunk-store.ts";
import {
  ConvertedType, Encoding, LogicalTypeField, PageType, PhysicalType, Repetition, TimeUnitField, parquetMagic,
} from "../../storage/parquet/parquet-format.ts";
import { ThriftType } from "../../storage/parquet/thrift-compact.ts";
import { ThriftReader } from "./thrift.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

/** The trailer: footer length (4 bytes, little endian) and the magic "PAR1". */
const trailerBytes = 8;
/** Bytes read from a file's end at first: the trailer and, for parts as storage writes them (about 13 KB), the whole footer. */
const tailBytes = 32 * 1024;

export interface ColumnChunkMeta {
  physical: number;
  encodings: number[];
  codec: number;
  /** Values in the chunk, nulls included (the rows of the row group, as columns are flat). */
  values: number;
  /** Where the chunk's first page starts (its dictionary page, if any) and its size on disk. */
  start: number;
  compressedBytes: number;
  /** From the chunk's statistics; null when not written. */
  nullCount: number | null;
  /** The statistics' min_value and max_value as PLAIN bytes (copied); null when not written. */
  min: Uint8Array | null;
  max: Uint8Array | null;
  /** Whether every data page is dictionary-encoded, by the chunk's page encoding statistics (false when not written). */
  dictionaryOnly: boolean;
}

export interface RowGroupMeta {
  rows: number;
  /** One per column, in schema order. */
  chunks: ColumnChunkMeta[];
}

export interface LeafColumn {
  name: string;
  physical: number;
  optional: boolean;
  type: ColumnType;
}

export interface Footer {
  rows: number;
  columns: LeafColumn[];
  rowGroups: RowGroupMeta[];
  /** The file's key-value metadata (key_value_metadata; entries without a value are left out). */
  keyValues: Map<string, string>;
}

interface SchemaElement {
  name: string;
  physical: number | null;
  repetition: number | null;
  children: number;
  converted: number | null;
  /** The LogicalType union member set, and for timestamps their unit, for integers their width and sign. */
  logical: { kind: number; unit?: number; bitWidth?: number; signed?: boolean } | null;
}

/** A union: a struct with one field set, whose id names the member; returns that id (0 for none), the member read by `member`. */
function union(reader: ThriftReader, member: (id: number, type: number) => void): number {
  let found = 0;
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    found = field >> 4;
    member(found, field & 0x0f);
  }
  return found;
}

function logicalType(reader: ThriftReader): SchemaElement["logical"] {
  const logical: NonNullable<SchemaElement["logical"]> = { kind: 0 };
  logical.kind = union(reader, (kind, type) => {
    if (kind === LogicalTypeField.timestamp && type === ThriftType.struct) {
      for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
        if (field >> 4 === 2 && (field & 0x0f) === ThriftType.struct) logical.unit = union(reader, (_, unitType) => reader.skip(unitType));
        else reader.skip(field & 0x0f);
      }
    } else if (kind === LogicalTypeField.integer && type === ThriftType.struct) {
      for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
        const [id, fieldType] = [field >> 4, field & 0x0f];
        if (id === 1 && fieldType === ThriftType.i8) logical.bitWidth = reader.i8();
        else if (id === 2) logical.signed = fieldType === ThriftType.boolTrue;
        else reader.skip(fieldType);
      }
    } else reader.skip(type);
  });
  return logical.kind === 0 ? null : logical;
}

function schemaElement(reader: ThriftReader): SchemaElement {
  const element: SchemaElement = { name: "", physical: null, repetition: null, children: 0, converted: null, logical: null };
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const id = field >> 4;
    const type = field & 0x0f;
    if (id === 1 && type === ThriftType.i32) element.physical = reader.int();
    else if (id === 3 && type === ThriftType.i32) element.repetition = reader.int();
    else if (id === 4 && type === ThriftType.binary) element.name = reader.string();
    else if (id === 5 && type === ThriftType.i32) element.children = reader.int();
    else if (id === 6 && type === ThriftType.i32) element.converted = reader.int();
    else if (id === 10 && type === ThriftType.struct) element.logical = logicalType(reader);
    else reader.skip(type);
  }
  return element;
}

/** What the executor reads a leaf as (the types parquet-wasm's Arrow reading gives for these, see arrow-ffi.ts), or null when it is not read. */
function columnTypeOf(element: SchemaElement): ColumnType | null {
  const { physical, converted, logical } = element;
  if (physical === PhysicalType.boolean) return converted === null && logical === null ? "bool" : null;
  if (physical === PhysicalType.double) return converted === null && logical === null ? "number" : null;
  if (physical === PhysicalType.int32) {
    const plainInt = logical === null || (logical.kind === LogicalTypeField.integer && logical.bitWidth === 32 && logical.signed === true);
    return plainInt && (converted === null || converted === ConvertedType.int32) ? "int32" : null;
  }
  if (physical === PhysicalType.int64) {
    const millis = logical === null ? converted === ConvertedType.timestampMillis : logical.kind === LogicalTypeField.timestamp && logical.unit === TimeUnitField.millis;
    return millis ? "timestamp" : null;
  }
  if (physical === PhysicalType.byteArray) {
    return (logical === null ? converted === ConvertedType.utf8 : logical.kind === LogicalTypeField.string) ? "text" : null;
  }
  return null;
}

function leafColumns(elements: SchemaElement[]): LeafColumn[] {
  const [root, ...leaves] = elements;
  if (!root || root.children !== leaves.length) throw new ParquetUnsupportedError("the schema is not flat");
  return leaves.map((element) => {
    const type = columnTypeOf(element);
    if (element.children !== 0 || element.physical === null) throw new ParquetUnsupportedError(`column "${element.name}" is nested`);
    if (element.repetition !== Repetition.required && element.repetition !== Repetition.optional) throw new ParquetUnsupportedError(`column "${element.name}" is repeated`);
    if (type === null) throw new ParquetUnsupportedError(`column "${element.name}" has a type the reader does not decode`);
    return { name: element.name, physical: element.physical, optional: element.repetition === Repetition.optional, type };
  });
}

function statistics(reader: ThriftReader): Pick<ColumnChunkMeta, "nullCount" | "min" | "max"> {
  const found: Pick<ColumnChunkMeta, "nullCount" | "min" | "max"> = { nullCount: null, min: null, max: null };
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const [id, type] = [field >> 4, field & 0x0f];
    if (id === 3 && type === ThriftType.i64) found.nullCount = reader.int();
    else if (id === 5 && type === ThriftType.binary) found.max = reader.binary().slice();
    else if (id === 6 && type === ThriftType.binary) found.min = reader.binary().slice();
    else reader.skip(type);
  }
  return found;
}

/** Whether a chunk's PageEncodingStats list has data pages only in dictionary encodings. */
function dataPagesDictionaryEncoded(reader: ThriftReader): boolean {
  let dictionaryOnly = true;
  reader.list((element) => {
    let pageType = -1;
    let encoding = -1;
    for (let field = element.field(0); field !== 0; field = element.field(field)) {
      const id = field >> 4;
      if (id === 1 && (field & 0x0f) === ThriftType.i32) pageType = element.int();
      else if (id === 2 && (field & 0x0f) === ThriftType.i32) encoding = element.int();
      else element.skip(field & 0x0f);
    }
    const dataPage = pageType === PageType.dataPage || pageType === PageType.dataPageV2;
    if (dataPage && encoding !== Encoding.rleDictionary && encoding !== Encoding.plainDictionary) dictionaryOnly = false;
  });
  return dictionaryOnly;
}

function columnMetaData(reader: ThriftReader): ColumnChunkMeta & { path: string[] } {
  const meta = {
    physical: -1, encodings: [] as number[], path: [] as string[], codec: -1, values: 0, start: 0, compressedBytes: 0,
    nullCount: null as number | null, min: null as Uint8Array | null, max: null as Uint8Array | null, dictionaryOnly: false,
  };
  let dataPageOffset = -1;
  let dictionaryPageOffset = -1;
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const id = field >> 4;
    const type = field & 0x0f;
    if (id === 1 && type === ThriftType.i32) meta.physical = reader.int();
    else if (id === 2 && type === ThriftType.list) meta.encodings = reader.list((r) => r.int());
    else if (id === 3 && type === ThriftType.list) meta.path = reader.list((r) => r.string());
    else if (id === 4 && type === ThriftType.i32) meta.codec = reader.int();
    else if (id === 5 && type === ThriftType.i64) meta.values = reader.int();
    else if (id === 7 && type === ThriftType.i64) meta.compressedBytes = reader.int();
    else if (id === 9 && type === ThriftType.i64) dataPageOffset = reader.int();
    else if (id === 11 && type === ThriftType.i64) dictionaryPageOffset = reader.int();
    else if (id === 12 && type === ThriftType.struct) Object.assign(meta, statistics(reader));
    else if (id === 13 && type === ThriftType.list) meta.dictionaryOnly = dataPagesDictionaryEncoded(reader);
    else reader.skip(type);
  }
  if (dataPageOffset < 0) throw new ParquetUnsupportedError("a column chunk has no data page offset");
  // Some writers put the dictionary offset at 0 to mean "none": a dictionary page comes before the data pages.
  meta.start = dictionaryPageOffset > 0 && dictionaryPageOffset < dataPageOffset ? dictionaryPageOffset : dataPageOffset;
  return meta;
}

function columnChunk(reader: ThriftReader): ColumnChunkMeta & { path: string[] } {
  let meta: (ColumnChunkMeta & { path: string[] }) | null = null;
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const id = field >> 4;
    const type = field & 0x0f;
    if (id === 1) throw new ParquetUnsupportedError("a column chunk is stored in another file");
    if (id === 8 || id === 9) throw new ParquetUnsupportedError("the file is encrypted");
    if (id === 3 && type === ThriftType.struct) meta = columnMetaData(reader);
    else reader.skip(type);
  }
  if (!meta) throw new ParquetUnsupportedError("a column chunk has no metadata");
  return meta;
}

function rowGroup(reader: ThriftReader, columns: LeafColumn[]): RowGroupMeta {
  let rows = -1;
  let chunks: (ColumnChunkMeta & { path: string[] })[] = [];
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const id = field >> 4;
    const type = field & 0x0f;
    if (id === 1 && type === ThriftType.list) chunks = reader.list(columnChunk);
    else if (id === 3 && type === ThriftType.i64) rows = reader.int();
    else reader.skip(type);
  }
  if (chunks.length !== columns.length) throw new ParquetUnsupportedError("a row group does not have one chunk per column");
  chunks.forEach((chunk, index) => {
    const column = columns[index]!;
    if (chunk.path.length !== 1 || chunk.path[0] !== column.name || chunk.physical !== column.physical) {
      throw new ParquetUnsupportedError(`a column chunk does not match column "${column.name}"`);
    }
  });
  return { rows, chunks: chunks.map(({ path: _, ...chunk }) => chunk) };
}

function keyValue(reader: ThriftReader): [string, string | null] {
  let key = "";
  let value: string | null = null;
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const [id, type] = [field >> 4, field & 0x0f];
    if (id === 1 && type === ThriftType.binary) key = reader.string();
    else if (id === 2 && type === ThriftType.binary) value = reader.string();
    else reader.skip(type);
  }
  return [key, value];
}

/** Parses FileMetaData. */
export function parseFooter(bytes: Uint8Array): Footer {
  const reader = new ThriftReader(bytes);
  let rows = -1;
  let elements: SchemaElement[] = [];
  let groupsAt = -1;
  const keyValues = new Map<string, string>();
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const id = field >> 4;
    const type = field & 0x0f;
    if (id === 8) throw new ParquetUnsupportedError("the file is encrypted");
    if (id === 2 && type === ThriftType.list) elements = reader.list(schemaElement);
    else if (id === 3 && type === ThriftType.i64) rows = reader.int();
    else if (id === 4 && type === ThriftType.list) {
      // Row groups are read once the schema is known (fields may come in any order).
      groupsAt = reader.pos;
      reader.skip(type);
    } else if (id === 5 && type === ThriftType.list) {
      for (const [key, value] of reader.list(keyValue)) if (value !== null) keyValues.set(key, value);
    } else reader.skip(type);
  }
  const columns = leafColumns(elements);
  const rowGroups = groupsAt < 0 ? [] : new ThriftReader(bytes, groupsAt).list((r) => rowGroup(r, columns));
  if (rowGroups.reduce((sum, group) => sum + group.rows, 0) !== rows) throw new ParquetUnsupportedError("the row groups do not add up to the file's rows");
  return { rows, columns, rowGroups, keyValues };
}

/** Bytes [start, start + length) of an open file, into `bytes` (a new array by default). */
export function readAt(fd: number, start: number, length: number, bytes = new Uint8Array(length)): Uint8Array {
  let read = 0;
  while (read < length) {
    const got = readSync(fd, bytes, read, length - read, start + read);
    if (got === 0) throw new ParquetUnsupportedError(`the file ends before byte ${start + length}`);
    read += got;
  }
  return bytes.subarray(0, length);
}

let shared = new Uint8Array(0);

/**
 * readAt into one buffer reused from call to call (valid until the next call): column chunks are
 * decoded one at a time, and fresh memory for each cost page faults that took longer than
 * reading (measured on a cold query: about 0.5 ms per MB on this machine).
 */
export function readShared(fd: number, start: number, length: number): Uint8Array {
  if (shared.length < length) shared = new Uint8Array(Math.max(length, 2 * shared.length));
  return readAt(fd, start, length, shared);
}

/** Reads and parses a part's footer. */
export function readFooter(path: string): Footer {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < trailerBytes + 4) throw new ParquetUnsupportedError("the file is too short for Parquet");
    const tailStart = Math.max(0, size - tailBytes);
    let tail = readAt(fd, tailStart, size - tailStart);
    const trailer = new DataView(tail.buffer, tail.byteLength - trailerBytes, trailerBytes);
    if (!parquetMagic.every((byte, i) => tail[tail.byteLength - 4 + i] === byte)) throw new ParquetUnsupportedError("the file does not end in PAR1 (not Parquet, or encrypted)");
    const footerBytes = trailer.getUint32(0, true);
    const footerStart = size - trailerBytes - footerBytes;
    if (footerStart < 4) throw new ParquetUnsupportedError("the footer length is past the file's start");
    if (footerStart < tailStart) tail = readAt(fd, footerStart, footerBytes + trailerBytes);
    const footerAt = tail.byteLength - trailerBytes - footerBytes;
    return parseFooter(tail.subarray(footerAt, footerAt + footerBytes));
  } finally {
    closeSync(fd);
  }
}
