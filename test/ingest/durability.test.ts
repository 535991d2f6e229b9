// What is acknowledged is on disk: it survives a restart, and a retry after the restart is
// still recognised as a duplicate (the duplicate index is rebuilt from the write-ahead log).
import { expect, test } from "bun:test";
import { startTestService } from "../helpers/service.ts";
import { createProject, signUp } from "../helpers/accounts.ts";
import { call } from "../helpers/client.ts";
import { readStored } from "../helpers/stored-events.ts";

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
      { accepted: 0, rejected: uuids.map((uuid) => ({ uuid, reason: "duplicate" })), quota_limited: [] },
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
