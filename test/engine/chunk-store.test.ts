// A chunk's weights (1 / sample rate) as the ChunkStore gives them: null when nothing was
// sampled, known for a part from its footer and dictionaries without decoding (or keeping)
// the rates; otherwise one weight per row, from the decoded rates.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChunkStore, type ChunkRef } from "../../engine/chunk-store.ts";
import type { DecodePool } from "../../engine/parallel/decode-pool.ts";
import { writeParquetPart } from "../../storage/data-files.ts";
import { eventsToTable } from "../../storage/event-buffer.ts";
import { storedEvent } from "../storage/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "chunk-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function part(name: string, rates: number[]): ChunkRef {
  const path = join(dir, name);
  writeParquetPart(path, eventsToTable(rates.map((sample_rate) => storedEvent({ sample_rate }))));
  return { kind: "part", id: path, path, rows: rates.length, day: "2026-11-20" };
}

test("an unsampled part has no weights, and its rates are neither decoded nor kept", async () => {
  const store = new ChunkStore();
  expect(await store.weights(part("unsampled.parquet", [1, 1, 1]))).toBeNull();
  // Only the (empty) weights entry is cached: no rates column.
  expect(store.stats()).toEqual({ columns: 1, bytes: 0 });
});

test("a part sampled at one rate throughout weighs every row by its inverse; mixed rates row by row", async () => {
  const store = new ChunkStore();
  expect(await store.weights(part("quarter.parquet", [0.25, 0.25]))).toEqual(new Float64Array([4, 4]));
  const mixed = part("mixed.parquet", [1, 0.5, 0.25]);
  expect(await store.weights(mixed)).toEqual(new Float64Array([1, 2, 4]));
  // Kept: the second call answers from the cache with the same array.
  expect(await store.weights(mixed)).toBe((await store.weights(mixed))!);
});

test("forgetting the files under a directory drops their columns and their read-aheads not taken, and counts only theirs", async () => {
  const submitted: string[] = [];
  const takenBack: string[] = [];
  // A pool that only records: the read-aheads stay queued.
  const pool = {
    workerCount: 1,
    submit: (path: string) => {
      submitted.push(path);
      return { request: { path } };
    },
    takeBack: (task: { request: { path: string } }) => {
      takenBack.push(task.request.path);
      return true;
    },
  } as unknown as DecodePool;
  const store = new ChunkStore(undefined, pool);
  mkdirSync(join(dir, "erased"), { recursive: true });
  const erased = part(join("erased", "a.parquet"), [1, 1]);
  const kept = part("kept.parquet", [1]);
  for (const ref of [erased, kept]) await store.columns(ref, ["uuid"]);
  store.readAhead([erased, kept], ["event"]);
  expect(submitted).toEqual([join(dir, "erased", "a.parquet"), join(dir, "kept.parquet")]);
  expect(store.forgetFilesUnder(join(dir, "erased", "/"))).toBe(1);
  expect([takenBack, store.stats().columns]).toEqual([[join(dir, "erased", "a.parquet")], 1]);
});
