// Crash safety of an erasure: a real service process erases a person (POST /internal/erasures)
// while senders go on ingesting other persons' events, and is killed with SIGKILL as soon as
// the job is seen at a kill point (recorded; persons erased; events about to be committed;
// events erased), then started again
// on the same data directory and asked again. The last round lets the erasure complete. Then nothing of the person is left in any file, and every acknowledged
// event of the others is stored exactly once.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService, type ServiceProcess } from "../../helpers/process.ts";
import { crashTestKey } from "../../helpers/crash-rounds.ts";
import { WriteAheadLog } from "../../../storage/wal.ts";
import { EventStore } from "../../../storage/event-store.ts";
import { Database } from "bun:sqlite";
import { filesHolding } from "./erasure-fixture.ts";
import { inputEvent, postReplay, replayBody, replayChunk, replayOk } from "../../ingest/replay/helpers.ts";
import type { RegionErasureReport } from "../../../server/region/erasure/erasure-types.ts";

const crashTestTimeoutMs = 240_000;
const regionSecret = "erasure-crash-secret";
/** Small thresholds: the person's events end up in many parts, segments and WAL files, so the erasure takes long enough to be killed in. */
const storageEnv = { STORAGE_SEAL_ROWS: "200", STORAGE_SEAL_AGE_MS: "20", STORAGE_COMPACT_ROWS: "600", STORAGE_COMPACT_AGE_MS: "50" };
const mark = "vk37p";
const erased = [`anon-${mark}`, `user-${mark}`];
const batchEvents = 40;
const seedBatches = 60;
const senders = 2;
const erasureId = "0193a7c2-7777-7000-8000-000000000001";
const pollDeadlineMs = 60_000;
const pollIntervalMs = 5;

/** The job's finished stages as region.sqlite records them: null before the job is recorded, "report" once it is done. */
function jobStages(db: Database, id: string): string[] | null {
  const row = db.query("SELECT stages_done, report FROM erasures WHERE erasure_id = ?").get(id) as { stages_done: string; report: string | null } | null;
  if (!row) return null;
  return row.report === null ? (JSON.parse(row.stages_done) as string[]) : ["report"];
}

/** Each round but the last is killed as soon as the job is seen this far (the process goes on a little meanwhile: the points vary). */
const killPoints: ((stages: string[] | null, regionDir: string) => boolean)[] = [
  (stages) => stages !== null,
  (stages) => stages?.includes("persons") ?? false,
  // The event store is about to commit its rewrite, or has just: the job has not recorded the stage.
  (_stages, regionDir) => existsSync(join(regionDir, "erasures", `${erasureId}.json`)),
  (stages) => stages?.includes("events") ?? false,
];

async function until(condition: () => boolean, failure: string): Promise<void> {
  const deadline = Date.now() + pollDeadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(failure);
    await Bun.sleep(pollIntervalMs);
  }
}

function batch(key: string, serial: number, withErased: boolean): { uuids: string[]; body: string } {
  const now = new Date().toISOString();
  const events = Array.from({ length: batchEvents }, (_, i) => {
    const theirs = withErased && i % 4 === 0;
    return {
      uuid: Bun.randomUUIDv7(),
      event: i % 3 ? "page_viewed" : "clicked",
      timestamp: now,
      distinct_id: theirs ? erased[serial % 2]! : `keeper-${(serial * 7 + i) % 30}`,
      properties: theirs ? { secret: `value-${mark}-${serial}`, $anon_distinct_id: erased[0] } : { serial, i },
      ...(theirs && serial === 1 ? { event: "$identify" } : {}),
    };
  });
  return { uuids: events.map((event) => event.uuid), body: JSON.stringify({ api_key: key, sent_at: now, batch: events }) };
}

async function post(baseUrl: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

test("SIGKILL at several points of an erasure, then asking again, completes it and loses nothing of anyone else", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-erasure-crash-"));
  const env = { DATA_DIR: dataDir, REGION_SECRET: regionSecret, ...storageEnv };
  const acknowledged = new Set<string>();
  const erasedUuids = new Set<string>();
  let service: ServiceProcess | null = await spawnService(env);
  try {
    const key = await crashTestKey(service, "erasure-crash@example.com");
    for (let serial = 0; serial < seedBatches; serial++) {
      const { uuids, body } = batch(key, serial, true);
      const response = await post(service.url, "/ingest/eu/batch", body);
      expect(response.status).toBe(200);
      const sent = JSON.parse(body).batch as { uuid: string; distinct_id: string }[];
      for (const event of sent) (erased.includes(event.distinct_id) ? erasedUuids : acknowledged).add(event.uuid);
      expect(uuids).toHaveLength(batchEvents);
    }
    // A recording of theirs, still in the replay log when the erasure starts.
    const replay = await postReplay(service.url, replayBody(key, [replayChunk({ distinct_id: erased[1], events: [inputEvent(Date.now() - 5000, `typed-${mark}`)] })]));
    expect([replay.status, replay.body]).toEqual([200, replayOk(1)]);
    const { projectId, dataId } = readRegion(dataDir, (db) => db.query("SELECT project_id AS projectId, data_id AS dataId FROM key_registry").get() as { projectId: string; dataId: number });
    const request = JSON.stringify({
      erasure_id: erasureId, project_id: projectId, data_id: dataId, environment: "production", person_ids: [], distinct_ids: [erased[1]],
    });
    let serial = seedBatches;
    for (const [round, killWhen] of [...killPoints, null].entries()) {
      if (round > 0) service = await spawnService(env);
      const running: ServiceProcess = service!;
      let stopped = false;
      const sender = async () => {
        while (!stopped) {
          const { uuids, body } = batch(key, serial++, false);
          try {
            const response = await post(running.url, "/ingest/eu/batch", body);
            if (response.status === 200) for (const uuid of uuids) acknowledged.add(uuid);
          } catch {
            // Killed with the request under way: not acknowledged, and never counted.
          }
        }
      };
      const sending = Array.from({ length: senders }, sender);
      const erasure = post(running.url, "/region/eu/internal/erasures", request, { "X-Region-Secret": regionSecret });
      if (killWhen) {
        await until(() => killWhen(readRegion(dataDir, (db) => jobStages(db, erasureId)), join(dataDir, "eu")), `round ${round}: the erasure never reached its kill point`);
        stopped = true;
        running.child.kill("SIGKILL");
        await Promise.all([erasure.catch(() => null), ...sending]);
      } else {
        const answer = await erasure;
        expect(answer.status).toBe(200);
        const report = (await answer.json()) as RegionErasureReport;
        expect([report.persons_erased, report.identifier_hashes.length]).toEqual([1, 4]);
        // Counted as an uninterrupted run counts, though rounds were killed after destructive steps.
        const { removed } = report;
        expect({
          events: removed.events_parquet! + removed.events_segments! + removed.events_unsealed!,
          persons: removed.persons, distinct_ids: removed.distinct_ids, replay_sessions: removed.replay_sessions, replay_chunks: removed.replay_chunks,
        }).toEqual({ events: erasedUuids.size, persons: 2, distinct_ids: 2, replay_sessions: 1, replay_chunks: 1 });
        stopped = true;
        await Promise.all(sending);
        running.child.kill("SIGTERM");
      }
      await running.child.exited;
      service = null;
    }

    // Read what is stored as a restart would, compact it all, and look at every file.
    const regionDir = join(dataDir, "eu");
    const wal = await WriteAheadLog.open(join(regionDir, "wal"));
    const store = EventStore.open(regionDir, join(regionDir, "wal"), (position) => wal.truncateUpTo(position));
    await store.flush();
    const counts = new Map<string, number>();
    for (const partition of store.partitions()) for (const row of store.scan(partition.dataId, partition.environment)) counts.set(row.uuid, (counts.get(row.uuid) ?? 0) + 1);
    store.close();
    await wal.close();
    const missing = [...acknowledged].filter((uuid) => !counts.has(uuid));
    const duplicated = [...counts].filter(([, count]) => count > 1);
    const leftOfErased = [...erasedUuids].filter((uuid) => counts.has(uuid));
    expect({ missing, duplicated, leftOfErased }).toEqual({ missing: [], duplicated: [], leftOfErased: [] });
    expect(readRegion(dataDir, (db) => db.query("SELECT distinct_id FROM person_distinct_ids WHERE distinct_id LIKE ?").all(`%${mark}%`))).toEqual([]);
    expect(filesHolding(dataDir, mark)).toEqual([]);
  } finally {
    service?.child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
}, crashTestTimeoutMs);

/** Reads the region's file (read-only: WAL mode lets a reader in while the service runs, and a reader changes nothing). */
function readRegion<T>(dataDir: string, read: (db: Database) => T): T {
  const db = new Database(join(dataDir, "eu", "region.sqlite"), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}
