// A retry that races its original (same uuids while the original's WAL write is under way) is
// answered by the original's outcome: `duplicate` only once that write is durable, 503 when it
// fails, so no event is called stored that was not.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestEvents, type IngestResponse } from "../../server/ingest/capture.ts";
import { RegionNode } from "../../server/region/region-node.ts";
import { DatacenterRanges } from "../../server/ingest/datacenter-ip.ts";
import { ApiError } from "../../server/http/errors.ts";
import { defaultStorageTuning } from "../../storage/event-store.ts";
import type { RegistryKey } from "../../storage/region-store.ts";
import { canMountTinyFs, fillDisk, tinyFsSkipReason, withTinyFs } from "../helpers/tiny-fs.ts";
import { readStored } from "../helpers/stored-events.ts";
import { duplicate, nativeEvent, nativeEvents, ok, storedEvents, type NativeEvent } from "./helpers.ts";

describe("a retry racing its original", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const projectId = "0193a1b2-0000-7000-8000-00000000000a";
  const key: RegistryKey = {
    key: "svc_pk_race", keyId: "k1", projectId, dataId: 1, environment: "production",
    allowedOrigins: [], allowedBundleIds: [], revokedAt: null, retentionDays: 365, timeZone: "UTC",
  };
  const meta = { ip: null, userAgent: null };
  const submit = (node: RegionNode, batch: NativeEvent[]) =>
    ingestEvents(node, key, { batch, body: new TextEncoder().encode(JSON.stringify({ batch })), sentAt: null, receivedAt: Date.now(), meta });
  /** What an ingest call ended with: its answer, or the status and message of the error it threw. */
  const outcome = (call: Promise<IngestResponse>): Promise<Record<string, unknown>> =>
    call.then(
      (reply) => ({ reply }),
      (error: unknown) => (error instanceof ApiError ? { status: error.status, message: error.message } : { thrown: String(error) }),
    );

  /** Region eu of the data directory `dataDir`, as the service lays it out. */
  async function openNode(dataDir: string): Promise<RegionNode> {
    const node = await RegionNode.open("eu", join(dataDir, "eu"), defaultStorageTuning, DatacenterRanges.parse([]), 0);
    node.store.upsertKeys([key]);
    return node;
  }

  test("is answered `duplicate` once the original's write is durable", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "race-"));
    dirs.push(dataDir);
    const node = await openNode(dataDir);
    const batch = nativeEvents(2);
    // Both start in one turn of the event loop: the retry runs while the original awaits its fsync.
    const [original, retry] = await Promise.all([outcome(submit(node, batch)), outcome(submit(node, [...batch, ...nativeEvents(1)]))]);
    expect([original, retry]).toEqual([
      { reply: ok(2) },
      { reply: ok(1, batch.map((event) => duplicate(event.uuid!))) },
    ]);
    await node.close();
  });

  test.skipIf(!canMountTinyFs)(`is answered 503 when the original's write fails, and both are stored once space returns (${tinyFsSkipReason})`, async () => {
    await withTinyFs(16 * 1024, async (dir) => {
      const dataDir = join(dir, "data");
      const node = await openNode(dataDir);
      // Persons known beforehand, so nothing fails before the WAL write, which the retry comes in
      // behind; events larger than the slack left in the log file's last page, so it does fail.
      const earlier = nativeEvents(2);
      expect(await outcome(submit(node, earlier))).toEqual({ reply: ok(2) });
      const batch = earlier.map((event) => nativeEvent({ distinct_id: event.distinct_id, properties: { note: "x".repeat(16 * 1024) } }));
      expect(fillDisk(join(dir, "ballast"))).toBeGreaterThan(0);
      const unavailable = { status: 503, message: "storage cannot accept writes right now" };
      const [original, retry] = await Promise.all([outcome(submit(node, batch)), outcome(submit(node, batch))]);
      expect([original, retry]).toEqual([unavailable, unavailable]);

      truncateSync(join(dir, "ballast"), 0);
      expect(await outcome(submit(node, batch))).toEqual({ reply: ok(2) });
      await node.close();
      expect(storedEvents(await readStored(dataDir), projectId).map((event) => event.uuid)).toEqual([...earlier, ...batch].map((event) => event.uuid));
    });
  });

  test.skipIf(!canMountTinyFs)(`is answered 503 when, while it waits, the original fails and a second retry puts the uuids back (${tinyFsSkipReason})`, async () => {
    await withTinyFs(16 * 1024, async (dir) => {
      const dataDir = join(dir, "data");
      const node = await openNode(dataDir);
      const earlier = nativeEvents(3);
      expect(await outcome(submit(node, earlier))).toEqual({ reply: ok(3) });
      const large = (event: NativeEvent) => nativeEvent({ distinct_id: event.distinct_id, properties: { note: "x".repeat(16 * 1024) } });
      const batch = earlier.slice(0, 2).map(large);
      const other = [large(earlier[2]!)];
      expect(fillDisk(join(dir, "ballast"))).toBeGreaterThan(0);
      const unavailable = { status: 503, message: "storage cannot accept writes right now" };

      // The original's write is in flight; another request's write queues behind it, and the
      // retry waits for both. The second retry comes right after the original fails, before
      // the other write is done: it finds the uuids gone from the index and takes them again.
      let secondRetry: Promise<Record<string, unknown>> | undefined;
      const original = outcome(submit(node, batch).finally(() => (secondRetry = outcome(submit(node, batch)))));
      const otherRequest = outcome(submit(node, other));
      const retry = outcome(submit(node, batch));
      expect([await original, await otherRequest, await retry, await secondRetry]).toEqual([unavailable, unavailable, unavailable, unavailable]);
      await node.close();
      expect(storedEvents(await readStored(dataDir), projectId).map((event) => event.uuid)).toEqual(earlier.map((event) => event.uuid));
    });
  });
});
