// Events joined to a recording through `session_id`, for the replay API (docs/replay.md): the
// sessions in which an event was performed (GET /replays?event=E) and a session's events (the
// `events` of GET /replays/{id}). Read like person-events.ts: from a snapshot of the partition
// (Parquet parts, sealed segments, unsealed rows, so events seconds old are found too), scanning
// only the columns that pick rows through the query engine's column cache; a chunk's rows become
// events only where the session is. Parts outside the time range are never opened.
import { readParquetTable } from "../storage/data-files.ts";
import { tableToEvents } from "../storage/event-columns.ts";
import type { StoredEvent } from "../storage/event-record.ts";
import type { TextColumn } from "./columns.ts";
import { mayHoldRange, partsByDay, type ChunkRef, type ChunkStore } from "./chunk-store.ts";

/** One of a session's events as the replay API lists it. */
export interface SessionEvent {
  uuid: string;
  event: string;
  /** Epoch milliseconds. */
  timestamp: number;
  /** The event's `$current_url` property when it is a string. */
  currentUrl: string | null;
}

/** Whether a chunk may hold instants in [fromMs, toMs] (both inclusive; timestamps are whole milliseconds). */
const mayHold = (ref: ChunkRef, fromMs: number, toMs: number) => mayHoldRange(ref, fromMs, toMs + 1);

/** The code of `word` in a text column, or -1 when no row holds it. */
const codeOf = (column: TextColumn, word: string) => column.words.indexOf(word);

/**
 * The distinct session ids of events named `event` with a timestamp in [fromMs, toMs], in
 * `chunks` (a partition's snapshot). Only the event, session_id and timestamp columns are read,
 * and a chunk's session ids and timestamps only when the event is in it. An event stored twice
 * (a retry, until compaction meets the copies) names the same session, so it counts once.
 * Session ids come back as stored: in lower case.
 */
export async function sessionsWithEvent(
  columns: ChunkStore, chunks: readonly ChunkRef[], event: string, fromMs: number, toMs: number,
): Promise<Set<string>> {
  const sessions = new Set<string>();
  for (const ref of chunks) {
    if (!mayHold(ref, fromMs, toMs)) continue;
    const events = (await columns.columns(ref, ["event"])).get("event") as TextColumn | undefined;
    const wanted = events ? codeOf(events, event) : -1;
    if (wanted < 0) continue;
    const read = await columns.columns(ref, ["session_id", "timestamp"]);
    const ids = read.get("session_id") as TextColumn | undefined;
    const times = read.get("timestamp") as Float64Array | undefined;
    if (!ids || !times) continue;
    const seen = new Uint8Array(ids.words.length);
    for (let row = 0; row < times.length; row++) {
      const id = ids.codes[row]!;
      if (events!.codes[row] !== wanted || id < 0 || seen[id] === 1 || times[row]! < fromMs || times[row]! > toMs) continue;
      seen[id] = 1;
      sessions.add(ids.words[id]!);
    }
  }
  return sessions;
}

/** Oldest first by (timestamp, uuid). */
const oldestFirst = (a: StoredEvent, b: StoredEvent) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0);

const sessionEvent = (event: StoredEvent): SessionEvent => {
  const url = event.properties.$current_url;
  return { uuid: event.uuid, event: event.event, timestamp: event.timestamp, currentUrl: typeof url === "string" ? url : null };
};

/**
 * The events of session `sessionId` with a timestamp in [fromMs, toMs] in `chunks` (a
 * partition's snapshot), oldest first, at most `limit`. Only session_id and timestamp are
 * scanned; rows of the session are then read whole. An event stored twice is given once, as it
 * first arrived (the copy compaction keeps), as personEventsOf does. Parts are read oldest day
 * first, and no later day is opened once the page is full with earlier events. Session ids are
 * stored in lower case (storage/event-buffer.ts), so `sessionId` is looked for in lower case.
 */
export async function sessionEvents(
  columns: ChunkStore, chunks: readonly ChunkRef[], sessionId: string, fromMs: number, toMs: number, limit: number,
): Promise<SessionEvent[]> {
  if (limit <= 0) return [];
  const stored = sessionId.toLowerCase();
  const fromParts = new Map<string, StoredEvent>();
  const arrivedLater = new Map<string, StoredEvent>();
  const take = async (ref: ChunkRef, found: Map<string, StoredEvent>) => {
    if (!mayHold(ref, fromMs, toMs)) return;
    const read = await columns.columns(ref, ["session_id", "timestamp"]);
    const ids = read.get("session_id") as TextColumn | undefined;
    const times = read.get("timestamp") as Float64Array | undefined;
    const wanted = ids ? codeOf(ids, stored) : -1;
    if (wanted < 0 || !times) return;
    const rows: number[] = [];
    for (let row = 0; row < times.length; row++) if (ids!.codes[row] === wanted && times[row]! >= fromMs && times[row]! <= toMs) rows.push(row);
    if (rows.length === 0) return;
    const table = ref.kind === "part" ? readParquetTable(ref.path) : columns.table(ref);
    for (const event of tableToEvents(table, rows)) if (!found.has(event.uuid)) found.set(event.uuid, event);
  };
  const page = () => {
    const events = new Map(arrivedLater);
    for (const [uuid, event] of fromParts) events.set(uuid, event);
    return [...events.values()].sort(oldestFirst);
  };
  /** Whether the page is full with events no later day can displace: all of them before `dayStart`. */
  const settledBefore = (dayStart: number) => {
    if (fromParts.size + arrivedLater.size < limit) return false;
    const events = page();
    return events.length >= limit && events[limit - 1]!.timestamp < dayStart;
  };
  // Sealed segments and unsealed rows may hold any time.
  for (const ref of chunks) if (ref.kind !== "part") await take(ref, arrivedLater);
  for (const { start, parts } of partsByDay(chunks, "oldest")) {
    if (settledBefore(start)) break;
    for (const ref of parts) await take(ref, fromParts);
  }
  return page().slice(0, limit).map(sessionEvent);
}
