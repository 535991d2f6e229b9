// Bytes on disk per recorded minute: the recordings posted to the real service (in this
// process, region eu, no flush timer) and compacted by the region's own maintainReplays(), as
// its timer would: after each 30 s of recording (the default REPLAY_FLUSH_INTERVAL_MS, so each
// block holds what one flush finds of a session), or once at the end (a whole visit per block:
// what a longer interval tends to). Every chunk posted must be stored once.
import { createBenchProjects } from "../ingest/service.ts";
import { replayChunksMax } from "../../server/ingest/replay/replay-limits.ts";
import { replayFlushIntervalMs } from "../../storage/replay/replay-store.ts";
import { startTestService } from "../../test/helpers/service.ts";
import type { Recording, RecordingChunk } from "./recording.ts";
import { storedReplays, type StoredReplays } from "./stored.ts";

export interface StorageFigures extends StoredReplays {
  /** Flushes run (rounds of recording time posted, each followed by one). */
  flushes: number;
}

interface PostedChunk {
  sessionId: string;
  distinctId: string;
  chunk: RecordingChunk;
  /** When the SDK sends it: its last event's time. */
  sentAtMs: number;
}

/** Posts `recordings` to a fresh service, flushing after every `flushEveryMs` of recording (Infinity: once, at the end). */
export async function measureStorage(recordings: Recording[], flushEveryMs: number): Promise<StorageFigures> {
  const service = await startTestService({ REGIONS: "eu", REPLAY_FLUSH_INTERVAL_MS: "0" });
  try {
    const [apiKey] = await createBenchProjects(service.url, 1);
    const node = service.nodes.get("eu")!;
    const posted: PostedChunk[] = recordings.flatMap((recording, at) => {
      const sessionId = Bun.randomUUIDv7();
      return recording.chunks.map((chunk) => ({ sessionId, distinctId: `visitor-${at}`, chunk, sentAtMs: chunk.events.at(-1)!.timestamp }));
    });
    const startMs = Math.min(...posted.map((chunk) => chunk.chunk.events[0]!.timestamp));
    const round = (chunk: PostedChunk) => (Number.isFinite(flushEveryMs) ? Math.floor((chunk.sentAtMs - startMs) / flushEveryMs) : 0);
    const rounds = Map.groupBy(posted, round);
    for (const key of [...rounds.keys()].sort((a, b) => a - b)) {
      const chunks = rounds.get(key)!;
      for (let from = 0; from < chunks.length; from += replayChunksMax) {
        const body = {
          api_key: apiKey,
          sent_at: new Date().toISOString(),
          chunks: chunks.slice(from, from + replayChunksMax).map(({ sessionId, distinctId, chunk }) => ({ session_id: sessionId, seq: chunk.seq, distinct_id: distinctId, platform: "web", mode: "dom", events: chunk.events })),
        };
        const response = await fetch(`${service.url}/ingest/eu/r`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        const answer = (await response.json()) as { accepted?: number };
        if (response.status !== 200 || answer.accepted !== body.chunks.length) throw new Error(`POST /r answered ${response.status} ${JSON.stringify(answer).slice(0, 500)}`);
      }
      await node.maintainReplays();
    }
    const stored = storedReplays(node.dataDir);
    if (stored.chunks !== posted.length || stored.sessions !== recordings.length || stored.logBytes !== 0) {
      throw new Error(`posted ${posted.length} chunks of ${recordings.length} sessions; stored ${JSON.stringify(stored)}`);
    }
    return { ...stored, flushes: rounds.size };
  } finally {
    await service.close();
  }
}

/** The default flush interval: a block per session per 30 s of recording. */
export const defaultFlushEveryMs = replayFlushIntervalMs;
