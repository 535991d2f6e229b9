// boundJson: a value that fits is kept as it is; one that does not keeps its shape with arrays
// cut to their first items and long strings shortened, or becomes null.
import { expect, test } from "bun:test";
import { boundedStringCharsMax, boundJson } from "../../../server/region/ask/bounded-json.ts";

test("a value whose JSON fits, to the character, is kept whole", () => {
  const value = { series: [{ label: "a", data: [1, 2, 3] }] };
  const length = JSON.stringify(value).length;
  expect(boundJson(value, length)).toEqual({ value, truncated: false });
  expect(boundJson(value, length - 1).truncated).toBe(true);
});

test("past the bound every array is cut to its first items until the text fits", () => {
  const value = { kind: "trends", series: [{ label: "a", data: Array.from({ length: 1000 }, (_, index) => index) }] };
  const { value: cut, truncated } = boundJson(value, 200);
  expect(truncated).toBe(true);
  expect(JSON.stringify(cut).length).toBeLessThanOrEqual(200);
  expect(cut).toEqual({ kind: "trends", series: [{ label: "a", data: Array.from({ length: (cut as any).series[0].data.length }, (_, index) => index) }] });
  expect((cut as any).series[0].data.length).toBeGreaterThan(10);
});

test("long strings are shortened once a value must be cut; what cannot fit at all is null", () => {
  const long = "x".repeat(boundedStringCharsMax + 500);
  const { value } = boundJson({ labels: [long, long] }, boundedStringCharsMax + 100);
  expect(value).toEqual({ labels: [`${"x".repeat(boundedStringCharsMax)}…`] });
  expect(boundJson({ a: "y".repeat(5000) }, 50)).toEqual({ value: null, truncated: true });
});
