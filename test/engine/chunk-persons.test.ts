// A chunk's canonical persons are mapped once per override array: the same array from the
// person store gives the cached mapping, a new one (after a merge) maps the rows again.
import { afterAll, expect, test } from "bun:test";
import { ChunkStore } from "../../engine/chunk-store.ts";
import { buildDataset } from "./dataset.ts";

const dataset = await buildDataset({ seed: 3, persons: 5, events: 40, start: Date.parse("2026-10-20T00:00:00Z"), days: 1 });
afterAll(() => dataset.close());

test("cached while the override array is the same; recomputed for a new one", async () => {
  const store = new ChunkStore();
  const [ref] = dataset.source().chunks.filter((chunk) => chunk.kind === "part");
  const personIndex = (await store.columns(ref!, ["person_index"])).get("person_index") as Int32Array;
  const identity = Int32Array.from({ length: 5 }, (_, i) => i);
  const first = store.persons(ref!, personIndex, identity);
  expect([...first]).toEqual([...personIndex]);
  expect(store.persons(ref!, personIndex, identity)).toBe(first);
  const bytesBefore = store.stats().bytes;
  const allToZero = new Int32Array(5);
  const merged = store.persons(ref!, personIndex, allToZero);
  expect([...merged]).toEqual([...personIndex].map(() => 0));
  expect(store.stats().bytes).toBe(bytesBefore);
});
