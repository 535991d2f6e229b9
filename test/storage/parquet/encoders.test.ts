// The Parquet writer's encoders against the format's own worked examples (Encodings.md) and
// against a reference decoder written here from the specification, on seeded random data.
import { describe, expect, test } from "bun:test";
import { BitPacker, bitWidthOf } from "../../../storage/parquet/bit-packing.ts";
import { ByteWriter } from "../../../storage/parquet/byte-writer.ts";
import { encodeDeltaBinaryPacked } from "../../../storage/parquet/delta-binary-packed.ts";
import { encodeDefinitionLevels, encodeHybrid } from "../../../storage/parquet/rle-hybrid.ts";
import { ThriftWriter } from "../../../storage/parquet/thrift-compact.ts";
import { seededRandom } from "../../engine/dataset.ts";

const bytesOf = (write: (out: ByteWriter) => void) => {
  const out = new ByteWriter(8);
  write(out);
  return [...out.written()];
};

/** Reads LEB128 and bit-packed values back, as a reader of the format would. */
class Reader {
  at = 0;
  constructor(private readonly bytes: number[]) {}
  varint(): number {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      const byte = this.bytes[this.at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  }
  zigzag(): number {
    const raw = this.varint();
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }
  /** `count` values of `width` bits, least significant bit first, then whole bytes skipped. */
  unpack(count: number, width: number): number[] {
    const values: number[] = [];
    let bit = 0;
    for (let i = 0; i < count; i++) {
      let value = 0;
      for (let b = 0; b < width; b++, bit++) value += ((this.bytes[this.at + (bit >> 3)]! >> (bit & 7)) & 1) * 2 ** b;
      values.push(value);
    }
    this.at += Math.ceil(bit / 8);
    return values;
  }
}

function decodeHybrid(bytes: number[], count: number, width: number): number[] {
  const reader = new Reader(bytes);
  const values: number[] = [];
  while (values.length < count) {
    const header = reader.varint();
    if (header % 2 === 1) values.push(...reader.unpack(((header - 1) / 2) * 8, width));
    else {
      let value = 0;
      for (let byte = 0; byte < Math.ceil(width / 8); byte++) value += bytes[reader.at++]! * 256 ** byte;
      for (let i = 0; i < header / 2; i++) values.push(value);
    }
  }
  expect(reader.at).toBe(bytes.length);
  return values.slice(0, count);
}

function decodeDelta(bytes: number[], physical: "int32" | "int64"): number[] {
  const reader = new Reader(bytes);
  const blockValues = reader.varint();
  const miniblocks = reader.varint();
  const count = reader.varint();
  const values = count > 0 ? [reader.zigzag()] : [];
  while (values.length < count) {
    const minDelta = reader.zigzag();
    const widths = Array.from({ length: miniblocks }, () => bytes[reader.at++]!);
    for (const width of widths) {
      if (values.length >= count) break;
      for (const packed of reader.unpack(blockValues / miniblocks, width)) {
        if (values.length >= count) continue;
        const next = values.at(-1)! + minDelta + packed;
        values.push(physical === "int32" ? next | 0 : next);
      }
    }
  }
  expect(reader.at).toBe(bytes.length);
  return values;
}

describe("thrift compact protocol", () => {
  test("varints, zigzag and field headers", () => {
    expect(bytesOf((out) => out.varint(300))).toEqual([0xac, 0x02]);
    expect(bytesOf((out) => out.varint(2 ** 40))).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    expect(bytesOf((out) => [0, -1, 1, -2, 2].forEach((value) => out.zigzag(value)))).toEqual([0, 1, 2, 3, 4]);
    const struct = new ThriftWriter(new ByteWriter(8))
      .i32(1, 3)
      .i64(2, -1)
      .bool(5, true)
      .binary(21, new Uint8Array([7]))
      .struct(22, (inner) => inner.i32(1, 1))
      .i32List(23, [8])
      .end();
    // Field 21 is 16 past field 5: a long header (type byte, zigzag id).
    expect([...struct]).toEqual([0x15, 6, 0x16, 1, 0x31, 0x08, 42, 1, 7, 0x1c, 0x15, 2, 0, 0x19, 0x15, 16, 0]);
  });
});

describe("bit packing", () => {
  test("Encodings.md's example: 0..7 in 3 bits", () => {
    expect(bytesOf((out) => {
      const packer = new BitPacker(out);
      for (let value = 0; value < 8; value++) packer.write(value, 3);
      packer.flush();
    })).toEqual([0b10001000, 0b11000110, 0b11111010]);
  });

  test("every width from 0 to 53 bits round-trips", () => {
    const random = seededRandom(11);
    for (let width = 0; width <= 53; width++) {
      const values = Array.from({ length: 37 }, () => Math.floor(random() * 2 ** width));
      const bytes = bytesOf((out) => {
        const packer = new BitPacker(out);
        for (const value of values) packer.write(value, width);
        packer.flush();
      });
      expect([width, new Reader(bytes).unpack(values.length, width)]).toEqual([width, values]);
      expect(bitWidthOf(2 ** width - 1)).toBe(width);
    }
  });
});

describe("RLE/bit-packed hybrid", () => {
  test("a run of ten is one RLE run; 0..7 is one bit-packed group (Encodings.md)", () => {
    expect(bytesOf((out) => encodeHybrid(new Array(10).fill(1), 10, 1, out))).toEqual([20, 1]);
    expect(bytesOf((out) => encodeHybrid([0, 1, 2, 3, 4, 5, 6, 7], 8, 3, out))).toEqual([3, 0b10001000, 0b11000110, 0b11111010]);
    // A value of width 0 (a dictionary of one word) takes no bytes.
    expect(bytesOf((out) => encodeHybrid([0, 0, 0, 0, 0, 0, 0, 0, 0], 9, 0, out))).toEqual([18]);
  });

  test("seeded runs and noise at several widths decode to the values", () => {
    const random = seededRandom(5);
    for (const width of [1, 2, 5, 8, 13, 20]) {
      const values: number[] = [];
      while (values.length < 3000) {
        const value = Math.floor(random() * 2 ** width);
        const repeat = random() < 0.3 ? 1 + Math.floor(random() * 40) : 1;
        for (let i = 0; i < repeat; i++) values.push(value);
      }
      const bytes = bytesOf((out) => encodeHybrid(values, values.length, width, out));
      expect(decodeHybrid(bytes, values.length, width)).toEqual(values);
    }
  });

  test("definition levels: one RLE run without nulls, else the bitmap with its padding cleared", () => {
    expect(bytesOf((out) => encodeDefinitionLevels(null, 0, 5, out))).toEqual([2, 0, 0, 0, 10, 1]);
    // Rows 8..18 of a bitmap: 11 rows, two groups; bits past row 18 of the source are cleared.
    const validity = new Uint8Array([0xff, 0b10110101, 0b11111111, 0xff]);
    expect(bytesOf((out) => encodeDefinitionLevels(validity, 8, 11, out))).toEqual([3, 0, 0, 0, 5, 0b10110101, 0b00000111]);
    expect(() => encodeDefinitionLevels(validity, 3, 2, new ByteWriter())).toThrow("byte boundary");
  });
});

describe("DELTA_BINARY_PACKED", () => {
  test("Encodings.md's example: 1, 2, 3, 4, 5", () => {
    expect(bytesOf((out) => encodeDeltaBinaryPacked([1, 2, 3, 4, 5], 5, "int64", out))).toEqual([0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0]);
    expect(bytesOf((out) => encodeDeltaBinaryPacked([], 0, "int32", out))).toEqual([0x80, 0x01, 4, 0, 0]);
  });

  test("sorted, unsorted and extreme values decode to the values", () => {
    const random = seededRandom(3);
    const timestamps = [Date.parse("2026-11-20T00:00:00Z")];
    for (let i = 1; i < 1000; i++) timestamps.push(timestamps.at(-1)! + (random() < 0.1 ? -Math.floor(random() * 86_400_000) : Math.floor(random() * 5000)));
    expect(decodeDelta(bytesOf((out) => encodeDeltaBinaryPacked(timestamps, timestamps.length, "int64", out)), "int64")).toEqual(timestamps);
    const persons = Array.from({ length: 777 }, (_, i) => Math.floor(i / 3) + (i % 50 === 0 ? 1000 : 0));
    expect(decodeDelta(bytesOf((out) => encodeDeltaBinaryPacked(persons, persons.length, "int32", out)), "int32")).toEqual(persons);
    // int32 deltas wrap around as readers compute them: the widest delta still fits 32 bits.
    const extremes = [0, 2147483647, -2147483648, 5, 2147483647, 0];
    expect(decodeDelta(bytesOf((out) => encodeDeltaBinaryPacked(extremes, extremes.length, "int32", out)), "int32")).toEqual(extremes);
  });
});
