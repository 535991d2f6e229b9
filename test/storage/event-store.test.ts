import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { tableFromIPC } from "apache-arrow";
import { WriteAheadLog } from "../../storage/wal.ts";
import { EventStore, defaultStorageTuning, quarantineDir, quarantinePath, type StorageTuning } from "../../storage/event-store.ts";
import { recentUuidsOnDisk } from "../../storage/recent-uuids.ts";
import { partsPerMerge, splitPartLevel } from "../../storage/partition-compaction.ts";
import { encodeBatchRecord, readBatchRecord, type StoredEvent } from "../../storage/event-record.ts";
import { ManifestUncertainError, readManifest } from "../../storage/manifest.ts";
import type { WalPosition } from "../../storage/wal.ts";
import { EventBuffer } from "../../storage/event-buffer.ts";
import { acceptedBatchOf, storedEvent } from "./fixtures.ts";

const dirs: string[] = [];
const openLogs: WriteAheadLog[] = [];
afterEach(async () => {
  for (const wal of openLogs.splice(0)) await wal.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const projectId = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const quiet: StorageTuning = { ...defaultStorageTuning, sealRows: 1_000_000, sealAgeMs: 3_600_000 };

async function openStore(dir?: string, tuning = quiet) {
  const dataDir = dir ?? mkdtempSync(join(tmpdir(), "store-test-"));
  if (!dir) dirs.push(dataDir);
  const wal = await WriteAheadLog.open(join(dataDir, "wal"));
  openLogs.push(wal);
  return { dataDir, wal, store: EventStore.open(dataDir, join(dataDir, "wal"), (position) => wal.truncateUpTo(position), tuning) };
}

/** Appends like the capture path does: WAL first, then the store. */
async function ingest(wal: WriteAheadLog, store: EventStore, events: StoredEvent[], environment = "production") {
  const parts = encodeBatchRecord(acceptedBatchOf(projectId, 7, environment, events));
  store.add(readBatchRecord(...parts), await wal.append(parts));
}

const uuids = (rows: StoredEvent[]) => rows.map((row) => row.uuid);

/** Appends a record's parts like the storage worker takes them: WAL first, then the store as bytes. */
async function ingestParts(wal: WriteAheadLog, store: EventStore, parts: [Uint8Array, Uint8Array]): Promise<WalPosition> {
  const position = await wal.append(parts);
  store.addWalRecord(parts[0], parts[1], position);
  return position;
}

/**
 * A record only a bug could log: its first event is fine (and brings a new event name and
 * property key), its second has `properties: null`, which buffering cannot take.
 */
function recordFailingHalfway(environment = "production"): { parts: [Uint8Array, Uint8Array]; first: StoredEvent } {
  const first = storedEvent({ event: "only_in_the_bad_record", properties: { only_in_the_bad_record: 1, plan: "never" } });
  const accepted = acceptedBatchOf(projectId, 7, environment, [first, storedEvent()]);
  const body = JSON.parse(new TextDecoder().decode(accepted.body)) as { batch: Record<string, unknown>[] };
  body.batch[1]!.properties = null;
  return { parts: encodeBatchRecord({ ...accepted, body: new TextEncoder().encode(JSON.stringify(body)) }), first };
}

/** The buffered rows' column names and event names (what a query's snapshot sees). */
function bufferedShape(store: EventStore): { columns: string[]; events: string[] } {
  const table = tableFromIPC(store.snapshot(7, "production").buffered!);
  return { columns: table.schema.fields.map((field) => field.name), events: store.scan(7, "production").map((event) => event.event) };
}

/**
 * An injected failure at the file layer: every write and truncate of the store's manifest log
 * fails from now on (its descriptor is one no file has). Returns what puts the real one back.
 */
function breakManifestLog(store: EventStore): () => void {
  const manifests = (store as unknown as { manifests: { fd: number } }).manifests;
  const logFd = manifests.fd;
  manifests.fd = 1_000_000;
  return () => (manifests.fd = logFd);
}

describe("event store", () => {
  test("seal writes one seal file with a segment per project environment, records them in the manifest and truncates the WAL", async () => {
    const { dataDir, wal, store } = await openStore();
    const production = [storedEvent({ properties: { plan: "pro" } }), storedEvent({ properties: { items: 2 } })];
    const staging = [storedEvent({ event: "staged" })];
    await ingest(wal, store, production);
    await ingest(wal, store, staging, "staging");
    const end = wal.head();
    await store.seal();
    const manifest = readManifest(dataDir);
    const fileBytes = statSync(join(dataDir, "segments", "seal-00000001.arrows")).size;
    const [first, second] = manifest.segments;
    expect(manifest.segments).toEqual([
      { file: "segments/seal-00000001.arrows", offset: 0, bytes: first!.bytes, projectId, dataId: 7, environment: "production", rows: 2, sealedAt: expect.any(Number) },
      { file: "segments/seal-00000001.arrows", offset: first!.bytes, bytes: fileBytes - first!.bytes, projectId, dataId: 7, environment: "staging", rows: 1, sealedAt: second!.sealedAt },
    ]);
    expect(manifest.walSealedThrough).toEqual(end);
    expect([...wal.records()]).toEqual([]);
    expect(store.scan(7, "production")).toEqual(production);
    expect(store.scan(7, "staging")).toEqual(staging);

    // The seal file goes once no segment in it is live.
    await store.compact(7, "production");
    expect(readdirSync(join(dataDir, "segments"))).toEqual(["seal-00000001.arrows"]);
    expect(store.scan(7, "staging")).toEqual(staging);
    await store.compact(7, "staging");
    expect(readdirSync(join(dataDir, "segments"))).toEqual([]);
    expect(store.scan(7, "staging")).toEqual(staging);
    await wal.close();
  });

  test("compaction: a zstd Parquet part per UTC day from the new rows, deduplicated (first arrival wins), sorted by person then time", async () => {
    const { dataDir, wal, store } = await openStore();
    const day1 = Date.parse("2026-11-19T23:59:59.000Z");
    const day2 = Date.parse("2026-11-20T00:00:00.000Z");
    const a = storedEvent({ distinct_id: "b", timestamp: day1, properties: { n: 1 } });
    const b = storedEvent({ distinct_id: "a", timestamp: day1 - 5000 });
    const c = storedEvent({ distinct_id: "a", timestamp: day2 });
    await ingest(wal, store, [a, b]);
    await store.seal();
    await ingest(wal, store, [c, { ...a, properties: { n: 2 } }]);
    await store.seal();
    await store.compact(7, "production");
    const manifest = readManifest(dataDir);
    expect(manifest.segments).toEqual([]);
    expect(manifest.parts.map((part) => [part.day, part.rows, part.file])).toEqual([
      ["2026-11-19", 2, "parquet/7/production/2026-11-19/part-00000003.parquet"],
      ["2026-11-20", 1, "parquet/7/production/2026-11-20/part-00000004.parquet"],
    ]);
    expect(readdirSync(join(dataDir, "segments"))).toEqual([]);
    expect(store.scan(7, "production")).toEqual([b, a, c]);

    // A later compaction adds a part for the new rows only; the existing part is not rewritten.
    const d = storedEvent({ distinct_id: "0-first", timestamp: day1 - 1000 });
    await ingest(wal, store, [d]);
    await store.flush();
    expect(readManifest(dataDir).parts.map((part) => [part.day, part.rows, part.file])).toEqual([
      ["2026-11-19", 2, "parquet/7/production/2026-11-19/part-00000003.parquet"],
      ["2026-11-20", 1, "parquet/7/production/2026-11-20/part-00000004.parquet"],
      ["2026-11-19", 1, "parquet/7/production/2026-11-19/part-00000006.parquet"],
    ]);
    expect(uuids(store.scan(7, "production"))).toEqual(uuids([b, a, c, d]));
  });

  test(`${partsPerMerge} parts of one level and day merge into one deduplicated, sorted part of the next level`, async () => {
    const { dataDir, wal, store } = await openStore();
    const day = Date.parse("2026-11-19T12:00:00.000Z");
    const rows: StoredEvent[] = [];
    for (let part = 0; part < partsPerMerge; part++) {
      const row = storedEvent({ distinct_id: `user-${partsPerMerge - part}`, person_index: partsPerMerge - part, timestamp: day + part });
      rows.push(row);
      await ingest(wal, store, part === partsPerMerge - 1 ? [row, rows[0]!] : [row]);
      await store.flush();
      if (part < partsPerMerge - 1) expect(readManifest(dataDir).parts.map((p) => [p.level, p.rows])).toEqual(rows.map(() => [0, 1]));
    }
    const parts = readManifest(dataDir).parts;
    expect(parts.map((part) => [part.day, part.level, part.rows])).toEqual([["2026-11-19", 1, partsPerMerge]]);
    expect(readdirSync(join(dataDir, "parquet", "7", "production", "2026-11-19"))).toEqual([parts[0]!.file.split("/").at(-1)!]);
    expect(uuids(store.scan(7, "production"))).toEqual(uuids([...rows].reverse()));
  });

  /** Level-0 parts of `rowsPerPart` rows each, one compaction per part, with partRowsMax 20. */
  async function compactParts(rowsPerPart: number[]) {
    const { dataDir, wal, store } = await openStore(undefined, { ...quiet, partRowsMax: 20 });
    const day = Date.parse("2026-11-19T12:00:00.000Z");
    const levelsAndRows: number[][][] = [];
    for (const rows of rowsPerPart) {
      await ingest(wal, store, Array.from({ length: rows }, (_, row) => storedEvent({ timestamp: day + row })));
      await store.flush();
      levelsAndRows.push(readManifest(dataDir).parts.map((part) => [part.level, part.rows]));
    }
    return { levelsAndRows, stored: store.scan(7, "production").length };
  }

  test("parts bigger than compactRows merge once they hold partRowsMax rows together: as many as fit, the rest wait", async () => {
    // Eight parts of 6 rows would pass 20: three merge as soon as a fourth arrives.
    const { levelsAndRows, stored } = await compactParts([6, 6, 6, 6, 6, 6, 6]);
    expect(levelsAndRows).toEqual([
      [[0, 6]],
      [[0, 6], [0, 6]],
      [[0, 6], [0, 6], [0, 6]],
      [[0, 6], [1, 18]],
      [[0, 6], [1, 18], [0, 6]],
      [[0, 6], [1, 18], [0, 6], [0, 6]],
      [[1, 18], [0, 6], [1, 18]],
    ]);
    expect(stored).toBe(42);
  });

  test("a merge takes at most partRowsMax rows, and parts of more than half of it never merge again", async () => {
    // 2 + 11 + 2 + 2 + 2 + 2 + 2 + 2 + 2: the eleven-row part stays; the eight small ones merge.
    const { levelsAndRows, stored } = await compactParts([2, 11, 2, 2, 2, 2, 2, 2, 2, 9, 9, 3]);
    expect(levelsAndRows.at(8)).toEqual([[0, 11], [1, 16]]);
    // 9 + 9 + 3 pass 20: the two nines merge (18 rows, at most 20), the three waits.
    expect(levelsAndRows.at(-1)).toEqual([[0, 11], [1, 16], [0, 3], [1, 18]]);
    expect(stored).toBe(48);
  });

  /** `count` events of one day, each setting the keys `keys`. */
  const eventsWith = (count: number, keys: string[], day = Date.parse("2026-11-19T12:00:00.000Z")) =>
    Array.from({ length: count }, (_, row) => storedEvent({ timestamp: day + row, properties: Object.fromEntries(keys.map((key) => [key, row])) }));
  const partsOf = (dataDir: string) => readManifest(dataDir).parts.map(({ level, rows }) => [level, rows]);
  /** The files one compaction of `events` writes with the default tuning: its segment's bytes, and its part's bytes as Arrow buffers. */
  async function sizesOf(events: StoredEvent[]) {
    const { dataDir, wal, store } = await openStore();
    await ingest(wal, store, events);
    await store.seal();
    const segmentBytes = readManifest(dataDir).segments[0]!.bytes;
    await store.flush();
    return { segmentBytes, arrowBytes: readManifest(dataDir).parts[0]!.arrowBytes };
  }

  test("a merge takes parts of at most partBytesMax bytes together, and parts of more than half of it merge no more", async () => {
    // Four parts of b bytes pass 3.5 b: three merge and one waits.
    const { arrowBytes } = await sizesOf(eventsWith(2, ["a", "b", "c"]));
    const { dataDir, wal, store } = await openStore(undefined, { ...quiet, partBytesMax: Math.floor(3.5 * arrowBytes) });
    const seen: number[][][] = [];
    for (let part = 0; part < 5; part++) {
      await ingest(wal, store, eventsWith(2, ["a", "b", "c"]));
      await store.flush();
      seen.push(partsOf(dataDir));
    }
    expect(readManifest(dataDir).parts[0]!.arrowBytes).toBe(arrowBytes);
    expect(seen).toEqual([[[0, 2]], [[0, 2], [0, 2]], [[0, 2], [0, 2], [0, 2]], [[0, 2], [1, 6]], [[0, 2], [1, 6], [0, 2]]]);
    expect(store.scan(7, "production")).toHaveLength(10);
  });

  test("parts that fill partBytesMax exactly merge into one part, not split", async () => {
    const { arrowBytes } = await sizesOf(eventsWith(2, ["a", "b", "c"]));
    const { dataDir, wal, store } = await openStore(undefined, { ...quiet, partBytesMax: 4 * arrowBytes });
    for (let part = 0; part < 4; part++) {
      await ingest(wal, store, eventsWith(2, ["a", "b", "c"]));
      await store.flush();
    }
    expect(partsOf(dataDir)).toEqual([[1, 8]]);
  });

  test("a key stored as a number in one segment and as one long repeated string in another stays within partBytesMax once written as JSON per row", async () => {
    const partBytesMax = 4 * 1024 * 1024;
    const { dataDir, wal, store } = await openStore(undefined, { ...quiet, partBytesMax });
    const day = Date.parse("2026-11-19T12:00:00.000Z");
    const number = storedEvent({ timestamp: day, properties: { note: 1 } });
    const long = "x".repeat(20_000);
    const strings = Array.from({ length: 1000 }, (_, row) => storedEvent({ timestamp: day + row + 1, properties: { note: long } }));
    await ingest(wal, store, [number]);
    await store.seal();
    await ingest(wal, store, strings);
    await store.flush();
    const parts = readManifest(dataDir).parts;
    // 1,001 rows of about 20 KB of JSON each: about 20 MB, in parts of at most 4 MiB.
    expect(parts.length).toBeGreaterThanOrEqual(5);
    expect(parts.filter((part) => part.arrowBytes > partBytesMax)).toEqual([]);
    expect(parts.reduce((sum, part) => sum + part.rows, 0)).toBe(1001);
    const stored = new Map(store.scan(7, "production").map((event) => [event.uuid, event]));
    expect([number, ...strings].filter((event) => !Bun.deepEquals(stored.get(event.uuid), event))).toEqual([]);
  });

  test("rows that would take more than partBytesMax in one part are written as several within it, at splitPartLevel, which merge no more", async () => {
    const events = eventsWith(1000, ["a", "b", "c"]);
    const { arrowBytes } = await sizesOf(events);
    const partBytesMax = Math.floor(arrowBytes / 3);
    const { dataDir, wal, store } = await openStore(undefined, { ...quiet, partBytesMax });
    await ingest(wal, store, events);
    await store.flush();
    const parts = readManifest(dataDir).parts;
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.filter((part) => part.level !== splitPartLevel || part.arrowBytes > partBytesMax)).toEqual([]);
    expect(parts.reduce((sum, part) => sum + part.rows, 0)).toBe(1000);
    // Small parts made later merge with each other, not with the split ones.
    for (let part = 0; part < partsPerMerge; part++) {
      await ingest(wal, store, eventsWith(2, ["a"]));
      await store.flush();
    }
    expect(partsOf(dataDir).slice(parts.length)).toEqual([[1, 2 * partsPerMerge]]);
    expect(uuids(store.scan(7, "production")).slice(0, 1000).sort()).toEqual(uuids(events).sort());
  });

  test("a compaction takes the oldest segments that take at most partBytesMax together, at least one; the rest wait for the next", async () => {
    const { segmentBytes } = await sizesOf(eventsWith(2, ["a", "b"]));
    const { dataDir, wal, store } = await openStore(undefined, { ...quiet, partBytesMax: 2 * segmentBytes });
    for (const events of [eventsWith(2, ["a", "b"]), eventsWith(2, ["a", "b"]), eventsWith(2, ["a", "b"]), eventsWith(50, ["a", "b", "c"])]) {
      await ingest(wal, store, events);
      await store.seal();
    }
    const segments = () => readManifest(dataDir).segments.map((segment) => segment.rows);
    expect(readManifest(dataDir).segments.map((segment) => segment.bytes).slice(0, 3)).toEqual([segmentBytes, segmentBytes, segmentBytes]);
    await store.compact(7, "production");
    expect([segments(), partsOf(dataDir)]).toEqual([[2, 50], [[0, 4]]]);
    await store.compact(7, "production");
    expect(segments()).toEqual([50]);
    // A segment past the bound alone is taken alone.
    await store.compact(7, "production");
    expect(segments()).toEqual([]);
    expect(store.scan(7, "production")).toHaveLength(56);
  });

  test("events whose one key cycles through 500 names are stored once each, in parts within partBytesMax", async () => {
    const tuning = { ...quiet, sealCells: 20_000, partBytesMax: 400_000, compactRows: 100 };
    const { dataDir, wal, store } = await openStore(undefined, tuning);
    const events = Array.from({ length: 3000 }, (_, i) => storedEvent({ properties: { [`k${i % 500}`]: i } }));
    for (let start = 0; start < events.length; start += 100) {
      await ingest(wal, store, events.slice(start, start + 100));
      await store.stop();
      await store.flush();
    }
    const parts = readManifest(dataDir).parts;
    expect(parts.filter((part) => part.arrowBytes > tuning.partBytesMax)).toEqual([]);
    const stored = store.scan(7, "production");
    const byUuid = new Map(stored.map((event) => [event.uuid, event]));
    expect([stored.length, byUuid.size]).toEqual([3000, 3000]);
    expect(events.filter((event) => !Bun.deepEquals(byUuid.get(event.uuid), event))).toEqual([]);
  });

  test("DuckDB reads the compacted Parquet and sees the same rows", async () => {
    const { dataDir, wal, store } = await openStore();
    const events = Array.from({ length: 50 }, (_, i) =>
      storedEvent({ distinct_id: `user-${i % 7}`, event: i % 2 ? "signup" : "pageview", properties: { price: i, plan: i % 3 ? "pro" : "free", beta: i % 2 === 0 } }),
    );
    await ingest(wal, store, events);
    await store.flush();
    const files = readManifest(dataDir).parts.map((part) => join(dataDir, part.file));
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    const result = await duck.runAndReadAll(
      `SELECT uuid, event, epoch_ms(timestamp) AS ts, distinct_id, p_price, p_plan, p_beta, typeof(timestamp) AS ts_type
       FROM read_parquet([${files.map((file) => `'${file}'`).join(",")}]) ORDER BY ts`,
    );
    expect(result.getRowObjectsJson() as unknown).toEqual(
      [...events].sort((x, y) => x.timestamp - y.timestamp).map((event) => ({
        uuid: event.uuid,
        event: event.event,
        ts: String(event.timestamp),
        distinct_id: event.distinct_id,
        p_price: event.properties.price,
        p_plan: event.properties.plan,
        p_beta: event.properties.beta,
        ts_type: "TIMESTAMP WITH TIME ZONE",
      })),
    );
    await wal.close();
  });

  test("a WAL record that cannot be buffered is kept whole in quarantine/, none of its events buffered, and storage goes on past it", async () => {
    const { dataDir, wal, store } = await openStore();
    const before = [storedEvent({ properties: { plan: "pro" } })];
    const after = [storedEvent({ properties: { plan: "free" } })];
    await ingestParts(wal, store, encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", before)));
    const shapeBefore = bufferedShape(store);
    const bad = recordFailingHalfway();
    const badPosition = await ingestParts(wal, store, bad.parts);
    // Its first event went into the buffers before the second failed, and came out again: its
    // event name, its new property column and its row.
    expect(bufferedShape(store)).toEqual(shapeBefore);
    // The first record of a partition: no buffer is left behind for it.
    const badElsewhere = await ingestParts(wal, store, recordFailingHalfway("staging").parts);
    const afterPosition = await ingestParts(wal, store, encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", after)));

    expect(store.scan(7, "production")).toEqual([...before, ...after]);
    expect(store.partitions()).toEqual([{ projectId, dataId: 7, environment: "production" }]);
    expect(readdirSync(join(dataDir, quarantineDir)).sort()).toEqual(
      [badPosition, badElsewhere].map((position) => quarantinePath(position).slice(quarantineDir.length + 1)).sort(),
    );
    const kept = readFileSync(join(dataDir, quarantinePath(badPosition)));
    expect(new Uint8Array(kept)).toEqual(new Uint8Array(Buffer.concat(bad.parts)));
    expect(readBatchRecord(kept).batch[0]!.uuid).toBe(bad.first.uuid);

    // The seal covers the WAL past the bad record: a restart replays nothing, stores nothing twice.
    await store.flush();
    expect(readManifest(dataDir).walSealedThrough).toEqual(afterPosition);
    expect(store.liveFiles().parts.map((part) => [part.environment, part.rows])).toEqual([["production", 2]]);
    await wal.close();
    const second = await openStore(dataDir);
    expect(second.store.scan(7, "production")).toEqual([...before, ...after]);
    expect(second.store.problem()).toBeNull();
  });

  test("a record that fails after turning a number column mixed and meeting a new word leaves the buffers as they were: later records keep their types and words", async () => {
    const { wal, store } = await openStore();
    const before = [storedEvent({ event: "signup", properties: { amount: 1 } })];
    const after = [storedEvent({ event: "purchase", properties: { amount: 2 } })];
    await ingestParts(wal, store, encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", before)));
    const shapeBefore = bufferedShape(store);
    const accepted = acceptedBatchOf(projectId, 7, "production", [storedEvent({ properties: { amount: "text" } }), storedEvent({ event: "never_stored" })]);
    const body = JSON.parse(new TextDecoder().decode(accepted.body)) as { batch: Record<string, unknown>[] };
    // Fails where the event name is written: after the first event made `amount` mixed.
    body.batch[1]!.event = null;
    await ingestParts(wal, store, encodeBatchRecord({ ...accepted, body: new TextEncoder().encode(JSON.stringify(body)) }));
    expect(bufferedShape(store)).toEqual(shapeBefore);
    await ingestParts(wal, store, encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", after)));
    const table = tableFromIPC(store.snapshot(7, "production").buffered!);
    expect([String(table.getChild("p_amount")?.type), table.getChild("pj_amount")]).toEqual(["Float64", null]);
    expect(store.scan(7, "production")).toEqual([...before, ...after]);
    await store.flush();
    expect(store.scan(7, "production")).toEqual([...before, ...after]);
    await wal.close();
  });

  test("a record set aside with nothing else buffered still leaves the WAL: the manifest records it sealed, and a restart does not set it aside again", async () => {
    const { dataDir, wal, store } = await openStore();
    const badPosition = await ingestParts(wal, store, recordFailingHalfway().parts);
    // The seal it asked for runs first; this one finds nothing more to do.
    await store.seal();
    expect(readManifest(dataDir).walSealedThrough).toEqual(badPosition);
    expect([...wal.records()]).toEqual([]);
    expect(store.liveFiles()).toEqual({ segments: [], parts: [] });
    // An operator moved the record away, and a crash had left half a copy of another behind.
    rmSync(join(dataDir, quarantineDir), { recursive: true });
    mkdirSync(join(dataDir, quarantineDir));
    writeFileSync(join(dataDir, `${quarantinePath(badPosition)}.tmp-1-abc`), "half");
    await wal.close();
    const second = await openStore(dataDir);
    expect(readdirSync(join(dataDir, quarantineDir))).toEqual([]);
    expect(second.store.scan(7, "production")).toEqual([]);
  });

  test("running out of memory while buffering a record is no fault of the record: the error is thrown, nothing is set aside, and a restart stores it", async () => {
    const { dataDir, wal, store } = await openStore();
    const events = [storedEvent(), storedEvent()];
    const parts = encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", events));
    const position = await wal.append(parts);
    const appendRecord = EventBuffer.prototype.appendRecord;
    EventBuffer.prototype.appendRecord = () => {
      throw new RangeError("Out of memory");
    };
    try {
      expect(() => store.addWalRecord(parts[0], parts[1], position)).toThrow(new RangeError("Out of memory"));
    } finally {
      EventBuffer.prototype.appendRecord = appendRecord;
    }
    expect([existsSync(join(dataDir, quarantineDir)), store.scan(7, "production"), readManifest(dataDir).walSealedThrough]).toEqual([false, [], { file: 0, offset: 0 }]);
    await wal.close();
    const second = await openStore(dataDir);
    expect(second.store.scan(7, "production")).toEqual(events);
  });

  test("a restart replays past records that cannot be read or buffered, keeping each in quarantine/; the duplicate index reads past them too", async () => {
    const first = await openStore();
    const stored = [storedEvent(), storedEvent(), storedEvent()];
    await ingestParts(first.wal, first.store, encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [stored[0]!])));
    const bad = recordFailingHalfway();
    const badPosition = await ingestParts(first.wal, first.store, bad.parts);
    await ingestParts(first.wal, first.store, encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [stored[1]!])));
    const unreadable = encodeBatchRecord({ ...acceptedBatchOf(projectId, 7, "production", [storedEvent()]), body: new TextEncoder().encode("{\"batch\": [") });
    const unreadablePosition = await ingestParts(first.wal, first.store, unreadable);
    await ingestParts(first.wal, first.store, encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", [stored[2]!])));
    await first.wal.close();
    rmSync(join(first.dataDir, quarantineDir), { recursive: true });

    const second = await openStore(first.dataDir);
    expect(second.store.scan(7, "production")).toEqual(stored);
    expect(readdirSync(join(first.dataDir, quarantineDir)).sort()).toEqual(
      [badPosition, unreadablePosition].map((position) => quarantinePath(position).slice(quarantineDir.length + 1)).sort(),
    );
    expect(new Uint8Array(readFileSync(join(first.dataDir, quarantinePath(unreadablePosition))))).toEqual(new Uint8Array(Buffer.concat(unreadable)));
    // The bad record's uuids count as taken (it is kept, so a retry is a duplicate); the unreadable one gives none.
    const recent = (await Array.fromAsync(recentUuidsOnDisk(first.dataDir, join(first.dataDir, "wal"), { rowsMax: 0, partsMax: 0 }))).map((entry) => entry.uuid);
    const badUuids = (JSON.parse(new TextDecoder().decode(bad.parts[1])) as { batch: { uuid: string }[] }).batch.map((event) => event.uuid);
    expect(recent).toEqual([stored[0]!.uuid, ...badUuids, stored[1]!.uuid, stored[2]!.uuid]);
  });

  test("restart: unsealed events are replayed from the WAL; sealed ones are not replayed twice", async () => {
    const first = await openStore();
    const sealed = [storedEvent(), storedEvent()];
    const unsealed = [storedEvent()];
    await ingest(first.wal, first.store, sealed);
    await first.store.seal();
    await ingest(first.wal, first.store, unsealed);
    await first.wal.close();

    const second = await openStore(first.dataDir);
    expect(uuids(second.store.scan(7, "production"))).toEqual(uuids([...sealed, ...unsealed]));
    expect((await Array.fromAsync(recentUuidsOnDisk(first.dataDir, join(first.dataDir, "wal"), { rowsMax: 0, partsMax: 0 }))).map((entry) => entry.uuid)).toEqual(uuids([...sealed, ...unsealed]));
    await second.wal.close();
  });

  test("the uuids a restart rebuilds the duplicate index from: the newest parts up to a row bound and a part bound, oldest first, then segments, then the WAL", async () => {
    const { dataDir, wal, store } = await openStore();
    const oldestPart = [storedEvent(), storedEvent()];
    const middlePart = [storedEvent()];
    const newestPart = [storedEvent(), storedEvent(), storedEvent()];
    for (const [events, environment] of [[oldestPart, "a"], [middlePart, "b"], [newestPart, "a"]] as const) {
      await ingest(wal, store, events, environment);
      await store.seal();
      await store.compact(7, environment);
    }
    const sealed = [storedEvent()];
    await ingest(wal, store, sealed);
    await store.seal();
    const unsealed = [storedEvent()];
    await ingest(wal, store, unsealed);
    expect(store.liveFiles().parts.map((part) => part.rows)).toEqual([2, 1, 3]);

    const recent = async (rowsMax: number, partsMax = 3) =>
      (await Array.fromAsync(recentUuidsOnDisk(dataDir, join(dataDir, "wal"), { rowsMax, partsMax }))).map((entry) => entry.uuid);
    expect(await recent(4)).toEqual(uuids([...middlePart, ...newestPart, ...sealed, ...unsealed]));
    expect(await recent(5)).toEqual(uuids([...middlePart, ...newestPart, ...sealed, ...unsealed]));
    expect(await recent(6)).toEqual(uuids([...oldestPart, ...middlePart, ...newestPart, ...sealed, ...unsealed]));
    expect(await recent(6, 2)).toEqual(uuids([...middlePart, ...newestPart, ...sealed, ...unsealed]));
    expect(await recent(6, 1)).toEqual(uuids([...newestPart, ...sealed, ...unsealed]));
    expect(await recent(6, 0)).toEqual(uuids([...sealed, ...unsealed]));
    expect(await recent(2)).toEqual(uuids([...sealed, ...unsealed]));
  });

  test("open replays the WAL up to replayUpTo when given (a restart while ingest goes on) and says how far it replayed", async () => {
    const first = await openStore();
    const [a, b, c] = [[storedEvent()], [storedEvent(), storedEvent()], [storedEvent()]];
    await ingest(first.wal, first.store, a);
    await first.store.seal();
    for (const rows of [b, c]) await ingest(first.wal, first.store, rows);
    // The seal truncated the WAL: it holds b's record and c's.
    const [afterB, afterC] = [...first.wal.records()].map((record) => record.position) as [WalPosition, WalPosition];
    const reopen = (replayUpTo?: WalPosition) => EventStore.open(first.dataDir, join(first.dataDir, "wal"), () => {}, quiet, undefined, replayUpTo);

    const partial = reopen(afterB);
    expect([uuids(partial.scan(7, "production")), partial.replayedThrough()]).toEqual([uuids([...a, ...b]), afterB]);
    const whole = reopen();
    expect([uuids(whole.scan(7, "production")), whole.replayedThrough()]).toEqual([uuids([...a, ...b, ...c]), afterC]);
  });

  test("a crash between writing files and switching the manifest leaves nothing behind and loses nothing", async () => {
    const first = await openStore();
    const events = [storedEvent()];
    await ingest(first.wal, first.store, events);
    await first.wal.close();
    // What a crash mid-seal or mid-compaction can leave: files the manifest does not name.
    const stray = join(first.dataDir, "segments/seal-00000009.arrows");
    const strayPart = join(first.dataDir, "parquet/7/production/2026-11-20/part-00000010.parquet");
    const temporary = join(first.dataDir, "manifest.json.tmp-123-abc");
    for (const path of [stray, strayPart, temporary]) {
      require("node:fs").mkdirSync(require("node:path").dirname(path), { recursive: true });
      writeFileSync(path, "partial");
    }
    const second = await openStore(first.dataDir);
    for (const path of [stray, strayPart, temporary]) expect(existsSync(path)).toBe(false);
    expect(second.store.scan(7, "production")).toEqual(events);
    await second.wal.close();
  });

  test("a seal whose manifest commit failed and could not be cut back keeps its seal file (the change may be on disk); a restart sorts it out", async () => {
    const first = await openStore();
    const events = [storedEvent(), storedEvent()];
    await ingest(first.wal, first.store, events);
    const mend = breakManifestLog(first.store);
    await expect(first.store.seal()).rejects.toThrow(ManifestUncertainError);
    // Had the change reached the disk, the manifest would name this file: it must still be there.
    expect(readdirSync(join(first.dataDir, "segments"))).toEqual(["seal-00000001.arrows"]);
    await expect(first.store.seal()).rejects.toThrow("manifest log is unavailable");
    mend();
    await first.wal.close();

    // Here the change did not reach the disk: the restart removes the unnamed file and replays the WAL.
    const second = await openStore(first.dataDir);
    expect(readdirSync(join(first.dataDir, "segments"))).toEqual([]);
    expect(second.store.scan(7, "production")).toEqual(events);
    await second.wal.close();
  });

  test("a compaction whose manifest commit failed and could not be cut back keeps the parts it wrote and the segments; a restart sorts it out", async () => {
    const first = await openStore();
    const events = [storedEvent(), storedEvent()];
    await ingest(first.wal, first.store, events);
    await first.store.seal();
    const mend = breakManifestLog(first.store);
    await expect(first.store.compact(7, "production")).rejects.toThrow(ManifestUncertainError);
    // Had the change reached the disk, the manifest would name the new part: it must still be there.
    const partsDir = join(first.dataDir, "parquet", "7", "production");
    const partFiles = () => readdirSync(partsDir, { recursive: true }).filter((name) => String(name).endsWith(".parquet"));
    expect(partFiles()).toHaveLength(1);
    expect(readdirSync(join(first.dataDir, "segments"))).toEqual(["seal-00000001.arrows"]);
    mend();
    await first.wal.close();

    // Here the change did not reach the disk: the restart removes the unnamed part and keeps the segment.
    const second = await openStore(first.dataDir);
    expect(partFiles()).toEqual([]);
    expect(second.store.scan(7, "production")).toEqual(events);
    await second.wal.close();
  });

  test("stop() waits for a background tick under way, and for the compaction it queues after stop() was called", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "store-test-"));
    dirs.push(dataDir);
    const wal = await WriteAheadLog.open(join(dataDir, "wal"));
    openLogs.push(wal);
    let sealStarted = () => {};
    const sealing = new Promise<void>((resolve) => (sealStarted = resolve));
    let finishSeal = () => {};
    const sealMayFinish = new Promise<void>((resolve) => (finishSeal = resolve));
    const store = EventStore.open(dataDir, join(dataDir, "wal"), async (position) => {
      sealStarted();
      await sealMayFinish;
      wal.truncateUpTo(position);
    }, { ...quiet, sealAgeMs: 0, compactRows: 1 });
    await ingest(wal, store, [storedEvent()]);
    store.startBackground();
    await sealing;
    // The tick is inside its seal: the compaction it goes on to is not queued yet.
    const stopping = store.stop();
    finishSeal();
    await stopping;
    expect({ segments: store.liveFiles().segments, rows: store.liveFiles().parts.map((part) => part.rows) }).toEqual({ segments: [], rows: [1] });
    store.close();
  });

  test("the background tick seals buffers past their age and compacts partitions past their row count", async () => {
    const tick = (store: EventStore) => (store as unknown as { tick(): Promise<void> }).tick();
    const young = await openStore(undefined, { ...quiet, compactRows: 1 });
    await ingest(young.wal, young.store, [storedEvent()]);
    await tick(young.store);
    expect(young.store.liveFiles()).toEqual({ segments: [], parts: [] });

    const old = await openStore(undefined, { ...quiet, sealAgeMs: 0, compactRows: 1 });
    await ingest(old.wal, old.store, [storedEvent()]);
    await tick(old.store);
    expect(old.store.liveFiles().segments).toEqual([]);
    expect(old.store.liveFiles().parts).toHaveLength(1);
  });

  test("a seal starts by itself once sealRows events are buffered, or once their requests' JSON passes sealBytes", async () => {
    const sealedRows = async (tuning: StorageTuning, batches: StoredEvent[][]) => {
      const { wal, store } = await openStore(undefined, tuning);
      for (const batch of batches) await ingest(wal, store, batch);
      await store.stop();
      return store.liveFiles().segments.map((segment) => segment.rows);
    };
    const batches = () => [[storedEvent(), storedEvent()], [storedEvent()]];
    expect(await sealedRows({ ...quiet, sealRows: 3 }, batches())).toEqual([3]);
    expect(await sealedRows({ ...quiet, sealRows: 4 }, batches())).toEqual([]);

    const firstBytes = readBatchRecord(...encodeBatchRecord(acceptedBatchOf(projectId, 7, "production", batches()[0]!))).bodyBytes;
    expect(await sealedRows({ ...quiet, sealBytes: firstBytes }, batches())).toEqual([2]);
    expect(await sealedRows({ ...quiet, sealBytes: firstBytes + 1 }, batches())).toEqual([3]);
  });

  test("a seal starts by itself once the buffers' property cells (rows x property columns, summed) reach sealCells", async () => {
    const sealed = async (sealCells: number, records: number) => {
      const { wal, store } = await openStore(undefined, { ...quiet, sealCells });
      const all: [StoredEvent[], string][] = [
        [[storedEvent({ properties: { a: 1, b: 2 } }), storedEvent({ properties: { c: 3 } })], "production"],
        [[storedEvent({ properties: { d: 4 } })], "staging"],
        [[storedEvent({ properties: { e: 5 } })], "production"],
      ];
      for (const [events, environment] of all.slice(0, records)) await ingest(wal, store, events, environment);
      await store.stop();
      return store.liveFiles().segments.map(({ environment, rows }) => ({ environment, rows }));
    };
    // Three values in 2 rows x 3 keys: 6 cells.
    expect(await sealed(6, 1)).toEqual([{ environment: "production", rows: 2 }]);
    expect(await sealed(7, 1)).toEqual([]);
    // Then 1 x 1 in staging, and production grows to 3 rows x 4 keys: 13 cells in all.
    expect(await sealed(13, 3)).toEqual([{ environment: "production", rows: 3 }, { environment: "staging", rows: 1 }]);
    expect(await sealed(14, 3)).toEqual([]);
  });

  test("while more rows than compactBacklogRows wait in segments, the tick compacts the biggest partitions, short of their row count and age, until no more do", async () => {
    const tick = (store: EventStore) => (store as unknown as { tick(): Promise<void> }).tick();
    const partitionsOf = (files: { environment: string; rows: number }[]) => files.map(({ environment, rows }) => ({ environment, rows }));
    const fill = async (compactBacklogRows: number) => {
      const { wal, store } = await openStore(undefined, { ...quiet, compactRows: 1000, compactBacklogRows });
      await ingest(wal, store, [storedEvent()], "c");
      await ingest(wal, store, [storedEvent(), storedEvent(), storedEvent()], "a");
      await ingest(wal, store, [storedEvent(), storedEvent()], "b");
      await store.seal();
      await tick(store);
      return store.liveFiles();
    };

    const atBound = await fill(6);
    expect({ segments: partitionsOf(atBound.segments), parts: atBound.parts }).toEqual({
      segments: [{ environment: "c", rows: 1 }, { environment: "a", rows: 3 }, { environment: "b", rows: 2 }],
      parts: [],
    });

    // 6 rows wait: a (3) leaves 3 waiting, still past 2; b (2) leaves 1, within it; c stays.
    const pastBound = await fill(2);
    expect({ segments: partitionsOf(pastBound.segments), parts: partitionsOf(pastBound.parts) }).toEqual({
      segments: [{ environment: "c", rows: 1 }],
      parts: [{ environment: "a", rows: 3 }, { environment: "b", rows: 2 }],
    });
  });
});
