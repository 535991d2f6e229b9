import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromIPC } from "apache-arrow";
import { StorageClient, workerRestartsMax, type StorageClientOptions } from "../../storage/storage-client.ts";
import { defaultStorageTuning, quarantineDir, quarantinePath, type PartitionSnapshot } from "../../storage/event-store.ts";
import { vectorValues } from "../../storage/arrow-vectors.ts";
import { WriteAheadLog, type WalPosition } from "../../storage/wal.ts";
import { encodeBatchRecord, type StoredEvent } from "../../storage/event-record.ts";
import { acceptedBatchOf, storedEvent } from "./fixtures.ts";
import { threadsUsage } from "../../bench/process-usage.ts";

const dirs: string[] = [];
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }); });

const projectId = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const quiet = { ...defaultStorageTuning, sealRows: 1_000_000, sealAgeMs: 3_600_000 };
/**
 * A client over a fresh data directory and its WAL; `ingest` appends a record of `events` to
 * the WAL and hands it to the client, as capture does; `close` stops the client and closes the WAL.
 */
async function openClient(options: Partial<StorageClientOptions> = {}, { quarantineBlocked = false } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "storage-client-"));
  dirs.push(dataDir);
  // A file where the quarantine directory goes: a record the worker cannot read cannot be set aside either.
  if (quarantineBlocked) writeFileSync(join(dataDir, quarantineDir), "");
  const wal = await WriteAheadLog.open(join(dataDir, "wal"));
  const client = await StorageClient.start({ dataDir, walDir: join(dataDir, "wal"), tuning: quiet, onSealed: () => {}, durableHead: () => wal.head(), ...options });
  const ingest = async (events: StoredEvent[], environment = "production") => {
    const record = encodeBatchRecord(acceptedBatchOf(projectId, 7, environment, events));
    client.add(...record, await wal.append(record));
  };
  const close = async () => {
    await client.stop();
    await wal.close();
  };
  return { dataDir, wal, client, ingest, close };
}

/** A caller waiting for the backlog to come within its limits, and whether it has been let go yet. */
function backlogWaiter(client: StorageClient) {
  let released = false;
  const waiting = client.backlogWithinLimit().then(() => (released = true));
  return { waiting, released: () => released };
}

test("a record the worker cannot buffer is set aside in quarantine/; the worker lives on and stores the records around it", async () => {
  const { dataDir, wal, client, ingest, close } = await openClient();
  try {
    const before = storedEvent();
    const after = storedEvent();
    await ingest([before]);
    const unreadable = encodeBatchRecord({ ...acceptedBatchOf(projectId, 7, "production", [storedEvent()]), body: new TextEncoder().encode("not json") });
    const position = await wal.append(unreadable);
    client.add(...unreadable, position);
    await ingest([after]);
    const snapshot = await client.snapshot(7, "production");
    expect(vectorValues(tableFromIPC(snapshot.buffered!).getChild("uuid")!)).toEqual([before.uuid, after.uuid]);
    expect([client.problem(), readdirSync(join(dataDir, quarantineDir))]).toEqual([null, [quarantinePath(position).slice(quarantineDir.length + 1)]]);
  } finally {
    await close();
  }
});

test("past its backlog limit the client makes callers wait until the worker has taken the records", async () => {
  const { wal, client, close } = await openClient({ backlogBytesMax: 1 });
  try {
    await client.backlogWithinLimit();
    const [head, body] = encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [storedEvent(), storedEvent()]));
    const position = await wal.append([head, body]);
    client.add(head, body, position);
    // The records moved to the worker: the caller's buffers are detached.
    expect([head.byteLength, body.byteLength]).toEqual([0, 0]);
    const caller = backlogWaiter(client);
    // The worker's answer cannot arrive before this turn of the event loop ends.
    expect(caller.released()).toBe(false);
    await caller.waiting;
    expect(caller.released()).toBe(true);
    await client.backlogWithinLimit();
  } finally {
    await close();
  }
});

test("past its limit of rows waiting in segments the client makes callers wait until compaction catches up", async () => {
  const { client, ingest, close } = await openClient({ segmentRowsMax: 2 });
  try {
    await ingest([storedEvent(), storedEvent(), storedEvent()]);
    await client.seal();
    // Replies come in order: once a later call has answered, the count after the seal is known.
    await client.snapshot(7, "production");
    const caller = backlogWaiter(client);
    await client.snapshot(7, "production");
    expect(caller.released()).toBe(false);
    await client.flush();
    await caller.waiting;
    expect(caller.released()).toBe(true);
  } finally {
    await close();
  }
});

test("callers past the segment limit are released by the background compaction of partitions each short of compactRows and compactAgeMs", async () => {
  const { client, ingest, close } = await openClient({ tuning: { ...quiet, compactRows: 1000, compactBacklogRows: 2 }, segmentRowsMax: 4 });
  try {
    for (const [environment, rows] of [["a", 3], ["b", 2]] as const) await ingest(Array.from({ length: rows }, () => storedEvent()), environment);
    await client.seal();
    await client.snapshot(7, "a");
    const caller = backlogWaiter(client);
    await client.snapshot(7, "a");
    expect(caller.released()).toBe(false);
    // No flush: only the background tick can bring the 5 waiting rows under the limit.
    await caller.waiting;
    const [a, b] = [await client.snapshot(7, "a"), await client.snapshot(7, "b")];
    expect([a.parts.map((part) => part.rows), a.segments, b.parts, b.segments.map((segment) => segment.rows)]).toEqual([[3], [], [], [2]]);
  } finally {
    await close();
  }
});

/**
 * A record the worker cannot read; with the quarantine directory blocked (openClient) it cannot
 * set it aside either, so it throws, uncaught, and the worker dies (a bug and a fault stand in for it).
 */
function poisonRecord(): [Uint8Array, Uint8Array] {
  const [head, body] = encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [storedEvent()]));
  head[0] = 99;
  return [head, body];
}

const blocked = { quarantineBlocked: true };

/** Why the worker fails on a poison record ending at `position` in `dataDir`'s store. */
const poisonFailure = (dataDir: string, position: WalPosition) =>
  `the WAL record ending at ${String(position.file).padStart(16, "0")}:${position.offset} cannot be stored (WAL record format 99 is not known (expected 4 or 3)), ` +
  `nor kept in quarantine: EEXIST: file already exists, mkdir '${join(dataDir, quarantineDir)}'`;
const failure = (dataDir: string, position: WalPosition) => `storage worker failed: ${poisonFailure(dataDir, position)}`;

/** How a call ended: "answered", or the message it failed with. */
const message = (call: Promise<unknown>) => call.then(() => "answered", (error: Error) => error.message);

const bufferedUuids = (snapshot: PartitionSnapshot) => (snapshot.buffered ? vectorValues(tableFromIPC(snapshot.buffered).getChild("uuid")!) : []);

test("a worker that dies is replaced: it replays the WAL's durable records, takes the records added meanwhile once, and calls made meanwhile wait for it", async () => {
  const { dataDir, wal, client, ingest, close } = await openClient({}, blocked);
  try {
    const events = Array.from({ length: 4 }, () => storedEvent());
    await ingest(events.slice(0, 2));
    // Durable, but not handed over yet when the worker dies (the request's turn to add it comes later).
    const second = encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [events[2]!]));
    const secondPosition = await wal.append(second);

    client.add(...poisonRecord(), wal.head());
    const underWay = client.snapshot(7, "production");
    expect(await message(underWay)).toBe(failure(dataDir, secondPosition));
    client.add(...second, secondPosition);
    await ingest([events[3]!]);

    expect(bufferedUuids(await client.snapshot(7, "production"))).toEqual(events.map((event) => event.uuid));
    expect(client.problem()).toBeNull();
    await client.backlogWithinLimit();
  } finally {
    await close();
  }
});

test("a replacement worker replays the WAL only up to the durable head: a record written past it, its fsync not done yet, comes in through its own add", async () => {
  // The WAL's durable head, as the replacement is told it: held back to play a write whose fsync is still under way.
  let heldHead: WalPosition | null = null;
  const { dataDir, wal, client, ingest, close } = await openClient({ durableHead: () => heldHead! }, blocked);
  try {
    const events = Array.from({ length: 3 }, () => storedEvent());
    await ingest(events.slice(0, 2));
    heldHead = wal.head();
    const unsynced = encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [events[2]!]));
    const unsyncedPosition = await wal.append(unsynced);

    client.add(...poisonRecord(), wal.head());
    expect(await message(client.snapshot(7, "production"))).toBe(failure(dataDir, unsyncedPosition));
    // The record is in the WAL's file, but the replacement stopped at the durable head.
    expect(bufferedUuids(await client.snapshot(7, "production"))).toEqual(events.slice(0, 2).map((event) => event.uuid));
    client.add(...unsynced, unsyncedPosition);
    expect(bufferedUuids(await client.snapshot(7, "production"))).toEqual(events.map((event) => event.uuid));
  } finally {
    await close();
  }
});

test(`past ${workerRestartsMax} restarts, or when a restart fails, the client gives up: calls fail, nobody waits for the backlog, and the WAL keeps the records`, async () => {
  const { dataDir, wal, client, ingest, close } = await openClient({ backlogBytesMax: 1 }, blocked);
  try {
    for (let restart = 1; restart <= workerRestartsMax; restart++) {
      client.add(...poisonRecord(), wal.head());
      expect(await message(client.snapshot(7, "production"))).toBe(failure(dataDir, wal.head()));
      // The next call waits for the replacement.
      expect(bufferedUuids(await client.snapshot(7, "production"))).toEqual([]);
    }
    client.add(...poisonRecord(), wal.head());
    expect(await message(client.snapshot(7, "production"))).toBe(failure(dataDir, wal.head()));
    const givenUp = `${failure(dataDir, wal.head())} (restarted ${workerRestartsMax} times within 10 minutes; restart the service)`;
    expect([await message(client.snapshot(7, "production")), client.problem()]).toEqual([givenUp, givenUp]);

    await ingest([storedEvent()]);
    await client.backlogWithinLimit();
    expect([...wal.records()]).toHaveLength(1);
  } finally {
    await close();
  }

  // A restart that cannot open the store (here: a record in the WAL it cannot read) gives up at once.
  const poisoned = await openClient({}, blocked);
  const failing = poisoned.client;
  try {
    const poison = poisonRecord();
    const position = await poisoned.wal.append(poison);
    failing.add(...poison, position);
    expect(await message(failing.snapshot(7, "production"))).toBe(failure(poisoned.dataDir, position));
    const restartFailed = `${failure(poisoned.dataDir, position)}; its restart failed: storage worker could not open ${poisoned.dataDir}: ${poisonFailure(poisoned.dataDir, position)}`;
    expect([await message(failing.snapshot(7, "production")), failing.problem()]).toEqual([restartFailed, restartFailed]);
  } finally {
    await poisoned.close();
  }
});

test("a worker that dies while stopping ends the stop with its failure instead of leaving it waiting", async () => {
  const { dataDir, wal, client } = await openClient({}, blocked);
  try {
    client.add(...poisonRecord(), wal.head());
    expect(await message(client.stop())).toBe(failure(dataDir, wal.head()));
    expect(await message(client.stop())).toBe(failure(dataDir, wal.head()));
  } finally {
    await wal.close();
  }
});

test("a stop while a dead worker is being replaced waits for the replacement to settle (here its open fails)", async () => {
  const { dataDir, wal, client } = await openClient({}, blocked);
  try {
    // Durable in the WAL: the replacement replays it and fails to open, which the client reports.
    const poison = poisonRecord();
    const position = await wal.append(poison);
    client.add(...poison, position);
    expect(await message(client.snapshot(7, "production"))).toBe(failure(dataDir, position));
    // The worker is gone and its replacement is being opened.
    expect(await message(client.stop())).toBe("answered");
    expect(client.problem()).toBe(`${failure(dataDir, position)}; its restart failed: storage worker could not open ${dataDir}: ${poisonFailure(dataDir, position)}`);
  } finally {
    await wal.close();
  }
});

/** This process's threads whose names end with the label. */
const threadsLabelled = (label: string) => [...threadsUsage(process.pid).values()].map((thread) => thread.name).filter((name) => name.endsWith(` ${label}`));

test("a stop while a dead worker is being replaced waits for the replacement, and when it opens, ends it and its compaction thread", async () => {
  const { dataDir, wal, client } = await openClient({ threadLabel: "r1" }, blocked);
  try {
    // Not in the WAL: the worker dies on it, and the replacement, which replays the WAL, opens.
    client.add(...poisonRecord(), wal.head());
    expect(await message(client.snapshot(7, "production"))).toBe(failure(dataDir, wal.head()));
    expect(await message(client.stop())).toBe("answered");
    expect(threadsLabelled("r1")).toEqual([]);
    expect(await message(client.snapshot(7, "production"))).toBe("storage worker is stopped");
  } finally {
    await wal.close();
  }
});

test("the storage worker and its compaction thread are named after the thread label, as ps -L and top -H show them, and a stop ends both before it resolves", async () => {
  const { client, ingest, close } = await openClient({ threadLabel: "t9" });
  // A new thread starts with its creator's name and takes its own once it runs; a flush
  // compacts, so the compaction thread has run by then.
  await ingest([storedEvent()]);
  await client.flush();
  const names = threadsLabelled("t9");
  expect(["storage t9", "compaction t9"].filter((name) => names.includes(name))).toEqual(["storage t9", "compaction t9"]);
  await close();
  expect(threadsLabelled("t9")).toEqual([]);
});
