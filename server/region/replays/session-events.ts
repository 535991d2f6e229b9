// The analytics events joined to recordings through `session_id`, in the token's project and
// environment, for the replay routes (docs/replay.md: GET /replays?event=E and the `events` of
// GET /replays/{id}). Each read is a scan of the partition like a query's, so it counts as one
// of the project's concurrent queries, and it reads a snapshot of the partition, taken again
// when a compaction removed one of its files while they were read (as persons-routes.ts does).
import { snapshotChunks, type ChunkRef, type ChunkStore } from "../../../engine/chunk-store.ts";
import * as engine from "../../../engine/session-events.ts";
import type { SessionEvent } from "../../../engine/session-events.ts";
import { tooManyConcurrentQueries, type QueryGate } from "../query-service.ts";
import type { RegionClaims } from "../region-auth.ts";
import type { RegionNode } from "../region-node.ts";
import { snapshotAttemptsMax } from "../sql-service.ts";

export type { SessionEvent };

/** What reading stored events takes: the region, the query engine's column cache, and the gate of concurrent queries (QueryService's). */
export interface StoredEventsAccess {
  node: RegionNode;
  columns: ChunkStore;
  gate: QueryGate;
}

/** `read` over a snapshot of the token's partition, counted as one of the project's queries (429 past the limit). */
async function readPartition<T>(access: StoredEventsAccess, claims: RegionClaims, read: (chunks: readonly ChunkRef[]) => Promise<T>): Promise<T> {
  const { node, columns, gate } = access;
  const release = gate.tryAcquire(claims.projectId);
  if (!release) throw tooManyConcurrentQueries();
  try {
    for (let attempt = 1; ; attempt++) {
      const chunks = snapshotChunks(await node.events.snapshot(claims.dataId, claims.environment), node.dataDir);
      try {
        return await read(chunks);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === snapshotAttemptsMax) throw error;
      } finally {
        columns.release(chunks);
      }
    }
  } finally {
    release();
  }
}

/** The distinct session ids of the token's events named `event` with a timestamp in [fromMs, toMs] (epoch ms, inclusive). */
export function sessionsWithEvent(access: StoredEventsAccess, claims: RegionClaims, event: string, fromMs: number, toMs: number): Promise<Set<string>> {
  return readPartition(access, claims, (chunks) => engine.sessionsWithEvent(access.columns, chunks, event, fromMs, toMs));
}

/** The token's events of session `sessionId` with a timestamp in [fromMs, toMs] (epoch ms, inclusive), oldest first, at most `limit`. */
export function sessionEvents(
  access: StoredEventsAccess, claims: RegionClaims, sessionId: string, fromMs: number, toMs: number, limit: number,
): Promise<SessionEvent[]> {
  return readPartition(access, claims, (chunks) => engine.sessionEvents(access.columns, chunks, sessionId, fromMs, toMs, limit));
}
