// An event store of its own in a temporary directory, for engine tests that read a partition's
// snapshot (Parquet parts, sealed segments, unsealed rows): events are added through the WAL as
// ingest adds them, and `withChunks` lends a snapshot of the production partition to a read.
import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshotChunks, type ChunkRef, type ChunkStore } from "../../engine/chunk-store.ts";
import { EventStore, defaultStorageTuning } from "../../storage/event-store.ts";
import { encodeBatchRecord, readBatchRecord, type StoredEvent } from "../../storage/event-record.ts";
import { WriteAheadLog } from "../../storage/wal.ts";
import { acceptedBatchOf } from "../storage/fixtures.ts";

export const fixtureProjectId = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const dataId = 7;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A store that seals and compacts only when the test says so; removed after the test. */
export async function openEventStore(prefix: string, columns: ChunkStore) {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const wal = await WriteAheadLog.open(join(dataDir, "wal"));
  const store = EventStore.open(dataDir, join(dataDir, "wal"), (position) => wal.truncateUpTo(position), {
    ...defaultStorageTuning, sealRows: 1_000_000, sealAgeMs: 3_600_000,
  });
  cleanups.push(async () => {
    await wal.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const ingest = async (events: StoredEvent[], environment = "production") => {
    const parts = encodeBatchRecord(acceptedBatchOf(fixtureProjectId, dataId, environment, events));
    store.add(readBatchRecord(...parts), await wal.append(parts));
  };
  const withChunks = async <T>(read: (chunks: ChunkRef[]) => Promise<T>) => {
    const chunks = snapshotChunks(store.snapshot(dataId, "production"), dataDir);
    try {
      return await read(chunks);
    } finally {
      columns.release(chunks);
    }
  };
  return { dataDir, store, ingest, withChunks };
}
