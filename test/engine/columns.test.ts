// Decoding Arrow arrays into the executor's columns: null bitmaps read a byte at a time must give
// the same rows as reading them bit by bit, including arrays that start mid-byte (slices), and
// dictionary columns with and without nulls.
import { expect, test } from "bun:test";
import { vectorFromArray, Dictionary, Float64, Int32, Utf8 } from "apache-arrow";
import { fromArrowData, numberColumn, textColumn } from "../../engine/columns.ts";

const values = Array.from({ length: 45 }, (_, i) => (i % 3 === 0 || i % 7 === 0 ? null : i * 1.5));

test("numbers with nulls: present flags and zeroed null slots, whole and sliced at every offset", () => {
  const vector = vectorFromArray(values, new Float64());
  for (let start = 0; start < 12; start++) {
    const slice = vector.slice(start, start + 30);
    const column = numberColumn(slice.data.map(fromArrowData));
    const expected = values.slice(start, start + 30);
    expect([...column.present!]).toEqual(expected.map((value) => (value === null ? 0 : 1)));
    expect([...column.values]).toEqual(expected.map((value) => value ?? 0));
  }
});

test("dictionary text: codes with and without nulls", () => {
  const words = ["eu", "us", null, "eu", "me", null, "us", "eu", "eu", "pk"];
  const dictionary = new Dictionary(new Utf8(), new Int32());
  for (const input of [words, words.map((word) => word ?? "none")]) {
    const column = textColumn(vectorFromArray(input, dictionary).data.map(fromArrowData));
    expect(Array.from(column.codes, (code) => (code < 0 ? null : column.words[code]))).toEqual(input);
  }
});
