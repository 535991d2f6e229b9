// What is acknowledged is on disk: it survives a restart, and a retry after the restart is
// still recognised as a duplicate (the duplicate index is rebuilt from the write-ahead log).
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { startTestService } from "../helpers/service.ts";
import { WriteAheadLog } from "../../storage/wal.ts";
import { encodeBatchRecord } from "../../storage/event-record.ts";
import { quarantineDir } from "../../storage/event-store.ts";
import { createProject, signUp } from "../helpers/accounts.ts";
import { call } from "../helpers/client.ts";
import { readStored } from "../helpers/stored-events.ts";
import { duplicate } from "./helpers.ts";

const event = (uuid: string) => ({
  uuid,
  event: "checkout",
  timestamp: new Date().toISOString(),
  distinct_id: "user-42",
  properties: { step: 3 },
  lib: { name: "test", version: "1.0.0" },
});

test("acknowledged events survive a restart and their retries are duplicates afterwards", async () => {
  let service = await startTestService();
  try {
    const owner = await signUp(service);
    const { project, public_keys } = await createProject(owner);
    const key = public_keys[0].key;
    const uuids = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
    const body = { api_key: key, sent_at: new Date().toISOString(), batch: uuids.map(event) };
    const first = await call(service.url, "POST", "/ingest/eu/batch", { body });
    expect([first.status, first.body]).toEqual([200, { accepted: 2, rejected: [], quota_limited: [] }]);

    service = await service.restart();
    const retry = await call(service.url, "POST", "/ingest/eu/batch", { body });
    expect([retry.status, retry.body]).toEqual([
      200,
      { accepted: 0, rejected: uuids.map(duplicate), quota_limited: [] },
    ]);

    await service.stop();
    const records = await readStored(service.dataDir);
    expect(records).toHaveLength(1);
    expect(records[0]!.project_id).toBe(project.id);
    expect(records[0]!.events.map((stored) => stored.uuid)).toEqual(uuids);
  } finally {
    await service.close().catch(() => {});
  }
});

test("a WAL record storage cannot read is set aside at start: the region starts, stores the rest, and /health says so until it is moved away", async () => {
  let service = await startTestService();
  try {
    const owner = await signUp(service);
    const { project, public_keys } = await createProject(owner);
    const key = public_keys[0].key;
    const send = async (uuid: string) => {
      const reply = await call(service.url, "POST", "/ingest/eu/batch", { body: { api_key: key, sent_at: new Date().toISOString(), batch: [event(uuid)] } });
      expect([reply.status, reply.body]).toEqual([200, { accepted: 1, rejected: [], quota_limited: [] }]);
    };
    const uuids = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
    await send(uuids[0]!);
    await service.stop();

    // What only a bug could log: a record whose request text is not JSON.
    const regionDir = join(service.dataDir, "eu");
    const wal = await WriteAheadLog.open(join(regionDir, "wal"));
    await wal.append(encodeBatchRecord({
      projectId: project.id, dataId: 1, environment: "production", receivedAt: Date.now(), locations: [], groupTypes: {},
      events: [{ index: 0, timestamp: Date.now(), sampleRate: 1, isSuspect: false, personIndex: 0, location: 0 }],
      body: new TextEncoder().encode("{\"batch\": [{"),
    }));
    await wal.close();

    service = await startTestService({}, { dataDir: service.dataDir });
    await send(uuids[1]!);
    const quarantine = join(regionDir, quarantineDir);
    const degraded = await call(service.url, "GET", "/region/eu/health");
    expect([degraded.status, degraded.body]).toEqual([
      503,
      { status: "degraded", checks: { "region:eu": `error: storage could not store 1 WAL record(s); they are kept in ${quarantine} (see the log)` } },
    ]);
    // An operator moves the record away (to look at it): the region is healthy again.
    mkdirSync(join(service.dataDir, "looked-at"));
    for (const name of readdirSync(quarantine)) renameSync(join(quarantine, name), join(service.dataDir, "looked-at", name));
    const healthy = await call(service.url, "GET", "/region/eu/health");
    expect([healthy.status, healthy.body]).toEqual([200, { status: "ok", checks: { "region:eu": "ok" } }]);

    await service.stop();
    const records = await readStored(service.dataDir);
    expect(records.map((record) => [record.project_id, record.events.map((stored) => stored.uuid)])).toEqual([[project.id, uuids]]);
  } finally {
    await service.close().catch(() => {});
  }
});
