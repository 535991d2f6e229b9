// Thrift's compact protocol, write side: what Parquet's page headers and footer are encoded
// in (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md).
// Fields are written in increasing id order with short-form headers (id delta and type in
// one byte) when the delta fits; structs end with a stop byte.
import { ByteWriter } from "./byte-writer.ts";

/**
 * Compact protocol type ids (field types; elements of lists use the same ids, with 2 for bool).
 * engine/parquet/thrift.ts reads with the same ids.
 */
export const ThriftType = {
  boolTrue: 1,
  boolFalse: 2,
  i8: 3,
  i16: 4,
  i32: 5,
  i64: 6,
  double: 7,
  binary: 8,
  list: 9,
  set: 10,
  map: 11,
  struct: 12,
  uuid: 13,
} as const;

const textEncoder = new TextEncoder();

export class ThriftWriter {
  readonly out: ByteWriter;
  /** The last field id written in each open struct, innermost last. */
  private readonly lastFieldIds: number[] = [0];

  constructor(out = new ByteWriter()) {
    this.out = out;
  }

  private fieldHeader(id: number, type: number): void {
    const last = this.lastFieldIds[this.lastFieldIds.length - 1]!;
    const delta = id - last;
    if (delta > 0 && delta <= 15) this.out.byte((delta << 4) | type);
    else {
      this.out.byte(type);
      this.out.zigzag(id);
    }
    this.lastFieldIds[this.lastFieldIds.length - 1] = id;
  }

  i32(id: number, value: number): this {
    this.fieldHeader(id, ThriftType.i32);
    this.out.zigzag(value);
    return this;
  }

  i64(id: number, value: number): this {
    this.fieldHeader(id, ThriftType.i64);
    this.out.zigzag(value);
    return this;
  }

  bool(id: number, value: boolean): this {
    this.fieldHeader(id, value ? ThriftType.boolTrue : ThriftType.boolFalse);
    return this;
  }

  binary(id: number, value: Uint8Array): this {
    this.fieldHeader(id, ThriftType.binary);
    this.out.varint(value.byteLength);
    this.out.append(value);
    return this;
  }

  string(id: number, value: string): this {
    return this.binary(id, textEncoder.encode(value));
  }

  /** A struct field whose members `body` writes. */
  struct(id: number, body: (writer: this) => void): this {
    this.fieldHeader(id, ThriftType.struct);
    this.structBody(body);
    return this;
  }

  /** A list of i32 values (Parquet's enums). */
  i32List(id: number, values: readonly number[]): this {
    this.listHeader(id, ThriftType.i32, values.length);
    for (const value of values) this.out.zigzag(value);
    return this;
  }

  stringList(id: number, values: readonly string[]): this {
    this.listHeader(id, ThriftType.binary, values.length);
    for (const value of values) {
      const bytes = textEncoder.encode(value);
      this.out.varint(bytes.byteLength);
      this.out.append(bytes);
    }
    return this;
  }

  /** A list of structs, each written by `body`. */
  structList<T>(id: number, items: readonly T[], body: (writer: this, item: T) => void): this {
    this.listHeader(id, ThriftType.struct, items.length);
    for (const item of items) this.structBody((writer) => body(writer, item));
    return this;
  }

  /** Ends the outermost struct (a message written at the top level, like a page header). */
  end(): Uint8Array {
    this.out.byte(0);
    return this.out.written();
  }

  private structBody(body: (writer: this) => void): void {
    this.lastFieldIds.push(0);
    body(this);
    this.out.byte(0);
    this.lastFieldIds.pop();
  }

  private listHeader(id: number, elementType: number, size: number): void {
    this.fieldHeader(id, ThriftType.list);
    if (size < 15) this.out.byte((size << 4) | elementType);
    else {
      this.out.byte(0xf0 | elementType);
      this.out.varint(size);
    }
  }
}
