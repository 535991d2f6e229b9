// A person's events as GET /persons/{id}/events reads them: from a partition's snapshot (Parquet
// parts, sealed segments, unsealed rows), through the column cache, newest first.
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ChunkStore } from "../../engine/chunk-store.ts";
import { personEventsOf, type EventCursor } from "../../engine/person-events.ts";
import type { StoredEvent } from "../../storage/event-record.ts";
import { readManifest } from "../../storage/manifest.ts";
import { storedEvent } from "../storage/fixtures.ts";
import { openEventStore } from "./event-store-fixture.ts";

async function openStore() {
  const columns = new ChunkStore();
  const { dataDir, store, ingest, withChunks } = await openEventStore("person-events-", columns);
  const read = (personIndexes: number[], before: EventCursor | null, limit: number) =>
    withChunks((chunks) => personEventsOf(columns, chunks, personIndexes, before, limit));
  return { dataDir, store, ingest, read };
}

const uuids = (rows: StoredEvent[]) => rows.map((row) => row.uuid);
const cursorAt = (event: StoredEvent): EventCursor => ({ timestamp: event.timestamp, uuid: event.uuid });

test("from Parquet parts, segments and unsealed rows alike: newest first, before a cursor, at most a limit, the person's indexes only", async () => {
  const { dataDir, store, ingest, read } = await openStore();
  const at = Date.parse("2026-11-19T12:00:00.000Z");
  const mine = (offset: number, personIndex = 3) => storedEvent({ person_index: personIndex, timestamp: at + offset });
  const compacted = [mine(1), mine(5, 9), storedEvent({ person_index: 4, timestamp: at + 2 })];
  await ingest(compacted);
  await store.flush();
  expect(readManifest(dataDir).parts).toHaveLength(1);
  const sealed = [mine(3), mine(7)];
  await ingest(sealed);
  await store.seal();
  expect(readManifest(dataDir).segments).toHaveLength(1);
  const buffered = [mine(4), mine(6, 9)];
  await ingest(buffered);
  await ingest([storedEvent({ person_index: 3, timestamp: at + 8 })], "staging");

  const all = await read([3, 9], null, 100);
  expect(all).toEqual([sealed[1]!, buffered[1]!, compacted[1]!, buffered[0]!, sealed[0]!, compacted[0]!]);
  expect(uuids(await read([3], null, 2))).toEqual(uuids([sealed[1]!, buffered[0]!]));
  expect(uuids(await read([3], cursorAt(buffered[0]!), 100))).toEqual(uuids([sealed[0]!, compacted[0]!]));
  expect(await read([42], null, 100)).toEqual([]);
});

test("an event in two chunks (a retry stored again before compaction met the first) is given once", async () => {
  const { store, ingest, read } = await openStore();
  const event = storedEvent({ person_index: 3, timestamp: Date.parse("2026-11-19T12:00:00.000Z") });
  await ingest([event]);
  await store.flush();
  await ingest([event]);
  expect(await read([3], null, 10)).toEqual([event]);
});

test("an event stored twice with different content is given as it first arrived, before and after compaction, so a cursor never meets it again", async () => {
  const { store, ingest, read } = await openStore();
  const first = storedEvent({ person_index: 3, timestamp: Date.parse("2026-11-19T12:00:00.000Z"), properties: { copy: "first" } });
  const other = storedEvent({ person_index: 3, timestamp: first.timestamp - 1000 });
  await ingest([first, other]);
  await store.flush();
  const retry = { ...first, timestamp: first.timestamp + 500, properties: { copy: "retry" } };
  // In a sealed segment, then in unsealed rows.
  await ingest([retry]);
  await store.seal();
  expect(await read([3], null, 10)).toEqual([first, other]);
  await ingest([retry]);
  expect(await read([3], null, 10)).toEqual([first, other]);
  const pageOne = await read([3], null, 1);
  expect(pageOne).toEqual([first]);
  await store.flush();
  expect(await read([3], cursorAt(pageOne[0]!), 10)).toEqual([other]);
  expect(await read([3], null, 10)).toEqual([first, other]);
});

test("parts are read newest day first, and no older day's part is opened once the page is full with newer events", async () => {
  const { dataDir, store, ingest, read } = await openStore();
  const day = (date: string, hour: number, personIndex = 3) => storedEvent({ person_index: personIndex, timestamp: Date.parse(`${date}T${String(hour).padStart(2, "0")}:00:00.000Z`) });
  const oldest = [day("2026-11-17", 9), day("2026-11-17", 10, 5)];
  const middle = [day("2026-11-18", 9), day("2026-11-18", 20)];
  const newest = [day("2026-11-19", 1), day("2026-11-19", 2, 5)];
  await ingest([...oldest, ...middle, ...newest]);
  await store.flush();
  const partsByDay = new Map(readManifest(dataDir).parts.map((part) => [part.day, join(dataDir, part.file)]));
  expect([...partsByDay.keys()].sort()).toEqual(["2026-11-17", "2026-11-18", "2026-11-19"]);

  expect(await read([3], null, 10)).toEqual([newest[0]!, middle[1]!, middle[0]!, oldest[0]!]);
  // A page of 3 is full once the 18th is read: the 17th's part is never opened (here it is gone).
  rmSync(partsByDay.get("2026-11-17")!);
  expect(await read([3], null, 3)).toEqual([newest[0]!, middle[1]!, middle[0]!]);
  // A cursor inside the 18th skips the 19th; the page needs the 17th now, and finds its file gone.
  expect(await read([3], cursorAt(middle[1]!), 1)).toEqual([middle[0]!]);
  const missing = await read([3], cursorAt(middle[0]!), 1).then(() => null, (error: NodeJS.ErrnoException) => error.code);
  expect(missing).toBe("ENOENT");
  // The 19th is not needed either for a cursor before it: its file gone changes nothing.
  rmSync(partsByDay.get("2026-11-19")!);
  expect(await read([3], cursorAt(middle[1]!), 1)).toEqual([middle[0]!]);
});
