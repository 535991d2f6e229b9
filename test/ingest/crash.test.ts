// Crash safety under load: a real server process ingests from several concurrent senders
// while tiny thresholds keep it sealing and compacting; it is killed with SIGKILL at random
// moments, restarted, and the senders retry what was not acknowledged. In the end every
// acknowledged uuid is stored exactly once, and every batch is stored whole or not at all.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService } from "../helpers/process.ts";
import { crashTestKey, runCrashRounds, seededRandom } from "../helpers/crash-rounds.ts";
import { WriteAheadLog } from "../../storage/wal.ts";
import { EventStore } from "../../storage/event-store.ts";

const rounds = 5;
const crashTestTimeoutMs = 120_000;
const maxFailuresWhileRunning = 20;
const senders = 4;
const batchEvents = 40;
const storageEnv = { STORAGE_SEAL_ROWS: "300", STORAGE_SEAL_AGE_MS: "20", STORAGE_COMPACT_ROWS: "900", STORAGE_COMPACT_AGE_MS: "50" };

const seed = Date.now() % 1_000_000;

interface Batch {
  uuids: string[];
  body: string;
}

function makeBatch(key: string, serial: number): Batch {
  const now = new Date().toISOString();
  const events = Array.from({ length: batchEvents }, (_, i) => ({
    uuid: Bun.randomUUIDv7(),
    event: i % 3 ? "page_viewed" : "clicked",
    timestamp: now,
    distinct_id: `user-${(serial * 7 + i) % 50}`,
    properties: { serial, i, plan: i % 2 ? "pro" : "free" },
    lib: { name: "crash-test", version: "1.0.0" },
  }));
  return { uuids: events.map((event) => event.uuid), body: JSON.stringify({ api_key: key, sent_at: now, batch: events }) };
}

test(`SIGKILL during sustained ingest, sealing and compaction loses and duplicates nothing (seed ${seed})`, async () => {
  const next = seededRandom(seed);
  const dataDir = mkdtempSync(join(tmpdir(), "svc-crash-"));
  const env = { DATA_DIR: dataDir, ...storageEnv };
  const acknowledged = new Set<string>();
  const sent = new Set<string>();
  let serial = 0;
  const first = await spawnService(env);
  const key = await crashTestKey(first, "crash@example.com");
  const unacknowledged = await runCrashRounds<Batch>({
    env, first, rounds, senders, killAfterMin: 5, killAfterSpread: 40, failuresWhileRunningMax: maxFailuresWhileRunning, next,
    makeRequest: () => makeBatch(key, serial++),
    async deliver(baseUrl, batch) {
      for (const uuid of batch.uuids) sent.add(uuid);
      const response = await fetch(`${baseUrl}/ingest/eu/batch`, { method: "POST", headers: { "content-type": "application/json" }, body: batch.body });
      const reply = (await response.json()) as { accepted: number; rejected: { uuid: string; reason: string }[] };
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      expect(reply.rejected.filter((rejection) => rejection.reason !== "duplicate")).toEqual([]);
      for (const uuid of batch.uuids) acknowledged.add(uuid);
    },
  });

  // Read what is stored exactly as a restart would, then compact everything.
  const regionDir = join(dataDir, "eu");
  const wal = await WriteAheadLog.open(join(regionDir, "wal"));
  try {
    const store = EventStore.open(regionDir, join(regionDir, "wal"), (position) => wal.truncateUpTo(position));
    const [partition] = store.partitions();
    const countStored = () => {
      const counts = new Map<string, number>();
      for (const row of store.scan(partition!.dataId, partition!.environment)) counts.set(row.uuid, (counts.get(row.uuid) ?? 0) + 1);
      return counts;
    };
    for (const counts of [countStored(), (await store.flush(), countStored())]) {
      const missing = [...acknowledged].filter((uuid) => !counts.has(uuid));
      const duplicated = [...counts].filter(([, count]) => count > 1);
      const unknown = [...counts.keys()].filter((uuid) => !sent.has(uuid));
      expect({ missing, duplicated, unknown }).toEqual({ missing: [], duplicated: [], unknown: [] });
      // A batch that was never acknowledged is stored whole or not at all.
      for (const batch of unacknowledged) {
        const stored = batch.uuids.filter((uuid) => counts.has(uuid)).length;
        expect([0, batch.uuids.length]).toContain(stored);
      }
    }
    expect(acknowledged.size).toBeGreaterThan(rounds * 5 * batchEvents);
    expect(store.liveFiles().parts.length).toBeGreaterThan(0);
  } finally {
    await wal.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, crashTestTimeoutMs);
