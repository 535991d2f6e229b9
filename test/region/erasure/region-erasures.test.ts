// An erasure through the region link over a region seeded over real HTTP (erasure-fixture.ts):
// the person is gone from every file, store and cache, the others' data is intact, the report
// counts exactly what went, and asking again answers the same report.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { regionTokenFor } from "../../helpers/accounts.ts";
import { call, isoPattern } from "../../helpers/client.ts";
import { readStored } from "../../helpers/stored-events.ts";
import { nativeEvent, sendAccepted } from "../../ingest/helpers.ts";
import { quarantineDir, quarantinePath } from "../../../storage/event-store.ts";
import { sha256Hex } from "../../../server/crypto.ts";
import { erasureStages } from "../../../server/region/erasure/region-erasures.ts";
import type { RegionErasureReport, RegionErasureRequest } from "../../../server/region/erasure/erasure-types.ts";
import { cohortId, erasedMark, erasee, eventTotals, filesHolding, keepers, regionCall, seedRegion, type Seeded } from "./erasure-fixture.ts";

const regionSecret = "erasure-test-secret";
let service: TestService;
let seeded: Seeded;

beforeAll(async () => {
  service = await startTestService({ REGION_SECRET: regionSecret, REPLAY_FLUSH_INTERVAL_MS: "0" });
  seeded = await seedRegion(service);
});
afterAll(async () => {
  await service.close();
});

const link = () => service.ctx.regions.get("eu")!;
const request = (overrides: Partial<RegionErasureRequest> = {}): RegionErasureRequest => ({
  erasure_id: "0193a7c2-6666-7000-8000-000000000001",
  project_id: seeded.projectId,
  data_id: seeded.dataId,
  environment: "production",
  person_ids: [],
  distinct_ids: [erasee.user],
  ...overrides,
});
const hash = (kind: string, id: string) => sha256Hex(`${seeded.projectId}:${kind}:${id}`);

describe("an erasure through the region link", () => {
  let report: RegionErasureReport;
  let before: { events: number; persons: number };
  let oldPersonIds: string[];

  test("removes the person from every store and counts exactly what went", async () => {
    before = await eventTotals(service, seeded);
    expect(before).toEqual({ events: seeded.erasedEvents.length + seeded.keptEvents.length, persons: 4 });
    const node = service.nodes.get("eu")!;
    oldPersonIds = [seeded.erasedPersonId, node.store.directory.personOf(seeded.projectId, erasee.user)!.id];
    const anonymous = node.store.directory.person(seeded.projectId, node.store.directory.indexesOf(seeded.projectId, node.store.directory.personOf(seeded.projectId, erasee.user)!.index)[1]!)!;
    // The search finds the person wherever they are before: the region's file, the WAL, Parquet, a segment, the replay log and block.
    expect(filesHolding(service.dataDir, erasedMark).map((path) => `${path.split("/").slice(0, 2).join("/")} ${path.slice(path.lastIndexOf("."))}`)).toEqual([
      "eu/parquet .parquet", "eu/quarantine .record", "eu/region.sqlite-wal .sqlite-wal", "eu/replays .zst", "eu/replays .log", "eu/segments .arrows", "eu/wal .log",
    ]);
    // An Ask turn in the project: the erasure deletes the project's conversations (two messages).
    const asker = { projectId: seeded.projectId, environment: "production", userId: "0193a7c2-7777-7000-8000-000000000001" };
    const answer = { content: "One person did it.", query: null, sql: "SELECT 1", result: { rows: [[1]] }, resultTruncated: false, steps: [], model: "m" };
    expect(node.store.askConversations.addTurn(asker, null, `what did ${erasee.user} do?`, answer, new Date())).not.toBeNull();
    const cachesBefore = service.ctx.cacheStats();
    const stages: string[] = [];
    report = await link().erase(request(), (stage, done, total) => stages.push(`${stage} ${done}/${total}`));
    expect(stages).toEqual([...erasureStages.map((stage, done) => `${stage} ${done}/${erasureStages.length}`), `report ${erasureStages.length}/${erasureStages.length}`]);
    expect(report).toEqual({
      erasure_id: request().erasure_id,
      identifier_hashes: [
        hash("distinct_id", erasee.anon), hash("distinct_id", erasee.user), hash("person_id", seeded.erasedPersonId), hash("person_id", anonymous.id),
      ].sort(),
      persons_erased: 1,
      removed: {
        events_parquet: 3, events_segments: 2, events_unsealed: 1, wal_records: 1, quarantined_records: 1, persons: 2, distinct_ids: 2, merges: 2, group_links: 2,
        cohort_memberships: 1, replay_sessions: 1, replay_chunks: 2, ingestion_warning_examples: 1, live_events: 6,
        cache_entries: cachesBefore.columns.entries + cachesBefore.results.entries,
        ask_messages: 2,
      },
      manifest_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      completed_at: expect.stringMatching(isoPattern),
    });
    expect(report.identifier_hashes.join("")).not.toContain(erasedMark);
    expect(node.store.askConversations.list(asker)).toEqual([]);
    expect(service.ctx.cacheStats().results.entries).toBe(0);
    // The keeper's quarantined record stays.
    expect(readdirSync(join(node.dataDir, quarantineDir))).toEqual([basename(quarantinePath({ file: 1, offset: 2 }))]);
  });

  test("asked again, by the link or the internal route, the region answers the same report", async () => {
    expect(await link().erase(request())).toEqual(report);
    const remote = await call(service.url, "POST", "/region/eu/internal/erasures", { headers: { "X-Region-Secret": regionSecret }, body: request() });
    expect([remote.status, remote.body]).toEqual([200, report]);
    const unauthorised = await call(service.url, "POST", "/region/eu/internal/erasures", { headers: { "X-Region-Secret": "wrong" }, body: request() });
    expect([unauthorised.status, unauthorised.body]).toEqual([401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }]);
  });

  test("queries no longer count the person; the others' events, persons and memberships are intact", async () => {
    expect(await eventTotals(service, seeded)).toEqual({ events: before.events - seeded.erasedEvents.length, persons: before.persons - 1 });
    const reader = await regionTokenFor(service, seeded.patSecret, seeded.projectId, ["persons:read", "persons.pii"]);
    const persons = await regionCall(service, "GET", "/persons", reader);
    expect(persons.body.results.map((person: any) => person.distinct_ids).sort()).toEqual(keepers.map((id) => [id]));
    expect(persons.body.results.find((person: any) => person.distinct_ids[0] === keepers[0]).properties).toEqual({ email: "keep.a@example.org" });
    for (const id of oldPersonIds) expect((await regionCall(service, "GET", `/persons/${id}`, reader)).status).toBe(404);
    const membership = service.nodes.get("eu")!.store.cohorts.membership(seeded.projectId, "production", cohortId)!;
    expect([membership.size, [...membership.members]]).toEqual([1, [service.nodes.get("eu")!.store.directory.personOf(seeded.projectId, keepers[0]!)!.index]]);
    const live = service.nodes.get("eu")!.live.list(seeded.projectId, "production", { events: null, distinctIds: null, properties: [] }, 100, true);
    expect(live.events.map((event) => event.uuid).sort()).toEqual(seeded.keptEvents.map((event) => event.uuid).sort());
  });

  test("after a compaction and a restart no file holds anything of the person; new events of the erased id make a new person", async () => {
    const node = service.nodes.get("eu")!;
    await node.events.flush();
    await node.maintainReplays();
    service = await service.restart();
    expect(filesHolding(service.dataDir, erasedMark)).toEqual([]);
    expect(await eventTotals(service, seeded)).toEqual({ events: before.events - seeded.erasedEvents.length, persons: before.persons - 1 });
    await sendAccepted(service.url, seeded.key, [nativeEvent({ distinct_id: erasee.user, event: "back", properties: {} })]);
    const reader = await regionTokenFor(service, seeded.patSecret, seeded.projectId, ["persons:read", "persons.pii"]);
    const person = await regionCall(service, "GET", `/persons?search=${erasee.user}`, reader);
    expect(person.body.results).toHaveLength(1);
    expect(person.body.results[0]).toMatchObject({ distinct_ids: [erasee.user], properties: {}, is_identified: false });
    expect(oldPersonIds).not.toContain(person.body.results[0].id);
  });

  test("the others' stored events are exactly those sent", async () => {
    await service.stop();
    const stored = (await readStored(service.dataDir)).flatMap((partition) => partition.events);
    rmSync(service.dataDir, { recursive: true, force: true });
    const kept = new Map(seeded.keptEvents.map((event) => [event.uuid, event]));
    const others = stored.filter((event) => event.distinct_id !== erasee.user);
    expect(others.map((event) => event.uuid).sort()).toEqual([...kept.keys()].sort());
    for (const event of others) expect([event.event, event.distinct_id]).toEqual([kept.get(event.uuid)!.event, kept.get(event.uuid)!.distinct_id]);
    service = { ...service, close: async () => {} };
  });
});
