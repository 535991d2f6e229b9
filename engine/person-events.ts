// A person's events, newest first, for GET /persons/{id}/events: read like a query, from a
// snapshot of the partition on the request thread, not by the storage worker (which reading every
// part of a partition kept from ingest: about 350 ms per request over 1M events, measured).
// Only the person_index column of a chunk is scanned (through the query engine's column cache);
// a chunk's rows become events only where the person is. Parts hold one UTC day each, so they
// are read newest day first and the reading stops once no older day can change the page.
import { readParquetTable } from "../storage/data-files.ts";
import { tableToEvents } from "../storage/event-columns.ts";
import type { StoredEvent } from "../storage/event-record.ts";
import { partsByDay, type ChunkRef, type ChunkStore } from "./chunk-store.ts";
import { dayMs } from "./time-zone.ts";

/** Where a page of events newest first ended: the last event's timestamp and uuid. */
export interface EventCursor {
  timestamp: number;
  uuid: string;
}

/** Newest first by (timestamp, uuid), as pages and cursors go. */
const newestFirst = (a: StoredEvent, b: StoredEvent) => b.timestamp - a.timestamp || (a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0);

function isBefore(event: StoredEvent, before: EventCursor | null): boolean {
  return before === null || event.timestamp < before.timestamp || (event.timestamp === before.timestamp && event.uuid < before.uuid);
}

/**
 * The events of `chunks` (a partition's snapshot) written with any of `personIndexes`, newest
 * first, only those before `before`, at most `limit`. An event stored twice (a uuid in two
 * chunks until compaction meets them) is given once, as it first arrived, the copy compaction
 * keeps: parts hold what came before any sealed segment, and segments what came before the
 * unsealed rows (snapshotChunks lists them in that order). Copies on different UTC days stay
 * stored twice (compaction deduplicates within a day) and are not looked for across days.
 */
export async function personEventsOf(
  columns: ChunkStore, chunks: readonly ChunkRef[], personIndexes: readonly number[], before: EventCursor | null, limit: number,
): Promise<StoredEvent[]> {
  const wanted = new Set(personIndexes);
  const fromParts = new Map<string, StoredEvent>();
  const arrivedLater = new Map<string, StoredEvent>();
  const take = async (ref: ChunkRef, found: Map<string, StoredEvent>) => {
    const people = (await columns.columns(ref, ["person_index"])).get("person_index") as Int32Array | undefined;
    if (!people) return;
    const rows: number[] = [];
    for (let row = 0; row < people.length; row++) if (wanted.has(people[row]!)) rows.push(row);
    if (rows.length === 0) return;
    const table = ref.kind === "part" ? readParquetTable(ref.path) : columns.table(ref);
    for (const event of tableToEvents(table, rows)) if (isBefore(event, before) && !found.has(event.uuid)) found.set(event.uuid, event);
  };
  const page = () => {
    const events = new Map(arrivedLater);
    for (const [uuid, event] of fromParts) events.set(uuid, event);
    return [...events.values()].sort(newestFirst);
  };
  /** Whether the page is full with events no older day can displace: all of them at or after `dayStart`. */
  const settledFrom = (dayStart: number) => {
    if (fromParts.size + arrivedLater.size < limit) return false;
    const events = page();
    return events.length >= limit && events[limit - 1]!.timestamp >= dayStart;
  };
  // Sealed segments and unsealed rows may hold any time.
  for (const ref of chunks) if (ref.kind !== "part") await take(ref, arrivedLater);
  for (const { start, parts } of partsByDay(chunks, "newest")) {
    // A day that starts after the cursor holds nothing before it.
    if (before !== null && start > before.timestamp) continue;
    if (settledFrom(start + dayMs)) break;
    for (const ref of parts) await take(ref, fromParts);
  }
  return page().slice(0, limit);
}
