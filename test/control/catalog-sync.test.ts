// POST …/catalog/sync over real HTTP, from real ingest (spec 1, States and transitions: a planned
// event the region has seen becomes implemented, a name unknown to the catalog becomes
// unplanned; docs/catalog.md, "Sync"): every transition of the table, the figures it fills, the
// properties it adds to unplanned events only, versions, environments and days, dry runs, the
// audit log, the events-per-catalog limit, and a busy region answering 503.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { isoPattern, type Reply } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted } from "../ingest/helpers.ts";
import { catalogEventsMax } from "../../server/control/catalog/catalog-events.ts";
import { concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";
import { discoveryDaysMax } from "../../server/region/catalog-discovery.ts";

let service: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Sync owner");
});
afterAll(() => service.close());

const dayMs = 86_400_000;
/** Two days ago at 09:00 UTC plus `minutes`, in whole seconds. */
const at = (minutes: number) => Date.parse(`${new Date(Date.now() - 2 * dayMs).toISOString().slice(0, 10)}T09:00:00Z`) + minutes * 60_000;
const iso = (epochMs: number) => new Date(epochMs).toISOString();
const time = expect.stringMatching(isoPattern);

interface Project {
  id: string;
  path: string;
  keys: Record<string, string>;
}

async function project(name: string): Promise<Project> {
  const created = await createProject(owner, name);
  return {
    id: created.project.id,
    path: `/app/projects/${created.project.id}/catalog`,
    keys: Object.fromEntries(created.public_keys.map((key: { environment: string; key: string }) => [key.environment, key.key])),
  };
}

const send = (target: Project, events: [name: string, minutes: number, properties: Record<string, unknown>][], environment = "production") =>
  sendAccepted(service.url, target.keys[environment]!, events.map(([event, minutes, properties]) => nativeEvent({ event, timestamp: rfc3339(at(minutes)), properties })));

async function plan(target: Project, body: Record<string, unknown>) {
  const reply = await owner.client.post(`${target.path}/events`, body);
  expect([reply.status, reply.body.error]).toEqual([201, undefined]);
  return reply.body;
}

const sync = (target: Project, body?: unknown, query = ""): Promise<Reply> => owner.client.post(`${target.path}/sync${query}`, body);
const events = async (target: Project): Promise<Record<string, any>> =>
  Object.fromEntries((await owner.client.get(`${target.path}/events`)).body.events.map((event: any) => [event.name, event]));
const settings = async (target: Project) => (await owner.client.get(`${target.path}/settings`)).body;

const observed = (eventId: string, name: string, type: string, example: string | null) => ({
  id: expect.any(String), name, type, pii: false, required: false, scope: "event", description: null, enum_values: null, event_id: eventId, example,
});

describe("the spec's transitions, through ingest", () => {
  let target: Project;
  let before: Record<string, any>;
  let first: Reply;

  beforeAll(async () => {
    target = await project("Sync");
    await plan(target, { name: "signed_up", properties: [{ name: "plan", type: "string", required: true, enum_values: ["free", "pro"] }] });
    await plan(target, { name: "never_sent" });
    await plan(target, { name: "purchase", status: "implemented" });
    const legacy = await plan(target, { name: "legacy", status: "implemented" });
    await owner.client.patch(`${target.path}/events/${legacy.id}`, { status: "deprecated" });
    before = await events(target);
    await send(target, [
      ["signed_up", 0, { plan: "pro", referrer: "mail" }],
      ["signed_up", 30, { plan: "free" }],
      ["purchase", 10, { amount: 1200 }],
      ["legacy", 20, {}],
      ["brand_new", 5, { count: 3, label: "<b>x</b>", flag: true, mixed: 1 }],
      ["brand_new", 6, { mixed: "one" }],
      ["$pageview", 7, { $current_url: "https://example.com/" }],
    ]);
    first = await sync(target);
  });

  test("the answer lists what it saw, what became implemented and what was created unplanned", () => {
    expect([first.status, first.body]).toEqual([200, {
      discovered: 5, environment: "production", implemented: ["signed_up"], unplanned: ["$pageview", "brand_new"], updated: 5, synced_at: time,
    }]);
  });

  test("a planned event the region has seen becomes implemented, with its figures, a new version and its planned properties only", async () => {
    const after = await events(target);
    expect(after.signed_up).toEqual({
      ...before.signed_up, status: "implemented", version: 2, updated_at: first.body.synced_at, volume_30d: 2, first_seen_at: iso(at(0)), last_seen_at: iso(at(30)),
    });
  });

  test("a name unknown to the catalog becomes an unplanned event with the properties observed on it", async () => {
    const after = await events(target);
    const brandNew = after.brand_new;
    expect(brandNew).toEqual({
      id: expect.any(String), project_id: target.id, name: "brand_new", kind: "custom", status: "unplanned", pii_level: "none", platforms: [], tags: [],
      properties: [
        observed(brandNew.id, "mixed", "any", "1"),
        observed(brandNew.id, "count", "number", "3"),
        observed(brandNew.id, "flag", "boolean", "true"),
        observed(brandNew.id, "label", "string", "<b>x</b>"),
      ],
      version: 1, volume_30d: 2, created_at: first.body.synced_at, updated_at: first.body.synced_at, description: null, display_name: null,
      first_seen_at: iso(at(5)), last_seen_at: iso(at(6)), owner_id: null, question: null,
    });
    expect(after.$pageview).toMatchObject({ name: "$pageview", kind: "pageview", status: "unplanned", version: 1, volume_30d: 1 });
    expect(after.$pageview.properties.map((property: any) => [property.name, property.type, property.example])).toEqual([["$current_url", "string", "https://example.com/"]]);
  });

  test("seen events in other statuses keep them and get their figures only (no new version); unseen events are untouched", async () => {
    const after = await events(target);
    expect(after.purchase).toEqual({ ...before.purchase, volume_30d: 1, first_seen_at: iso(at(10)), last_seen_at: iso(at(10)) });
    expect(after.legacy).toEqual({ ...before.legacy, volume_30d: 1, first_seen_at: iso(at(20)), last_seen_at: iso(at(20)) });
    expect(after.never_sent).toEqual(before.never_sent);
  });

  test("the sync raised the catalog version once (five changes by hand made it 5) and recorded when it ran", async () => {
    expect(await settings(target)).toEqual({ project_id: target.id, catalog_version: 6, warn_on_violations: false, synced_at: first.body.synced_at, region_synced: true });
  });

  test("a later sync adds new observed properties to unplanned events, keeps the earliest first_seen_at, and raises versions only for plan changes", async () => {
    await send(target, [["brand_new", 1, { extra: "e" }], ["brand_new", 40, { count: 4 }], ["signed_up", 50, { plan: "pro" }]]);
    const second = await sync(target, {});
    expect([second.status, second.body]).toEqual([200, { discovered: 5, environment: "production", implemented: [], unplanned: [], updated: 2, synced_at: time }]);
    const after = await events(target);
    expect(after.brand_new).toMatchObject({ version: 2, volume_30d: 4, first_seen_at: iso(at(1)), last_seen_at: iso(at(40)), updated_at: second.body.synced_at });
    expect(after.brand_new.properties.map((property: any) => [property.name, property.type])).toEqual([["mixed", "any"], ["count", "number"], ["flag", "boolean"], ["label", "string"], ["extra", "string"]]);
    expect(after.signed_up).toMatchObject({ version: 2, volume_30d: 3, last_seen_at: iso(at(50)) });
    expect((await settings(target)).catalog_version).toBe(7);
    const third = await sync(target);
    expect([third.status, third.body]).toEqual([200, { discovered: 5, environment: "production", implemented: [], unplanned: [], updated: 0, synced_at: time }]);
    expect(await settings(target)).toEqual({ project_id: target.id, catalog_version: 7, warn_on_violations: false, synced_at: third.body.synced_at, region_synced: true });
  });

  test("an unplanned event can be adopted as implemented or deprecated by hand, never planned or verified", async () => {
    const unplanned = (await events(target)).$pageview;
    for (const status of ["planned", "verified"]) {
      const refused = await owner.client.patch(`${target.path}/events/${unplanned.id}`, { status });
      expect([refused.status, refused.body]).toEqual([400, { error: { code: "validation", message: `status cannot change from unplanned to ${status}; an unplanned event can become implemented or deprecated` } }]);
    }
    const adopted = await owner.client.patch(`${target.path}/events/${unplanned.id}`, { status: "implemented", description: "Page views" });
    expect([adopted.status, adopted.body]).toEqual([200, { ...unplanned, status: "implemented", description: "Page views", version: 2, updated_at: time }]);
    const dropped = await owner.client.patch(`${target.path}/events/${(await events(target)).brand_new.id}`, { status: "deprecated" });
    expect([dropped.status, dropped.body.status]).toEqual([200, "deprecated"]);
  });

  test("the sync is audited as catalog.sync with the catalog versions before and after", () => {
    const db = new Database(join(service.dataDir, "control.sqlite"), { readonly: true });
    try {
      const rows = db.query("SELECT actor_type, target_type, before, after FROM audit_log WHERE action = 'catalog.sync' AND target_id = ? ORDER BY id").all(target.id) as any[];
      expect(rows.map((row) => [row.actor_type, row.target_type, JSON.parse(row.before), JSON.parse(row.after)])).toEqual([
        ["user", "catalog", { catalog_version: 5 }, { catalog_version: 6, ...first.body }],
        ["user", "catalog", { catalog_version: 6 }, { catalog_version: 7, discovered: 5, environment: "production", implemented: [], unplanned: [], updated: 2, synced_at: time }],
        ["user", "catalog", { catalog_version: 7 }, { catalog_version: 7, discovered: 5, environment: "production", implemented: [], unplanned: [], updated: 0, synced_at: time }],
      ]);
    } finally {
      db.close();
    }
  });
});

describe("sync options", () => {
  test("environment picks the data read; an unknown environment is 400", async () => {
    const target = await project("Environments");
    await send(target, [["staging_event", 0, {}]], "staging");
    expect((await sync(target)).body).toMatchObject({ discovered: 0, environment: "production", unplanned: [] });
    const staging = await sync(target, { environment: "staging" });
    expect([staging.status, staging.body]).toEqual([200, { discovered: 1, environment: "staging", implemented: [], unplanned: ["staging_event"], updated: 1, synced_at: time }]);
    const unknown = await sync(target, { environment: "qa" });
    expect([unknown.status, unknown.body]).toEqual([400, { error: { code: "validation", message: 'unknown environment "qa"; the project\'s environments are production, staging, development' } }]);
    const nullEnvironment = await sync(target, { environment: null, days: null });
    expect([nullEnvironment.status, nullEnvironment.body.environment]).toEqual([200, "production"]);
  });

  test(`days: 0 reads today only, ${discoveryDaysMax} is the most; anything outside 0 to ${discoveryDaysMax} is 400`, async () => {
    const target = await project("Days");
    await send(target, [["two_days_ago", 0, {}]]);
    await sendAccepted(service.url, target.keys.production!, [nativeEvent({ event: "today", timestamp: new Date(Date.now() - 1000).toISOString() })]);
    expect((await sync(target, { days: 0 })).body).toMatchObject({ discovered: 1, unplanned: ["today"] });
    expect((await sync(target, { days: discoveryDaysMax })).body).toMatchObject({ discovered: 2, unplanned: ["two_days_ago"] });
    for (const [days, message] of [[-1, "Expected integer to be greater or equal to 0"], [discoveryDaysMax + 1, `Expected integer to be less or equal to ${discoveryDaysMax}`], [1.5, "Expected union value"]] as const) {
      const reply = await sync(target, { days });
      expect([days, reply.status, reply.body]).toEqual([days, 400, { error: { code: "validation", message: `body /days: ${message}` } }]);
    }
    const unknownField = await sync(target, { day: 3 });
    expect([unknownField.status, unknownField.body]).toEqual([400, { error: { code: "validation", message: "body /day: Unexpected property" } }]);
  });

  test("a dry run answers what the sync would do and changes nothing", async () => {
    const target = await project("Dry sync");
    await plan(target, { name: "planned_one" });
    await send(target, [["planned_one", 0, {}], ["surprise", 1, { a: "b" }]]);
    const catalog = await events(target);
    const preview = await sync(target, undefined, "?dry_run=true");
    expect([preview.status, preview.body]).toEqual([200, {
      action: "catalog.sync", dry_run: true, before: { catalog_version: 1 },
      after: { catalog_version: 2, discovered: 2, environment: "production", implemented: ["planned_one"], unplanned: ["surprise"], updated: 2, synced_at: time },
    }]);
    expect(await events(target)).toEqual(catalog);
    expect(await settings(target)).toEqual({ project_id: target.id, catalog_version: 1, warn_on_violations: false, synced_at: null, region_synced: true });
  });

  test("a region busy with the project's queries cannot answer: 503 unavailable, nothing changes", async () => {
    const target = await project("Busy");
    await send(target, [["busy_event", 0, {}]]);
    const gate = service.queries.get("eu")!.gate;
    const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => gate.tryAcquire(target.id)!);
    try {
      const reply = await sync(target);
      expect([reply.status, reply.body]).toEqual([503, { error: { code: "unavailable", message: `region eu could not say what the project sent: a project runs at most ${concurrentQueriesPerProjectMax} queries at once; retry when one has finished` } }]);
    } finally {
      for (const release of held) release();
    }
    expect(await events(target)).toEqual({});
    expect((await sync(target)).body.unplanned).toEqual(["busy_event"]);
  });

  test(`a sync creates unplanned events only while the catalog holds fewer than ${catalogEventsMax}, the most frequent names first`, async () => {
    const target = await project("Nearly full");
    for (let index = 0; index < catalogEventsMax - 2; index++) {
      const reply = await owner.client.post(`${target.path}/events`, { name: `planned_${index}` });
      if (reply.status !== 201) throw new Error(`event ${index} answered ${reply.status}`);
    }
    await send(target, [["rare", 0, {}], ["common", 1, {}], ["common", 2, {}], ["frequent", 3, {}], ["frequent", 4, {}], ["frequent", 5, {}]]);
    const reply = await sync(target);
    expect([reply.status, reply.body]).toEqual([200, { discovered: 3, environment: "production", implemented: [], unplanned: ["common", "frequent"], updated: 2, synced_at: time }]);
    expect((await owner.client.get(`${target.path}/events?search=rare`)).body.events).toEqual([]);
  }, 120_000);
});
