// A growable little-endian byte buffer: what the Parquet writer assembles pages, headers and
// the footer in. Varints are Thrift's and Parquet's ULEB128; values past 2^31 are written
// with arithmetic, not bit operations, so any safe integer fits.

const initialBytes = 4096;

export class ByteWriter {
  private bytes: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity = initialBytes) {
    this.bytes = new Uint8Array(Math.max(16, capacity));
    this.view = new DataView(this.bytes.buffer);
  }

  /** Makes room for `extra` more bytes. */
  reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < needed) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.bytes.subarray(0, this.length));
    this.bytes = bigger;
    this.view = new DataView(bigger.buffer);
  }

  /** Empties the buffer for reuse (its memory stays). */
  reset(): void {
    this.length = 0;
  }

  byte(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  /** Appends bytes, and returns where they start. */
  append(source: Uint8Array): number {
    const at = this.length;
    this.reserve(source.byteLength);
    this.bytes.set(source, at);
    this.length += source.byteLength;
    return at;
  }

  /** Appends bytes [from, to) of `source` (short runs in a loop: cheaper than a subarray view each). */
  appendRange(source: Uint8Array, from: number, to: number): void {
    const size = to - from;
    this.reserve(size);
    if (size <= 64) {
      const bytes = this.bytes;
      let at = this.length;
      for (let i = from; i < to; i++) bytes[at++] = source[i]!;
    } else this.bytes.set(source.subarray(from, to), this.length);
    this.length += size;
  }

  uint32(value: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  /** Overwrites 4 bytes already written at `at` (a length known only once what follows is written). */
  patchUint32(at: number, value: number): void {
    this.view.setUint32(at, value, true);
  }

  int32(value: number): void {
    this.reserve(4);
    this.view.setInt32(this.length, value, true);
    this.length += 4;
  }

  float64(value: number): void {
    this.reserve(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** A safe integer as 8 bytes, two's complement. */
  int64(value: number): void {
    this.reserve(8);
    this.view.setBigInt64(this.length, BigInt(value), true);
    this.length += 8;
  }

  /** Unsigned LEB128 of a non-negative safe integer. */
  varint(value: number): void {
    this.reserve(10);
    while (value >= 0x80) {
      this.bytes[this.length++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.bytes[this.length++] = value;
  }

  /** Zigzag then LEB128 of a safe integer (Thrift's i16/i32/i64, Parquet's delta headers). */
  zigzag(value: number): void {
    this.varint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  /** The bytes written, as a view (valid until the next write). */
  written(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** The raw buffer, for encoders that write in place after reserve(). */
  get raw(): Uint8Array {
    return this.bytes;
  }
}
