import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StorageClient } from "../../storage/storage-client.ts";
import { defaultStorageTuning } from "../../storage/event-store.ts";
import { WriteAheadLog } from "../../storage/wal.ts";
import { encodeBatchRecord } from "../../storage/event-record.ts";
import { acceptedBatchOf, storedEvent } from "./fixtures.ts";

const dirs: string[] = [];
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }); });

const projectId = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const quiet = { ...defaultStorageTuning, sealRows: 1_000_000, sealAgeMs: 3_600_000 };

test("past its backlog limit the client makes callers wait until the worker has taken the records", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "storage-client-"));
  dirs.push(dataDir);
  const wal = await WriteAheadLog.open(join(dataDir, "wal"));
  const client = await StorageClient.start(dataDir, join(dataDir, "wal"), quiet, () => {}, 1);
  try {
    let released = false;
    await client.backlogWithinLimit();
    const [head, body] = encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [storedEvent(), storedEvent()]));
    const position = await wal.append([head, body]);
    client.add(head, body, position);
    // The records moved to the worker: the caller's buffers are detached.
    expect([head.byteLength, body.byteLength]).toEqual([0, 0]);
    const waiting = client.backlogWithinLimit().then(() => (released = true));
    // The worker's answer cannot arrive before this turn of the event loop ends.
    expect(released).toBe(false);
    await waiting;
    expect(released).toBe(true);
    await client.backlogWithinLimit();
  } finally {
    await client.stop();
    await wal.close();
  }
});

test("past its limit of rows waiting in segments the client makes callers wait until compaction catches up", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "storage-client-"));
  dirs.push(dataDir);
  const wal = await WriteAheadLog.open(join(dataDir, "wal"));
  const client = await StorageClient.start(dataDir, join(dataDir, "wal"), quiet, () => {}, 1 << 30, 2);
  try {
    const [head, body] = encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [storedEvent(), storedEvent(), storedEvent()]));
    client.add(head, body, await wal.append([head, body]));
    await client.seal();
    // Replies come in order: once a later call has answered, the count after the seal is known.
    await client.snapshot(7, "production");
    let released = false;
    const waiting = client.backlogWithinLimit().then(() => (released = true));
    await client.snapshot(7, "production");
    expect(released).toBe(false);
    await client.flush();
    await waiting;
    expect(released).toBe(true);
  } finally {
    await client.stop();
    await wal.close();
  }
});

test("callers past the segment limit are released by the background compaction of partitions each short of compactRows and compactAgeMs", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "storage-client-"));
  dirs.push(dataDir);
  const wal = await WriteAheadLog.open(join(dataDir, "wal"));
  const tuning = { ...quiet, compactRows: 1000, compactBacklogRows: 2 };
  const client = await StorageClient.start(dataDir, join(dataDir, "wal"), tuning, () => {}, 1 << 30, 4);
  try {
    for (const [environment, rows] of [["a", 3], ["b", 2]] as const) {
      const [head, body] = encodeBatchRecord(acceptedBatchOf(projectId, 7, environment, Array.from({ length: rows }, () => storedEvent())));
      client.add(head, body, await wal.append([head, body]));
    }
    await client.seal();
    await client.snapshot(7, "a");
    let released = false;
    const waiting = client.backlogWithinLimit().then(() => (released = true));
    await client.snapshot(7, "a");
    expect(released).toBe(false);
    // No flush: only the background tick can bring the 5 waiting rows under the limit.
    await waiting;
    const [a, b] = [await client.snapshot(7, "a"), await client.snapshot(7, "b")];
    expect([a.parts.map((part) => part.rows), a.segments, b.parts, b.segments.map((segment) => segment.rows)]).toEqual([[3], [], [], [2]]);
  } finally {
    await client.stop();
    await wal.close();
  }
});
