// Decode workers on real parts: columns decoded in a worker equal the main thread's and live in
// shared memory; a worker's error reaches the caller as the same class with the same message; a
// part the reader refuses is still read (through parquet-wasm) when read ahead; a closed pool
// refuses reads and ends its workers; an idle pool does not keep a process alive.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableToIPC } from "apache-arrow";
import { Compression, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from "parquet-wasm";
import { ChunkStore, type ChunkRef } from "../../../engine/chunk-store.ts";
import type { Decoded } from "../../../engine/columns.ts";
import { DecodePool } from "../../../engine/parallel/decode-pool.ts";
import { readFooter } from "../../../engine/parquet/footer.ts";
import { readPartColumns } from "../../../engine/parquet/part-columns.ts";
import { ParquetUnsupportedError } from "../../../engine/parquet/unsupported.ts";
import { writeParquetPart } from "../../../storage/data-files.ts";
import { eventsToTable } from "../../../storage/event-buffer.ts";
import type { StoredEvent } from "../../../storage/event-record.ts";
import { storedEvent } from "../../storage/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "decode-pool-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const names = ["event", "timestamp", "person_index", "p_price", "p_$browser"];

function events(count: number): StoredEvent[] {
  return Array.from({ length: count }, (_, i) => storedEvent({
    event: ["$pageview", "purchase", "signup"][i % 3]!,
    timestamp: Date.parse("2026-11-20T00:00:00Z") + i * 1_000,
    person_index: Math.floor(i / 7),
    properties: { price: i % 5 === 0 ? null : i / 4, $browser: i % 4 === 0 ? null : ["Firefox", "Chrome", "Édge ✓"][i % 3] },
  }));
}

function part(name: string, count: number): ChunkRef & { path: string } {
  const path = join(dir, name);
  writeParquetPart(path, eventsToTable(events(count)));
  return { kind: "part", id: path, path, rows: count, day: "2026-11-20" };
}

/** A part compressed with snappy, which the reader refuses page by page (parquet-wasm reads it). */
function snappyPart(name: string, count: number): ChunkRef & { path: string } {
  const path = join(dir, name);
  const properties = new WriterPropertiesBuilder().setCompression(Compression.SNAPPY).build();
  writeFileSync(path, writeParquet(WasmTable.fromIPCStream(tableToIPC(eventsToTable(events(count)), "stream")), properties));
  return { kind: "part", id: path, path, rows: count, day: "2026-11-20" };
}

/** The error a read fails with (the test fails if it succeeds). */
const failure = (read: Promise<unknown>): Promise<Error> => read.then(() => new Error("expected the read to fail"), (error: Error) => error);

const noRunHere = async () => {
  throw new Error("not taken back in this test");
};

/** Whether a decoded column's arrays are views of shared memory. */
function shared(column: Decoded): boolean {
  const arrays = column instanceof Float64Array || column instanceof Int32Array ? [column] : column.kind === "number" ? [column.values, column.present] : [column.codes];
  return arrays.every((array) => array === null || array.buffer instanceof SharedArrayBuffer);
}

test("a worker's columns equal the main thread's, in shared memory", async () => {
  const pool = new DecodePool(1);
  try {
    const { path } = part("plain.parquet", 3_000);
    const footer = readFooter(path);
    const inWorker = await pool.submit(path, footer, names, noRunHere).result;
    const here = readPartColumns(path, footer, names);
    expect([...inWorker.keys()]).toEqual(names);
    for (const name of names) {
      expect({ name, shared: shared(inWorker.get(name)!) }).toEqual({ name, shared: true });
      // Compared as plain values: the arrays' buffers differ in kind (shared or not).
      expect({ name, column: plain(inWorker.get(name)!) }).toEqual({ name, column: plain(here.get(name)!) });
    }
    expect(pool.counts).toEqual({ byWorkers: 1, byMain: 0 });
  } finally {
    await pool.close();
  }
});

function plain(column: Decoded): unknown {
  if (column instanceof Float64Array || column instanceof Int32Array) return Array.from(column);
  if (column.kind === "number") return { values: Array.from(column.values), present: column.present && Array.from(column.present) };
  return { codes: Array.from(column.codes), words: column.words };
}

test("a worker's error reaches the caller as the same class with the same message", async () => {
  const pool = new DecodePool(1);
  try {
    const { path } = part("errors.parquet", 100);
    const footer = readFooter(path);
    const thrownHere = (read: () => unknown) => {
      try {
        read();
      } catch (error) {
        return error as Error;
      }
      throw new Error("expected an error");
    };
    const missing = thrownHere(() => readPartColumns(path, footer, ["no_such_column"]));
    const inWorker = await failure(pool.submit(path, footer, ["no_such_column"], noRunHere).result);
    expect({ class: inWorker.constructor, message: inWorker.message }).toEqual({ class: Error, message: missing.message });

    const snappy = snappyPart("snappy-errors.parquet", 100);
    const snappyFooter = readFooter(snappy.path);
    const refused = thrownHere(() => readPartColumns(snappy.path, snappyFooter, ["event"]));
    expect(refused).toBeInstanceOf(ParquetUnsupportedError);
    const refusedInWorker = await failure(pool.submit(snappy.path, snappyFooter, ["event"], noRunHere).result);
    expect({ class: refusedInWorker.constructor, message: refusedInWorker.message }).toEqual({ class: ParquetUnsupportedError, message: refused.message });
  } finally {
    await pool.close();
  }
});

test("a part the reader refuses is read through parquet-wasm when a worker read it ahead", async () => {
  const pool = new DecodePool(1);
  try {
    const refs = [part("first.parquet", 500), snappyPart("snappy.parquet", 2_000)];
    const alone = new ChunkStore(undefined, null);
    const parallel = new ChunkStore(undefined, pool);
    for (const ref of refs) await parallel.schema(ref);
    parallel.readAhead(refs, names);
    for (const ref of refs) {
      const expected = new Map([...(await alone.columns(ref, names))].map(([name, column]) => [name, plain(column)]));
      expect(new Map([...(await parallel.columns(ref, names))].map(([name, column]) => [name, plain(column)]))).toEqual(expected);
    }
    // Each part went to the worker or was taken back by the main thread: both read ahead.
    expect(pool.counts.byWorkers + pool.counts.byMain).toBe(2);
  } finally {
    await pool.close();
  }
});

test("a closed pool refuses reads, and reads it had not answered fail", async () => {
  const pool = new DecodePool(2);
  const { path } = part("closing.parquet", 20_000);
  const footer = readFooter(path);
  const reads = Array.from({ length: 6 }, () => pool.submit(path, footer, names, noRunHere).result.then(() => "read", (error: Error) => error.message));
  await pool.close();
  for (const outcome of await Promise.all(reads)) expect(["read", "the decode pool was closed"]).toContain(outcome);
  expect(() => pool.submit(path, footer, names, noRunHere)).toThrow("the decode pool is closed");
});

test("a pool left open does not keep its process alive once idle", async () => {
  const { path } = part("idle.parquet", 1_000);
  const script = `
    import { DecodePool } from ${JSON.stringify(join(import.meta.dir, "../../../engine/parallel/decode-pool.ts"))};
    import { readFooter } from ${JSON.stringify(join(import.meta.dir, "../../../engine/parquet/footer.ts"))};
    const pool = new DecodePool(2);
    const columns = await pool.submit(${JSON.stringify(path)}, readFooter(${JSON.stringify(path)}), ["event"], async () => {}).result;
    console.log(columns.get("event").codes.length);
  `;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  expect({ exit: await child.exited, output: (await new Response(child.stdout).text()).trim() }).toEqual({ exit: 0, output: "1000" });
});
