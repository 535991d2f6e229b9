import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WriteAheadLog } from "../../storage/wal.ts";
import { EventStore, defaultStorageTuning, type StorageTuning } from "../../storage/event-store.ts";
import { encodeBatchRecord, readBatchRecord, type StoredEvent } from "../../storage/event-record.ts";
import { readManifest } from "../../storage/manifest.ts";
import { CompactionThread, compactInPlace, type Compactor } from "../../storage/compaction-thread.ts";
import { partsPerMerge } from "../../storage/partition-compaction.ts";
import { acceptedBatchOf, storedEvent } from "./fixtures.ts";

const dirs: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const projectId = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const quiet: StorageTuning = { ...defaultStorageTuning, sealRows: 1_000_000, sealAgeMs: 3_600_000 };

async function openStore(compactor: Compactor) {
  const dataDir = mkdtempSync(join(tmpdir(), "compaction-test-"));
  dirs.push(dataDir);
  const wal = await WriteAheadLog.open(join(dataDir, "wal"));
  const store = EventStore.open(dataDir, join(dataDir, "wal"), (position) => wal.truncateUpTo(position), quiet, compactor);
  cleanups.push(async () => {
    await store.stop();
    store.close();
    await wal.close();
  });
  const ingest = async (events: StoredEvent[]) => {
    const parts = encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", events));
    store.add(readBatchRecord(...parts), await wal.append(parts));
  };
  return { dataDir, store, ingest };
}

const day = Date.parse("2026-11-19T12:00:00.000Z");
/** partsPerMerge compactions of two rows each, the last one with a row the first already stored. */
const compactions = Array.from({ length: partsPerMerge }, (_, part) => [
  storedEvent({ person_index: partsPerMerge - part, timestamp: day + part }),
  storedEvent({ person_index: part, timestamp: day + part }),
]);
compactions[partsPerMerge - 1]!.push(compactions[0]![0]!);

test("compaction on its own thread writes the same parts as compaction in place", async () => {
  const onThread = await openStore(new CompactionThread());
  const inPlace = await openStore(compactInPlace);
  for (const { store, ingest } of [onThread, inPlace]) {
    for (const events of compactions) {
      await ingest(events);
      await store.flush();
    }
  }
  // The files themselves differ only in the Arrow schema they embed, whose dictionary ids
  // apache-arrow numbers per thread: their names, sizes and rows must be the same.
  expect(readManifest(onThread.dataDir).parts).toEqual(readManifest(inPlace.dataDir).parts);
  const [merged] = readManifest(onThread.dataDir).parts;
  expect([merged!.level, merged!.rows]).toEqual([1, 2 * partsPerMerge]);
  expect(onThread.store.scan(7, "production")).toEqual(inPlace.store.scan(7, "production"));
});

test("a part made and merged away within one compaction is never written; the parts it merged are deleted", async () => {
  const { dataDir, store, ingest } = await openStore(compactInPlace);
  for (const events of compactions.slice(0, -1)) {
    await ingest(events);
    await store.flush();
  }
  const before = readManifest(dataDir).parts;
  expect(before.map((part) => part.level)).toEqual(new Array(partsPerMerge - 1).fill(0));
  await ingest(compactions.at(-1)!);
  await store.flush();
  const [merged] = readManifest(dataDir).parts;
  expect(readManifest(dataDir).parts).toEqual([{ ...merged!, level: 1, rows: 2 * partsPerMerge }]);
  // The eighth level-0 part took no file number: the merged part has the next one after the seal's.
  expect(readdirSync(join(dataDir, "parquet", "7", "production", "2026-11-19"))).toEqual([merged!.file.split("/").at(-1)!]);
  expect(merged!.file).toBe(`parquet/7/production/2026-11-19/part-${String(readManifest(dataDir).nextFileNumber - 1).padStart(8, "0")}.parquet`);
});

test("a compaction that fails changes nothing: the segments stay live and the store reports the problem until one succeeds", async () => {
  let fail = true;
  const flaky: Compactor = {
    run: (job) => (fail ? Promise.reject(new Error("disk went away")) : compactInPlace.run(job)),
    close: () => {},
  };
  const { dataDir, store, ingest } = await openStore(flaky);
  const events = [storedEvent(), storedEvent()];
  await ingest(events);
  await store.seal();
  const sealed = readManifest(dataDir);
  await expect(store.compact(7, "production")).rejects.toThrow("disk went away");
  expect(store.problem()).toBe("disk went away");
  expect(readManifest(dataDir)).toEqual(sealed);
  expect(store.scan(7, "production")).toEqual(events);

  fail = false;
  await store.compact(7, "production");
  expect(store.problem()).toBe(null);
  expect({ segments: readManifest(dataDir).segments, rows: readManifest(dataDir).parts.map((part) => part.rows) }).toEqual({ segments: [], rows: [2] });
  expect(readdirSync(join(dataDir, "segments"))).toEqual([]);
});

test("the compaction thread answers a job it cannot do with the error, and goes on with the next", async () => {
  const { dataDir, store, ingest } = await openStore(compactInPlace);
  await ingest([storedEvent(), storedEvent(), storedEvent()]);
  await store.seal();
  const { segments } = readManifest(dataDir);
  const thread = new CompactionThread();
  cleanups.push(() => thread.close());
  const missing = { ...segments[0]!, file: "segments/seal-99999999.arrows" };
  await expect(thread.run({ dataDir, segments: [missing], parts: [], partRowsMax: quiet.partRowsMax, partBytesMax: quiet.partBytesMax })).rejects.toThrow("no such file or directory");
  const outcome = await thread.run({ dataDir, segments, parts: [], partRowsMax: quiet.partRowsMax, partBytesMax: quiet.partBytesMax });
  expect(outcome.written.map(({ day: partDay, level, rows }) => ({ partDay, level, rows }))).toEqual([{ partDay: "2026-11-20", level: 0, rows: 3 }]);
  expect(outcome.replaced).toEqual([]);
});
