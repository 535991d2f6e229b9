// Thrift's compact protocol, read side only: what Parquet's footer (FileMetaData) and page
// headers are written in. Written from the protocol's specification (apache/thrift,
// doc/specs/thrift-compact-protocol.md): field headers carry a delta of the field id and a
// type nibble, integers are zigzag varints, booleans of fields sit in the type nibble.
// Integers come back as JS numbers: every i64 Parquet stores for us (sizes, offsets, counts)
// is far below 2^53, and a larger one is refused rather than rounded.
import { ThriftType } from "../../storage/parquet/thrift-compact.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

// A leading U+FEFF is part of a value, not a byte order mark to drop.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Deepest nesting of structs and containers skipped (the Parquet structs nest a few levels; anything deeper is not ours). */
const skipDepthMax = 32;

export class ThriftReader {
  constructor(readonly bytes: Uint8Array, public pos = 0) {}

  private byte(): number {
    if (this.pos >= this.bytes.length) throw new ParquetUnsupportedError("thrift data ends early");
    return this.bytes[this.pos++]!;
  }

  /** A signed byte. */
  i8(): number {
    return (this.byte() << 24) >> 24;
  }

  /** An unsigned varint, exact below 2^53. */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) break;
      scale *= 128;
      if (scale > 2 ** 49) throw new ParquetUnsupportedError("a thrift integer does not fit in 53 bits");
    }
    return value;
  }

  /** A zigzag varint (i16, i32 and i64 alike). */
  int(): number {
    const zigzag = this.varint();
    return zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
  }

  double(): number {
    if (this.pos + 8 > this.bytes.length) throw new ParquetUnsupportedError("thrift data ends early");
    const value = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return value;
  }

  binary(): Uint8Array {
    const length = this.varint();
    if (this.pos + length > this.bytes.length) throw new ParquetUnsupportedError("thrift data ends early");
    const value = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return value;
  }

  string(): string {
    return decoder.decode(this.binary());
  }

  /** A list's or set's header: its size and element type. */
  listHeader(): { size: number; type: number } {
    const header = this.byte();
    const short = header >> 4;
    return { size: short === 15 ? this.varint() : short, type: header & 0x0f };
  }

  /** The elements of a list read one by one by `element`. */
  list<T>(element: (reader: ThriftReader, type: number) => T): T[] {
    const { size, type } = this.listHeader();
    const out: T[] = new Array(size);
    for (let index = 0; index < size; index++) out[index] = element(this, type);
    return out;
  }

  /**
   * The next field header of a struct, as `id * 16 + type`, or 0 at the struct's stop field;
   * `previous` is the struct's last field so read (0 before the first). A bool field's value is
   * its type (boolTrue or boolFalse) and takes no bytes; any other value is read next (or
   * skipped). A loop over fields takes no callback, which kept footer parsing in JSC's slower
   * tiers (measured: 40 ms for 106 footers while cold).
   */
  field(previous: number): number {
    const header = this.byte();
    const type = header & 0x0f;
    if (type === 0) return 0;
    const delta = header >> 4;
    const id = delta === 0 ? this.int() : (previous >> 4) + delta;
    return id * 16 + type;
  }

  /** Skips an element of a list, set or map: bools there take one byte each (1 true, 0 false). */
  private skipElement(type: number, depth: number): void {
    if (type === ThriftType.boolTrue || type === ThriftType.boolFalse) this.pos += 1;
    else this.skip(type, depth);
  }

  /** Skips a value of the given type (an unknown or unused field). */
  skip(type: number, depth = 0): void {
    if (depth > skipDepthMax) throw new ParquetUnsupportedError("thrift data nests too deeply");
    switch (type) {
      case ThriftType.boolTrue:
      case ThriftType.boolFalse:
        return;
      case ThriftType.i8:
        this.pos += 1;
        return;
      case ThriftType.i16:
      case ThriftType.i32:
      case ThriftType.i64:
        this.varint();
        return;
      case ThriftType.double:
        this.pos += 8;
        return;
      case ThriftType.binary:
        this.binary();
        return;
      case ThriftType.uuid:
        this.pos += 16;
        return;
      case ThriftType.list:
      case ThriftType.set: {
        const { size, type: element } = this.listHeader();
        for (let index = 0; index < size; index++) this.skipElement(element, depth + 1);
        return;
      }
      case ThriftType.map: {
        const size = this.varint();
        if (size === 0) return;
        const kinds = this.byte();
        for (let index = 0; index < size; index++) {
          this.skipElement(kinds >> 4, depth + 1);
          this.skipElement(kinds & 0x0f, depth + 1);
        }
        return;
      }
      case ThriftType.struct:
        for (let field = this.field(0); field !== 0; field = this.field(field)) this.skip(field & 0x0f, depth + 1);
        return;
      default:
        throw new ParquetUnsupportedError(`unknown thrift type ${type}`);
    }
  }
}
