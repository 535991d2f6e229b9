// POST /r: session-replay chunks. Same key, origin, CORS, compression and error rules as
// event ingest; each chunk is validated, sampled by the project's replay policy, deduplicated
// by (session, seq), and the accepted ones are appended to the region's replay log. The answer
// comes once they are durable.
import { SQLiteError } from "bun:sqlite";
import { ApiError, unavailable } from "../../http/errors.ts";
import { WalRecordTooLargeError, WalUnavailableError } from "../../../storage/wal.ts";
import type { ReplayChunk } from "../../../storage/replay/replay-store.ts";
import type { RegionNode } from "../../region/region-node.ts";
import { authenticate, storageRetryAfterSeconds } from "../capture.ts";
import { ingestMalformed, ingestTooLarge, type DecodedBody } from "../decode-body.ts";
import type { FlagGate } from "../flags/flag-gate.ts";
import { isPlainObject } from "../json-values.ts";
import { parseRfc3339 } from "../rfc3339.ts";
import { replayChunksMax, replayChunksMin } from "./replay-limits.ts";
import { sessionSampledIn, type SessionVerdicts } from "./replay-sampling.ts";
import { validateChunk, type ChunkRejection } from "./validate-chunk.ts";

export interface ReplayIngestResponse {
  accepted: number;
  sampled_out: string[];
  rejected: ChunkRejection[];
}

const dayMs = 86_400_000;
const duplicateMessage = "this chunk (session_id, seq) was stored before; resending it is safe";

/** What decides whether a session is recorded: the flag gate, and the verdicts already given. */
export interface RecordingDecision {
  gate: FlagGate;
  verdicts: SessionVerdicts;
}

export async function captureReplay(node: RegionNode, decision: RecordingDecision, request: Request, decoded: DecodedBody, receivedAt: number): Promise<ReplayIngestResponse> {
  const json = decoded.json;
  if (!isPlainObject(json)) throw ingestMalformed("the body must be a JSON object with api_key and chunks");
  const key = authenticate(node, json.api_key, request.headers.get("origin"));
  const chunks = json.chunks;
  if (!Array.isArray(chunks)) throw ingestMalformed(`chunks must be an array of ${replayChunksMin} to ${replayChunksMax} replay chunks`);
  if (chunks.length > replayChunksMax) throw new ApiError(413, "payload_too_large", `chunks has ${chunks.length} chunks; at most ${replayChunksMax}`);
  if (chunks.length < replayChunksMin) throw ingestMalformed(`chunks must contain ${replayChunksMin} to ${replayChunksMax} chunks`);
  if (json.sent_at !== undefined && json.sent_at !== null && parseRfc3339(json.sent_at) === null) throw ingestMalformed("sent_at must be an RFC 3339 date-time");
  // A chunk counts as one event against the project's ingest rate.
  const retryAfter = node.rates.take(key.projectId, chunks.length);
  if (retryAfter > 0) throw new ApiError(429, "rate_limited", "ingest rate limit of the project exceeded", { "Retry-After": String(retryAfter) });

  const policy = node.replays.index.policy(key.projectId);
  const keepRatio = node.keepRatio(key.projectId);
  const clock = { receivedAt, oldestAllowedMs: receivedAt - key.retentionDays * dayMs, retentionDays: key.retentionDays };
  const response: ReplayIngestResponse = { accepted: 0, sampled_out: [], rejected: [] };
  const accepted: ReplayChunk[] = [];
  /** Chunks this request claimed: a second copy in it is a duplicate (its claim would wait for this request's own append). */
  const claimedHere = new Set<string>();
  try {
    for (const raw of chunks) {
      const verdict = validateChunk(raw, clock);
      if (!verdict.ok) {
        response.rejected.push(verdict.rejection);
        continue;
      }
      const chunk = verdict.chunk;
      const recorded = decision.verdicts.of(key.projectId, chunk.sessionId, () =>
        sessionSampledIn(policy, keepRatio, chunk.sessionId) && (policy.flagKey === null || decision.gate.enabled(key, policy.flagKey, chunk.distinctId)),
      );
      if (!recorded) {
        if (!response.sampled_out.includes(chunk.sessionId)) response.sampled_out.push(chunk.sessionId);
        continue;
      }
      const chunkKey = `${chunk.sessionId}:${chunk.seq}`;
      if (claimedHere.has(chunkKey) || !(await node.replays.claim(key.projectId, key.environment, chunk.sessionId, chunk.seq))) {
        response.rejected.push({ session_id: chunk.sessionId, seq: chunk.seq, reason: "duplicate", message: duplicateMessage });
        continue;
      }
      claimedHere.add(chunkKey);
      accepted.push(chunk);
    }
  } catch (error) {
    // Claimed chunks this request will not store: a retry must be able to bring them.
    node.replays.release(key.projectId, key.environment, accepted);
    throw error;
  }
  if (accepted.length > 0) {
    // A recording is billed once, when its first chunk is stored (a duplicate was refused above).
    // Counted before the append and taken back if it fails: a stored chunk is never left
    // uncounted (a count written after the append could fail with the chunk stored, and the
    // client's retry would be refused as a duplicate).
    const recordings = accepted.filter((chunk) => chunk.seq === 0).length;
    let appending = false;
    try {
      if (recordings > 0) node.store.usage.add(key.projectId, receivedAt, { eventsReceived: 0, eventsStored: 0, replayRecordings: recordings });
      appending = true;
      await node.replays.append({ projectId: key.projectId, dataId: key.dataId, environment: key.environment, receivedAt, chunks: accepted });
    } catch (error) {
      // A failed append releases its claims itself; a failed count happens before it, so they are released here.
      if (!appending) node.replays.release(key.projectId, key.environment, accepted);
      else if (recordings > 0) node.store.usage.add(key.projectId, receivedAt, { eventsReceived: 0, eventsStored: 0, replayRecordings: -recordings });
      if (error instanceof SQLiteError) throw unavailable("storage cannot accept writes right now", storageRetryAfterSeconds);
      if (error instanceof WalUnavailableError) throw unavailable("the replay log cannot accept writes right now", storageRetryAfterSeconds);
      if (error instanceof WalRecordTooLargeError) throw ingestTooLarge();
      throw error;
    }
    if (node.replays.flushDue()) void node.maintainReplays();
  }
  response.accepted = accepted.length;
  return response;
}
