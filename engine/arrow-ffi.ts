// Arrow arrays read straight out of parquet-wasm's memory through the Arrow C data interface
// (https://arrow.apache.org/docs/format/CDataInterface.html), instead of having parquet-wasm
// write an IPC stream that apache-arrow parses again: measured on a cold query over 76 parts,
// the IPC round trip (schema and columns) took more time than the Parquet decoding of four
// columns. Only the types Parquet parts hold are read (storage/event-columns.ts): utf8,
// dictionaries of utf8, booleans, float64, int32 and millisecond timestamps.
//
// The views returned point into wasm memory: they are valid until the next call into
// parquet-wasm (which may grow, and so detach, the memory) or until the stream is freed.
// wasm32 layouts: pointers take 4 bytes, int64 fields 8 (aligned).
import { Type } from "apache-arrow";
import type { ColumnType } from "./chunk-store.ts";
import type { ArrowData } from "./columns.ts";

/** ArrowSchema field offsets. */
const schemaFormat = 0;
const schemaName = 4;
const schemaChildCount = 24;
const schemaChildren = 32;
const schemaDictionary = 36;

/** ArrowArray field offsets. */
const arrayLength = 0;
const arrayNullCount = 8;
const arrayOffset = 16;
const arrayChildCount = 32;
const arrayBuffers = 40;
const arrayChildren = 44;
const arrayDictionary = 48;

const decoder = new TextDecoder();

/** A field of an exported schema: its name, C format string and its dictionary's format. */
export interface FfiField {
  name: string;
  format: string;
  dictionaryFormat: string | null;
}

function cString(memory: ArrayBuffer, pointer: number): string {
  const bytes = new Uint8Array(memory, pointer);
  return decoder.decode(bytes.subarray(0, bytes.indexOf(0)));
}

const int64 = (view: DataView, at: number) => Number(view.getBigInt64(at, true));

/** The fields of a struct schema (a table's or record batch's). */
export function ffiFields(memory: ArrayBuffer, schema: number): FfiField[] {
  const view = new DataView(memory);
  const children = view.getUint32(schema + schemaChildren, true);
  return Array.from({ length: int64(view, schema + schemaChildCount) }, (_, index) => {
    const child = view.getUint32(children + 4 * index, true);
    const dictionary = view.getUint32(child + schemaDictionary, true);
    return {
      name: cString(memory, view.getUint32(child + schemaName, true)),
      format: cString(memory, view.getUint32(child + schemaFormat, true)),
      dictionaryFormat: dictionary === 0 ? null : cString(memory, view.getUint32(dictionary + schemaFormat, true)),
    };
  });
}

/** What the executor reads a field as (the same names apache-arrow's types map to in chunk-store.ts). */
export function ffiColumnType(field: FfiField): ColumnType {
  if (field.dictionaryFormat !== null) return "text";
  if (field.format === "g") return "number";
  if (field.format === "i") return "int32";
  if (field.format.startsWith("ts")) return "timestamp";
  if (field.format === "b") return "bool";
  return "text";
}

/** The apache-arrow type id of a value format (timestamps in milliseconds only: the decoders read them as such). */
function typeOfFormat(format: string): Type {
  if (format.startsWith("tsm:")) return Type.Timestamp;
  const typeId = ({ u: Type.Utf8, b: Type.Bool, g: Type.Float, i: Type.Int } as Record<string, Type>)[format];
  if (typeId === undefined) throw new Error(`Arrow format "${format}" is not read from Parquet parts`);
  return typeId;
}

type TypedArrayOf<T> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number };

/** `count` elements at `pointer`, copied only when the address is not aligned for the element type. */
function view<T>(memory: ArrayBuffer, pointer: number, count: number, Kind: TypedArrayOf<T>): T {
  if (pointer % Kind.BYTES_PER_ELEMENT === 0) return new Kind(memory, pointer, count);
  const copy = memory.slice(pointer, pointer + count * Kind.BYTES_PER_ELEMENT);
  return new Kind(copy, 0, count);
}

const bitmapBytes = (offset: number, length: number) => Math.ceil((offset + length) / 8);

/** One exported array of the given field format as ArrowData viewing wasm memory. */
function ffiData(memory: ArrayBuffer, array: number, format: string, dictionaryFormat: string | null): ArrowData {
  const info = new DataView(memory);
  const length = int64(info, array + arrayLength);
  const offset = int64(info, array + arrayOffset);
  const buffers = info.getUint32(array + arrayBuffers, true);
  const buffer = (index: number) => info.getUint32(buffers + 4 * index, true);
  const validity = buffer(0);
  const nullBitmap = validity === 0 ? null : new Uint8Array(memory, validity, bitmapBytes(offset, length));
  const common = { length, offset, nullCount: int64(info, array + arrayNullCount), nullBitmap };
  if (dictionaryFormat !== null) {
    if (format !== "i") throw new Error(`dictionary indices of format "${format}" are not read`);
    const words = ffiData(memory, info.getUint32(array + arrayDictionary, true), dictionaryFormat, null);
    return { ...common, typeId: Type.Dictionary, values: view(memory, buffer(1) + 4 * offset, length, Int32Array), valueOffsets: null, dictionary: [words] };
  }
  const typeId = typeOfFormat(format);
  const base = { ...common, typeId, valueOffsets: null, dictionary: null };
  if (typeId === Type.Utf8) {
    const valueOffsets = view(memory, buffer(1) + 4 * offset, length + 1, Int32Array);
    return { ...base, valueOffsets, values: new Uint8Array(memory, buffer(2), valueOffsets[length]!) };
  }
  if (typeId === Type.Bool) return { ...base, values: new Uint8Array(memory, buffer(1), bitmapBytes(offset, length)) };
  if (typeId === Type.Float) return { ...base, values: view(memory, buffer(1) + 8 * offset, length, Float64Array) };
  if (typeId === Type.Int) return { ...base, values: view(memory, buffer(1) + 4 * offset, length, Int32Array) };
  return { ...base, values: view(memory, buffer(1) + 8 * offset, length, BigInt64Array) };
}

/** Each field's arrays across the record batches of an exported stream (batches are struct arrays, one child per field). */
export function ffiColumns(memory: ArrayBuffer, fields: FfiField[], batches: Uint32Array): Map<string, ArrowData[]> {
  const info = new DataView(memory);
  const columns = new Map<string, ArrowData[]>(fields.map((field) => [field.name, []]));
  for (const batch of batches) {
    if (int64(info, batch + arrayChildCount) !== fields.length || int64(info, batch + arrayOffset) !== 0) {
      throw new Error("an exported record batch does not match its schema");
    }
    const children = info.getUint32(batch + arrayChildren, true);
    fields.forEach((field, index) => {
      columns.get(field.name)!.push(ffiData(memory, info.getUint32(children + 4 * index, true), field.format, field.dictionaryFormat));
    });
  }
  return columns;
}
