// One replay chunk of a POST /r body: its fields, and each event rrweb's shape (an integer
// type 0–6, an epoch-ms timestamp, an object `data`). A chunk is accepted or rejected whole.
import { isUuidV7 } from "../../../storage/uuid-index.ts";
import type { ReplayChunk } from "../../../storage/replay/replay-store.ts";
import type { RrwebEvent } from "../../../storage/replay/replay-summary.ts";
import { distinctIdLengthMax } from "../limits.ts";
import { isPlainObject } from "../json-values.ts";
import { chunkEventsMax, chunkEventsMin, chunkSeqMax, replayFutureToleranceMs, replayModes, replayPlatforms, rrwebTypeMax } from "./replay-limits.ts";

export type ChunkRejectionReason = "invalid" | "too_large" | "duplicate" | "expired";

export interface ChunkRejection {
  session_id: string | null;
  seq: number | null;
  reason: ChunkRejectionReason;
  message: string;
}

export type ChunkVerdict = { ok: true; chunk: ReplayChunk } | { ok: false; rejection: ChunkRejection };

/** What the chunk says it is, as sent (for the rejection), or null. */
const sentSession = (raw: unknown) => (isPlainObject(raw) && typeof raw.session_id === "string" ? raw.session_id.slice(0, 100) : null);
const sentSeq = (raw: unknown) => (isPlainObject(raw) && Number.isSafeInteger(raw.seq) ? (raw.seq as number) : null);

/** The first problem of event `index`, or null when it is rrweb's shape. */
function eventProblem(event: unknown, index: number, latestMs: number): string | null {
  if (!isPlainObject(event)) return `events[${index}] must be an object`;
  if (!Number.isInteger(event.type) || (event.type as number) < 0 || (event.type as number) > rrwebTypeMax) {
    return `events[${index}].type must be an rrweb event type (an integer from 0 to ${rrwebTypeMax})`;
  }
  if (!Number.isSafeInteger(event.timestamp) || (event.timestamp as number) <= 0) {
    return `events[${index}].timestamp must be a positive whole number of epoch milliseconds`;
  }
  // A recording from the future would sit first in every listing and outlive any retention.
  if ((event.timestamp as number) > latestMs) return `events[${index}].timestamp is more than ${replayFutureToleranceMs / 60_000} minutes in the future`;
  if (!isPlainObject(event.data)) return `events[${index}].data must be an object`;
  return null;
}

/** When the chunk arrived, and the project's retention: a chunk whose every event is older than `oldestAllowedMs` is refused. */
export interface ChunkClock {
  receivedAt: number;
  oldestAllowedMs: number;
  retentionDays: number;
}

/** `raw` as a chunk, checked against the limits and the project's retention. */
export function validateChunk(raw: unknown, clock: ChunkClock): ChunkVerdict {
  const reject = (reason: ChunkRejectionReason, message: string): ChunkVerdict => ({ ok: false, rejection: { session_id: sentSession(raw), seq: sentSeq(raw), reason, message } });
  if (!isPlainObject(raw)) return reject("invalid", "a chunk must be an object");
  if (!isUuidV7(raw.session_id)) return reject("invalid", "session_id must be a UUIDv7");
  if (raw.window_id !== undefined && raw.window_id !== null && !isUuidV7(raw.window_id)) return reject("invalid", "window_id must be a UUIDv7 when given");
  if (!Number.isInteger(raw.seq) || (raw.seq as number) < 0 || (raw.seq as number) > chunkSeqMax) return reject("invalid", `seq must be an integer from 0 to ${chunkSeqMax}`);
  if (typeof raw.distinct_id !== "string" || raw.distinct_id.length < 1 || raw.distinct_id.length > distinctIdLengthMax) {
    return reject("invalid", `distinct_id must be 1 to ${distinctIdLengthMax} characters`);
  }
  if (typeof raw.platform !== "string" || !replayPlatforms.has(raw.platform)) return reject("invalid", `platform must be one of ${[...replayPlatforms].join(", ")}`);
  if (typeof raw.mode !== "string" || !replayModes.has(raw.mode)) return reject("invalid", `mode must be one of ${[...replayModes].join(", ")}`);
  const events = raw.events;
  if (!Array.isArray(events)) return reject("invalid", "events must be an array of rrweb events");
  if (events.length > chunkEventsMax) return reject("too_large", `a chunk holds at most ${chunkEventsMax} events; this one has ${events.length}`);
  if (events.length < chunkEventsMin) return reject("invalid", `a chunk holds ${chunkEventsMin} to ${chunkEventsMax} events`);
  let newestMs = 0;
  for (let index = 0; index < events.length; index++) {
    const problem = eventProblem(events[index], index, clock.receivedAt + replayFutureToleranceMs);
    if (problem) return reject("invalid", problem);
    newestMs = Math.max(newestMs, (events[index] as RrwebEvent).timestamp);
  }
  if (newestMs < clock.oldestAllowedMs) return reject("expired", `every event is older than the project's retention of ${clock.retentionDays} days`);
  return {
    ok: true,
    chunk: {
      sessionId: (raw.session_id as string).toLowerCase(),
      windowId: typeof raw.window_id === "string" ? raw.window_id.toLowerCase() : null,
      seq: raw.seq as number,
      distinctId: raw.distinct_id,
      platform: raw.platform,
      mode: raw.mode,
      events: events as RrwebEvent[],
    },
  };
}
