import { describe, expect, test } from "bun:test";
import { Table, makeVector, tableFromIPC, tableToIPC } from "apache-arrow";
import { vectorValues } from "../../storage/arrow-vectors.ts";
import {
  BoolBuilder, DictionaryBuilder, Float64Builder, Int32Builder, TimestampBuilder, Utf8Builder,
} from "../../storage/column-builders.ts";

/** Values through an Arrow IPC round trip, as a sealed segment stores them. */
function throughIpc(builder: { finish(): Parameters<typeof makeVector>[0] }): unknown[] {
  const table = new Table({ column: makeVector(builder.finish()) });
  return vectorValues(tableFromIPC(tableToIPC(table, "stream")).getChild("column")!);
}

/** Past the builders' first allocation (1,024 rows, 16 KB of text): growth must keep every value. */
const rows = 5000;

describe("column builders", () => {
  test("numbers, integers and booleans with nulls, past the first allocation", () => {
    const numbers = new Float64Builder();
    const integers = new Int32Builder();
    const flags = new BoolBuilder();
    const expectedNumbers: (number | null)[] = [];
    const expectedIntegers: (number | null)[] = [];
    const expectedFlags: (boolean | null)[] = [];
    for (let row = 0; row < rows; row++) {
      if (row % 7 === 3) {
        numbers.appendNull();
        expectedNumbers.push(null);
      } else {
        numbers.append(row / 4);
        expectedNumbers.push(row / 4);
      }
      integers.append(row * 3 - 7);
      expectedIntegers.push(row * 3 - 7);
      if (row % 5 === 0) {
        flags.appendNull();
        expectedFlags.push(null);
      } else {
        flags.append(row % 3 === 0);
        expectedFlags.push(row % 3 === 0);
      }
    }
    expect(throughIpc(numbers)).toEqual(expectedNumbers);
    expect(throughIpc(integers)).toEqual(expectedIntegers);
    expect(throughIpc(flags)).toEqual(expectedFlags);
    expect([numbers.present, integers.present, flags.present]).toEqual([rows - 714, rows, rows - 1000]);
  });

  test("a run of trailing nulls past the values written is all null, not short", () => {
    const numbers = new Float64Builder();
    const codes = new DictionaryBuilder();
    const text = new Utf8Builder();
    numbers.append(1);
    codes.append("a");
    text.append("x");
    for (const builder of [numbers, codes, text]) builder.padTo(rows);
    expect(throughIpc(numbers)).toEqual([1, ...new Array(rows - 1).fill(null)]);
    expect(throughIpc(codes)).toEqual(["a", ...new Array(rows - 1).fill(null)]);
    expect(throughIpc(text)).toEqual(["x", ...new Array(rows - 1).fill(null)]);
  });

  test("a column with no nulls has no validity bitmap", () => {
    const numbers = new Float64Builder();
    numbers.append(1);
    numbers.append(2);
    expect(numbers.finish().nullCount).toBe(0);
    expect(numbers.finish().nullBitmap.byteLength).toBe(0);
  });

  test("timestamps: epoch milliseconds past 32 bits, before 1970 and at the far future survive as 64-bit values", () => {
    const times = new TimestampBuilder();
    const values = [0, 1, -1, 2 ** 32, 2 ** 32 + 1, Date.parse("2026-11-23T10:00:00.123Z"), Date.parse("1969-07-20T20:17:40Z"), 8.64e15];
    for (const value of values) times.append(value);
    expect(throughIpc(times)).toEqual(values);
  });

  test("text: non-ASCII values, empty strings, nulls and copied bytes", () => {
    const text = new Utf8Builder();
    const values = ["", "plain", "café ☕", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", null, "\uFEFFa leading U+FEFF is part of the value", "x".repeat(40_000)];
    for (const value of values) if (value === null) text.appendNull(); else text.append(value);
    const bytes = new TextEncoder().encode("..ünïcode..");
    text.appendBytes(bytes, 2, bytes.byteLength - 2);
    text.appendBytes(bytes, 0, 0);
    expect(throughIpc(text)).toEqual([...values, "ünïcode", ""]);
    expect(text.valueAt(2)).toBe("café ☕");
  });

  test("dictionary text: repeated values share one code; finishing leaves the builder usable", () => {
    const codes = new DictionaryBuilder();
    for (const value of ["b", "a", "b", "b"]) codes.append(value);
    const first = codes.finish();
    codes.appendNull();
    codes.appendCode(codes.codeOf("c"));
    expect(vectorValues(makeVector(first))).toEqual(["b", "a", "b", "b"]);
    expect(codes.words).toEqual(["b", "a", "c"]);
    expect(throughIpc(codes)).toEqual(["b", "a", "b", "b", null, "c"]);
  });

  test("arrays finished earlier view the builder's memory and keep their values while it goes on and grows", () => {
    const builders = {
      numbers: [new Float64Builder(), (row: number) => row / 2],
      integers: [new Int32Builder(), (row: number) => row - 3],
      flags: [new BoolBuilder(), (row: number) => row % 3 === 0],
      times: [new TimestampBuilder(), (row: number) => 2 ** 40 + row],
      text: [new Utf8Builder(), (row: number) => `value ${row}`],
      codes: [new DictionaryBuilder(), (row: number) => `word ${row % 5}`],
    } as const;
    const valueAt = (row: number, make: (row: number) => unknown) => (row % 4 === 1 ? null : make(row));
    for (const [name, [builder, make]] of Object.entries(builders)) {
      const append = (row: number) => {
        const value = valueAt(row, make);
        if (value === null) builder.appendNull();
        else (builder.append as (value: unknown) => void)(value);
      };
      // 11 rows: the validity bitmap's and the flags' last byte are partly filled when finished.
      for (let row = 0; row < 11; row++) append(row);
      const early = builder.finish();
      for (let row = 11; row < rows; row++) append(row);
      const expected = (count: number): unknown[] => Array.from({ length: count }, (_, row) => valueAt(row, make));
      expect([name, throughIpc({ finish: () => early })]).toEqual([name, expected(11)]);
      expect([name, throughIpc(builder)]).toEqual([name, expected(rows)]);
    }
  });
  test("truncate takes back rows appended since the last view: values, nulls, counts, text bytes and words only they used", () => {
    const builders = {
      numbers: [new Float64Builder(), (row: number) => row / 2],
      integers: [new Int32Builder(), (row: number) => row - 3],
      flags: [new BoolBuilder(), () => true],
      times: [new TimestampBuilder(), (row: number) => 2 ** 40 + row],
      text: [new Utf8Builder(), (row: number) => `value ${row} é`],
      codes: [new DictionaryBuilder(), (row: number) => (row < 3000 ? `word ${row % 5}` : `late word ${row}`)],
    } as const;
    const valueAt = (row: number, make: (row: number) => unknown) => (row % 4 === 1 ? null : make(row));
    for (const [name, [builder, make]] of Object.entries(builders)) {
      const append = (row: number, value = valueAt(row, make)) => {
        if (value === null) builder.appendNull();
        else (builder.append as (value: unknown) => void)(value);
      };
      // 3,001 rows: not on a byte boundary, so the bitmaps' last kept byte also holds dropped rows.
      for (let row = 0; row < 3001; row++) append(row);
      const view = builder.finish();
      // Past every allocation, so the dropped rows grew the arrays.
      for (let row = 3001; row < rows; row++) append(row);
      builder.truncate(3001);
      expect([name, builder.length, builder.present]).toEqual([name, 3001, Array.from({ length: 3001 }, (_, row) => valueAt(row, make)).filter((v) => v !== null).length]);
      // Written again: true flags over dropped bits read false where a false now goes.
      const again = (row: number) => (name === "flags" ? false : valueAt(row + 7, make));
      for (let row = 3001; row < 3011; row++) append(row, again(row));
      const expected = [...Array.from({ length: 3001 }, (_, row) => valueAt(row, make)), ...Array.from({ length: 10 }, (_, index) => again(3001 + index))];
      expect([name, throughIpc(builder)]).toEqual([name, expected]);
      expect([name, throughIpc({ finish: () => view })]).toEqual([name, expected.slice(0, 3001)]);
    }
    const codes = builders.codes[0];
    // The words of dropped rows (late word 3001 to 4999) are gone; those written again came back in order.
    expect(codes.words).toEqual([
      "word 0", "word 2", "word 3", "word 4", "word 1", "late word 3000",
      "late word 3008", "late word 3010", "late word 3011", "late word 3012", "late word 3014", "late word 3015", "late word 3016",
    ]);
  });

  test("a dictionary value that cannot be written leaves no word behind: the next new word keeps its own code and bytes", () => {
    for (const unwritable of [null, 5, { text: "object" }]) {
      const codes = new DictionaryBuilder();
      codes.append("signup");
      expect(() => codes.append(unwritable as unknown as string)).toThrow();
      codes.append("purchase");
      codes.append("signup");
      expect([String(unwritable), codes.words, codes.length, throughIpc(codes)]).toEqual([String(unwritable), ["signup", "purchase"], 3, ["signup", "purchase", "signup"]]);
    }
  });

  test("truncate past the last row, or of a column shorter than that, changes nothing", () => {
    const text = new Utf8Builder();
    for (const value of ["a", "b"]) text.append(value);
    text.truncate(5);
    text.truncate(2);
    expect([text.length, text.present, throughIpc(text)]).toEqual([2, 2, ["a", "b"]]);
  });
});
