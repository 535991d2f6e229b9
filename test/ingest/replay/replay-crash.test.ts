// Crash safety of replay ingest: a real server process takes replay chunks from concurrent
// senders while a short flush interval keeps it compacting its replay log into blocks; it is
// killed with SIGKILL at random moments, restarted, and the senders retry what was not
// acknowledged. In the end every acknowledged chunk is in exactly one block, once, and no
// chunk is stored that was never sent.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService, type ServiceProcess } from "../../helpers/process.ts";
import { ConsoleClient } from "../../helpers/client.ts";
import { strongPassword } from "../../helpers/accounts.ts";
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

function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 0x1_0000_0000;
  };
}
const seed = Date.now() % 1_000_000;

/** rrweb's Custom event: the tag names its chunk, so a block's content says which chunks it holds. */
const tagEvent = (timestamp: number, tag: string) => ({ type: 5, timestamp, data: { tag: "chunk", payload: { id: tag } } });

interface Request {
  tags: string[];
  body: string;
}

test(`SIGKILL during replay ingest and compaction loses and duplicates no chunk (seed ${seed})`, async () => {
  const next = random(seed);
  const dataDir = mkdtempSync(join(tmpdir(), "svc-replay-crash-"));
  const env = { DATA_DIR: dataDir, ...replayEnv };
  const sessions = Array.from({ length: sessionsMax }, () => Bun.randomUUIDv7());
  const nextSeq = new Map<string, number>();
  const acknowledged = new Set<string>();
  const sent = new Set<string>();
  let unacknowledged: Request[] = [];
  let service: ServiceProcess | null = await spawnService(env);
  let key = "";

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

  try {
    const owner = new ConsoleClient(service.url);
    const signup = await owner.post("/app/auth/signup", { email: "replay-crash@example.com", name: "Crash", password: strongPassword });
    const project = await owner.post(`/app/orgs/${signup.body.orgs[0].id}/projects`, { name: "Crash", region: "eu" });
    key = project.body.public_keys[0].key;

    for (let round = 0; round < rounds; round++) {
      if (round > 0) service = await spawnService(env);
      const url = `${service!.url}/ingest/eu/r`;
      const retries = unacknowledged;
      unacknowledged = [];
      let acknowledgedRequests = 0;
      const killAfter = 5 + Math.floor(next() * 30);
      let killed = false;
      let failuresWhileRunning = 0;
      let lastFailure = "";

      const send = async (request: Request) => {
        for (const tag of request.tags) sent.add(tag);
        try {
          const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: request.body });
          const reply = (await response.json()) as { accepted: number; rejected: { reason: string }[]; sampled_out: string[] };
          if (response.status !== 200) throw new Error(`status ${response.status}`);
          expect({ rejected: reply.rejected.filter((rejection) => rejection.reason !== "duplicate"), sampled_out: reply.sampled_out }).toEqual({ rejected: [], sampled_out: [] });
          for (const tag of request.tags) acknowledged.add(tag);
          acknowledgedRequests++;
        } catch (error) {
          if (!killed) {
            failuresWhileRunning++;
            lastFailure = String(error);
          }
          unacknowledged.push(request);
        }
      };
      const sender = async () => {
        while (!killed) {
          if (failuresWhileRunning > maxFailuresWhileRunning) {
            killed = true;
            service!.child.kill("SIGKILL");
            throw new Error(`round ${round}: the running server refused ${failuresWhileRunning} requests; last: ${lastFailure}`);
          }
          await send(retries.pop() ?? makeRequest());
          if (!killed && acknowledgedRequests >= killAfter) {
            killed = true;
            service!.child.kill("SIGKILL");
          }
        }
      };
      await Promise.all(Array.from({ length: senders }, sender));
      await service!.child.exited;
      service = null;
    }
  } finally {
    if (service) {
      service.child.kill("SIGKILL");
      await service.child.exited;
    }
  }

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
