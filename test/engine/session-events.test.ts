// Events joined to recordings through session_id, read from a partition's snapshot (Parquet parts,
// sealed segments, unsealed rows) through the column cache, as the replay API reads them.
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ChunkStore, type ChunkRef } from "../../engine/chunk-store.ts";
import type { Decoded } from "../../engine/columns.ts";
import { sessionEvents, sessionsWithEvent } from "../../engine/session-events.ts";
import { defaultStorageTuning } from "../../storage/event-store.ts";
import type { StoredEvent } from "../../storage/event-record.ts";
import { readManifest } from "../../storage/manifest.ts";
import { storedEvent } from "../storage/fixtures.ts";
import { openEventStore } from "./event-store-fixture.ts";

/** A column cache that records the columns asked of it, with the kind of chunk. */
class RecordingChunkStore extends ChunkStore {
  readonly columnReads: string[] = [];

  constructor() {
    super(defaultStorageTuning.sealBytes, null);
  }

  override columns(ref: ChunkRef, names: string[]): Promise<Map<string, Decoded>> {
    this.columnReads.push(...names.map((name) => `${ref.kind}:${name}`));
    return super.columns(ref, names);
  }
}

async function openStore() {
  const columns = new RecordingChunkStore();
  const { dataDir, store, ingest, withChunks } = await openEventStore("session-events-", columns);
  const sessions = (event: string, fromMs: number, toMs: number) => withChunks((chunks) => sessionsWithEvent(columns, chunks, event, fromMs, toMs));
  const eventsOf = (sessionId: string, fromMs: number, toMs: number, limit: number) =>
    withChunks((chunks) => sessionEvents(columns, chunks, sessionId, fromMs, toMs, limit));
  return { dataDir, store, ingest, columns, sessions, eventsOf };
}

const at = Date.parse("2026-11-19T12:00:00.000Z");
const listed = (event: StoredEvent, currentUrl: string | null = null) => ({ uuid: event.uuid, event: event.event, timestamp: event.timestamp, currentUrl });

test("hostile session ids and event names are matched exactly, as data (session ids in lower case, as stored)", async () => {
  const { store, ingest, sessions, eventsOf } = await openStore();
  const hostileIds = [`'; drop table events;--`, `" or 1=1 --`, "%", "s\u0000null", "ünï\u{1F600}"];
  const stored = hostileIds.map((id, n) => storedEvent({ session_id: id, event: `${id} happened`, timestamp: at + n }));
  const prefixOnly = storedEvent({ session_id: `${hostileIds[0]}x`, event: `${hostileIds[0]} happened`, timestamp: at + 100 });
  await ingest([...stored.slice(0, 3), prefixOnly]);
  await store.flush();
  await ingest(stored.slice(3));
  for (const [n, id] of hostileIds.entries()) {
    expect(await eventsOf(id, at - 1000, at + 1000, 10)).toEqual([listed(stored[n]!)]);
    expect(await sessions(`${id} happened`, at - 1000, at + 1000)).toEqual(new Set(n === 0 ? [id, prefixOnly.session_id!] : [id]));
  }
  expect(await eventsOf("%'", at - 1000, at + 1000, 10)).toEqual([]);
  expect(await eventsOf(`'; DROP TABLE events;--`, at - 1000, at + 1000, 10)).toEqual([listed(stored[0]!)]);
  expect(await sessions(`'; DROP TABLE events;-- happened`, at - 1000, at + 1000)).toEqual(new Set());
});

test("sessionsWithEvent reads only the event column of a chunk without the event, and event, session_id and timestamp of one with it, no other column", async () => {
  const { store, ingest, columns, sessions } = await openStore();
  await ingest([storedEvent({ session_id: "a", event: "bought", timestamp: at }), storedEvent({ session_id: "b", event: "viewed", timestamp: at + 1 })]);
  await store.flush();
  await ingest([storedEvent({ session_id: "c", event: "viewed", timestamp: at + 2 })]);
  await store.seal();
  await ingest([storedEvent({ session_id: null, event: "bought", timestamp: at + 3 }), storedEvent({ session_id: "d", event: "bought", timestamp: at + 4 })]);
  expect(await sessions("bought", at, at + 4)).toEqual(new Set(["a", "d"]));
  expect(columns.columnReads).toEqual([
    "part:event", "part:session_id", "part:timestamp", "segment:event", "buffer:event", "buffer:session_id", "buffer:timestamp",
  ]);
});

test("parts outside the time range, or of days after a full page, are never opened; an event in two chunks is given once, as it first arrived", async () => {
  const { dataDir, store, ingest, eventsOf, sessions } = await openStore();
  const day = (date: string, hour: number, overrides: Partial<StoredEvent> = {}) =>
    storedEvent({ session_id: "s", event: "viewed", timestamp: Date.parse(`${date}T${String(hour).padStart(2, "0")}:00:00.000Z`), ...overrides });
  const first = day("2026-11-17", 23, { properties: { $current_url: "https://a.example/first" } });
  const second = day("2026-11-18", 0, { properties: { $current_url: 7 } });
  const third = day("2026-11-18", 1, { properties: { $current_url: "https://a.example/third" } });
  const last = day("2026-11-19", 9);
  const otherSession = day("2026-11-18", 2, { session_id: "t" });
  await ingest([first, second, third, last, otherSession]);
  await store.flush();
  // A retry of `third` with other content, after compaction: in a sealed segment, then unsealed.
  const retry = { ...third, timestamp: third.timestamp + 1, event: "retried" };
  await ingest([retry]);
  await store.seal();
  await ingest([retry]);
  const listedAll = [listed(first, "https://a.example/first"), listed(second), listed(third, "https://a.example/third"), listed(last)];
  expect(await eventsOf("s", 0, Date.parse("2026-12-01T00:00:00Z"), 100)).toEqual(listedAll);

  const partsByDay = new Map(readManifest(dataDir).parts.map((part) => [part.day, join(dataDir, part.file)]));
  expect([...partsByDay.keys()].sort()).toEqual(["2026-11-17", "2026-11-18", "2026-11-19"]);
  rmSync(partsByDay.get("2026-11-19")!);
  // A page of 3 is full once the 18th is read: the 19th's part (gone) is never opened.
  expect(await eventsOf("s", 0, Date.parse("2026-12-01T00:00:00Z"), 3)).toEqual(listedAll.slice(0, 3));
  // Nor is it for a range that ends before its day.
  const endOf18th = Date.parse("2026-11-18T23:59:59.999Z");
  expect(await eventsOf("s", first.timestamp, endOf18th, 100)).toEqual(listedAll.slice(0, 3));
  expect(await sessions("viewed", first.timestamp, endOf18th)).toEqual(new Set(["s", "t"]));
  const missing = await eventsOf("s", 0, Date.parse("2026-12-01T00:00:00Z"), 4).then(() => null, (error: NodeJS.ErrnoException) => error.code);
  expect(missing).toBe("ENOENT");
});

test("a $current_url of mixed types in one file gives the strings only", async () => {
  const { store, ingest, eventsOf } = await openStore();
  const events = [
    storedEvent({ session_id: "m", timestamp: at, properties: { $current_url: "https://a.example/" } }),
    storedEvent({ session_id: "m", timestamp: at + 1, properties: { $current_url: 3 } }),
    storedEvent({ session_id: "m", timestamp: at + 2, properties: { $current_url: { href: "https://a.example/" } } }),
    storedEvent({ session_id: "m", timestamp: at + 3, properties: { $current_url: true } }),
  ];
  await ingest(events);
  const expected = [listed(events[0]!, "https://a.example/"), listed(events[1]!), listed(events[2]!), listed(events[3]!)];
  expect(await eventsOf("m", at, at + 3, 10)).toEqual(expected);
  await store.flush();
  expect(await eventsOf("m", at, at + 3, 10)).toEqual(expected);
});
