// An event store's erasure (EventStore.erase with storage/event-erasure.ts) on a store of its
// own: rows of the subjects go from parts, segments and buffers of every environment of their
// project; the rewritten parts hold nothing of them (values, dictionaries, property columns
// only they had), the other rows stay as they were, in order; another project is untouched.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WriteAheadLog } from "../../storage/wal.ts";
import { EventStore, defaultStorageTuning, type StorageTuning } from "../../storage/event-store.ts";
import { encodeBatchRecord, readBatchRecord, type StoredEvent } from "../../storage/event-record.ts";
import { readParquetTable } from "../../storage/data-files.ts";
import { vectorValues } from "../../storage/arrow-vectors.ts";
import { acceptedBatchOf, storedEvent } from "./fixtures.ts";

const dirs: string[] = [];
const openLogs: WriteAheadLog[] = [];
afterEach(async () => {
  for (const wal of openLogs.splice(0)) await wal.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const projectId = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const otherProject = "7a2d2b63-2e7c-4d66-8b8d-1e4d2a3c0f02";
const quiet: StorageTuning = { ...defaultStorageTuning, sealRows: 1_000_000, sealAgeMs: 3_600_000 };

async function openStore() {
  const dataDir = mkdtempSync(join(tmpdir(), "event-erasure-"));
  dirs.push(dataDir);
  const wal = await WriteAheadLog.open(join(dataDir, "wal"));
  openLogs.push(wal);
  return { dataDir, wal, store: EventStore.open(dataDir, join(dataDir, "wal"), (position) => wal.truncateUpTo(position), quiet) };
}

async function ingest(wal: WriteAheadLog, store: EventStore, events: StoredEvent[], environment = "production", project = projectId, dataId = 7) {
  const parts = encodeBatchRecord(acceptedBatchOf(project, dataId, environment, events));
  store.add(readBatchRecord(...parts), await wal.append(parts));
}

const erased = (overrides: Partial<StoredEvent> = {}) =>
  storedEvent({ distinct_id: "gone-m4", person_index: 3, properties: { only_theirs: "secret-m4-value", shared: "m4-shared" }, groups: { company: "acme" }, ...overrides });
const kept = (overrides: Partial<StoredEvent> = {}) => storedEvent({ distinct_id: "stays", person_index: 1, properties: { shared: "plain" }, ...overrides });

describe("EventStore.erase", () => {
  test("removes the subjects' rows wherever they are and counts where each was", async () => {
    const { dataDir, wal, store } = await openStore();
    const keptRows = [kept(), kept({ event: "clicked" }), kept({ distinct_id: "stays-2", person_index: 2 })];
    await ingest(wal, store, [erased(), keptRows[0]!, erased({ distinct_id: "other-id-of-theirs" })]);
    await store.flush();
    await ingest(wal, store, [erased(), keptRows[1]!]);
    // Another person's login on the device whose anonymous id was merged into theirs (the merge refused): kept, the id blanked.
    const login = kept({ distinct_id: "q-login", person_index: 9, anon_id: "gone-m4", properties: { $anon_distinct_id: "gone-m4", $device_id: "device-q", plan: "pro" } });
    await ingest(wal, store, [login], "staging");
    await store.seal();
    await ingest(wal, store, [keptRows[2]!, erased({ groups: null })]);
    const foreign = erased();
    await ingest(wal, store, [foreign], "production", otherProject, 8);
    const counts = await store.erase({ projectId, distinctIds: ["gone-m4"], personIndexes: [3] });
    expect(counts).toEqual({ events_unsealed: 1, events_segments: 1, events_parquet: 2, group_links: 3 });
    expect(store.scan(7, "production").map((row) => row.uuid).sort()).toEqual(keptRows.map((row) => row.uuid).sort());
    expect(store.scan(7, "staging")).toEqual([{ ...login, anon_id: null, properties: { $device_id: "device-q", plan: "pro" } }]);
    expect(store.scan(8, "production").map((row) => row.uuid)).toEqual([foreign.uuid]);
    // The other rows are stored as they were.
    const byUuid = new Map(store.scan(7, "production").map((row) => [row.uuid, row]));
    for (const row of keptRows) expect(byUuid.get(row.uuid)).toEqual(row);
    // Nothing of theirs in this project's parts: not a value, not the key only they set.
    const { parts, segments } = store.liveFiles();
    expect(segments.filter((segment) => segment.projectId === projectId)).toEqual([]);
    for (const part of parts.filter((p) => p.projectId === projectId)) {
      const table = readParquetTable(join(dataDir, part.file));
      const text = table.schema.fields.map((field) => `${field.name}=${JSON.stringify(vectorValues(table.getChild(field.name)!))}`).join("\n");
      for (const needle of ["gone-m4", "only_theirs", "m4-shared", "$anon_distinct_id"]) expect(text).not.toContain(needle);
    }
    // Asked again: nothing left to erase, and nothing else changes.
    expect(await store.erase({ projectId, distinctIds: ["gone-m4"], personIndexes: [3] })).toEqual({ events_unsealed: 0, events_segments: 0, events_parquet: 0, group_links: 0 });
    expect(store.liveFiles()).toEqual({ parts, segments });
    await store.stop();
    store.close();
  });
});

describe("EventStore.erase asked again", () => {
  test("after its commit (a crash before the job recorded it) answers the counts of the first try, from the intent file", async () => {
    const { dataDir, wal, store } = await openStore();
    await ingest(wal, store, [erased(), kept(), erased({ distinct_id: "other-id-of-theirs" })]);
    await store.flush();
    await ingest(wal, store, [erased(), kept({ event: "clicked" })]);
    const intentFile = join(dataDir, "erasures", "job.json");
    const subjects = { projectId, distinctIds: ["gone-m4"], personIndexes: [3] };
    const first = await store.erase(subjects, intentFile);
    expect(first).toEqual({ events_unsealed: 1, events_segments: 0, events_parquet: 2, group_links: 3 });
    expect(await store.erase(subjects, intentFile)).toEqual(first);
    // More of theirs after the first try's commit: added to its counts.
    await ingest(wal, store, [erased()]);
    expect(await store.erase(subjects, intentFile)).toEqual({ ...first, events_unsealed: 2, group_links: 4 });
    // Without the file nothing is carried.
    expect(await store.erase(subjects)).toEqual({ events_unsealed: 0, events_segments: 0, events_parquet: 0, group_links: 0 });
    await store.stop();
    store.close();
  });
});
