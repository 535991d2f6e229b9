// quantile() selects the two order statistics around q * (n - 1) instead of sorting; it must
// give exactly what sorting and interpolating gives (DuckDB's quantile_cont), on any input.
import { expect, test } from "bun:test";
import { quantile } from "../../engine/quantile.ts";
import { seededRandom } from "./dataset.ts";

function bySorting(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = q * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

const quantiles = [0, 0.01, 0.25, 0.5, 0.9, 0.99, 1];

test("hand-worked: median of 1..4 is 2.5, p90 of 0..10 is 9, one value is every quantile, none is null", () => {
  expect(quantile(Float64Array.of(4, 1, 3, 2), 0.5)).toBe(2.5);
  expect(quantile(Float64Array.from({ length: 11 }, (_, i) => 10 - i), 0.9)).toBe(9);
  expect(quantiles.map((q) => quantile(Float64Array.of(7), q))).toEqual(quantiles.map(() => 7));
  expect(quantile(new Float64Array(0), 0.5)).toBeNull();
});

test("equals sort-and-interpolate on random, duplicate-heavy, sorted, reversed and constant inputs; the input is left as it was", () => {
  const random = seededRandom(11);
  const inputs: number[][] = [];
  for (let n = 1; n <= 60; n++) inputs.push(Array.from({ length: n }, () => random() * 1000 - 500));
  for (const n of [2, 3, 10, 1000, 5001]) {
    inputs.push(Array.from({ length: n }, () => Math.floor(random() * 4)));
    inputs.push(Array.from({ length: n }, (_, i) => i));
    inputs.push(Array.from({ length: n }, (_, i) => n - i));
    inputs.push(Array.from({ length: n }, () => 3.5));
    inputs.push(Array.from({ length: n }, (_, i) => (i % 2 === 0 ? i : -i)));
  }
  for (const input of inputs) {
    const values = Float64Array.from(input);
    for (const q of quantiles) expect([input.length, q, quantile(values, q)]).toEqual([input.length, q, bySorting(input, q)]);
    expect([...values]).toEqual(input);
  }
});
