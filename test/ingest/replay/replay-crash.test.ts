// Crash safety of replay ingest: a real server process takes replay chunks from concurrent
// senders while a short flush interval keeps it compacting its replay log into blocks; it is
// killed with SIGKILL at random moments, restarted, and the senders retry what was not
// acknowledged. In the end every acknowledged chunk is in exactly one block, once, and no
// chunk is stored that was never sent.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService } from "../../helpers/process.ts";
import { crashTestKey, runCrashRounds, seededRandom } from "../../helpers/crash-rounds.ts";
import { RegionStore } from "../../../storage/region-store.ts";
import { ReplayStore } from "../../../storage/replay/replay-store.ts";
import { clickEvent, pageStart } from "./helpers.ts";

const rounds = 4;
const crashTestTimeoutMs = 120_000;
const maxFailuresWhileRunning = 20;
const senders = 4;
const chunksPerRequest = 3;
const sessionsMax = 12;
const replayEnv = { REPLAY_FLUSH_INTERVAL_MS: "15" };

const seed = Date.now() % 1_000_000;

/** rrweb's Custom event: the tag names its chunk, so a block's content says which chunks it holds. */
const tagEvent = (timestamp: number, tag: string) => ({ type: 5, timestamp, data: { tag: "chunk", payload: { id: tag } } });

interface Request {
  tags: string[];
  body: string;
}

test(`SIGKILL during replay ingest and compaction loses and duplicates no chunk (seed ${seed})`, async () => {
  const next = seededRandom(seed);
  const dataDir = mkdtempSync(join(tmpdir(), "svc-replay-crash-"));
  const env = { DATA_DIR: dataDir, ...replayEnv };
  const sessions = Array.from({ length: sessionsMax }, () => Bun.randomUUIDv7());
  const nextSeq = new Map<string, number>();
  const acknowledged = new Set<string>();
  const sent = new Set<string>();
  const first = await spawnService(env);
  const key = await crashTestKey(first, "replay-crash@example.com");
  const makeRequest = (): Request => {
    const now = Date.now();
    const chunks = Array.from({ length: chunksPerRequest }, () => {
      const sessionId = sessions[Math.floor(next() * sessions.length)]!;
      const seq = nextSeq.get(sessionId) ?? 0;
      nextSeq.set(sessionId, seq + 1);
      const tag = `${sessionId}:${seq}`;
      return { session_id: sessionId, seq, distinct_id: "crash-user", platform: "web", mode: "dom", events: [...pageStart(now, "https://crash.example/"), clickEvent(now + 1), tagEvent(now + 2, tag)] };
    });
    return { tags: chunks.map((chunk) => `${chunk.session_id}:${chunk.seq}`), body: JSON.stringify({ api_key: key, chunks }) };
  };

  await runCrashRounds<Request>({
    env, first, rounds, senders, killAfterMin: 5, killAfterSpread: 30, failuresWhileRunningMax: maxFailuresWhileRunning, next, makeRequest,
    async deliver(baseUrl, request) {
      for (const tag of request.tags) sent.add(tag);
      const response = await fetch(`${baseUrl}/ingest/eu/r`, { method: "POST", headers: { "content-type": "application/json" }, body: request.body });
      const reply = (await response.json()) as { accepted: number; rejected: { reason: string }[]; sampled_out: string[] };
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      expect({ rejected: reply.rejected.filter((rejection) => rejection.reason !== "duplicate"), sampled_out: reply.sampled_out }).toEqual({ rejected: [], sampled_out: [] });
      for (const tag of request.tags) acknowledged.add(tag);
    },
  });

  // Open the region's store as a restart would, compact what the log still holds, and count each chunk's tag in the blocks.
  const regionDir = join(dataDir, "eu");
  const regionStore = new RegionStore(join(regionDir, "region.sqlite"));
  const replays = await ReplayStore.open(regionDir, regionStore.replays, regionStore.journalPath);
  try {
    const projectId = regionStore.replays.projects()[0]!;
    const blockCount = () => sessions.reduce((sum, sessionId) => sum + regionStore.replays.blocks(projectId, "production", sessionId).length, 0);
    // The running servers compacted (the kills hit flushes too), not only this final flush.
    expect(blockCount()).toBeGreaterThan(rounds);
    await replays.flush();
    const counts = new Map<string, number>();
    for (const sessionId of sessions) {
      const session = regionStore.replays.session(projectId, "production", sessionId);
      if (!session) continue;
      for (const block of regionStore.replays.blocks(projectId, "production", sessionId)) {
        const body = JSON.parse(new TextDecoder().decode(Bun.zstdDecompressSync(await Bun.file(replays.blockPath(session.dataId, "production", sessionId, block.name)).bytes())));
        for (const event of body.events) if (event.type === 5) counts.set(event.data.payload.id, (counts.get(event.data.payload.id) ?? 0) + 1);
      }
    }
    const missing = [...acknowledged].filter((tag) => !counts.has(tag));
    const duplicated = [...counts].filter(([, count]) => count > 1);
    const unknown = [...counts.keys()].filter((tag) => !sent.has(tag));
    expect({ missing, duplicated, unknown }).toEqual({ missing: [], duplicated: [], unknown: [] });
    expect(acknowledged.size).toBeGreaterThan(rounds * 5 * chunksPerRequest);
  } finally {
    await replays.close();
    regionStore.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, crashTestTimeoutMs);
