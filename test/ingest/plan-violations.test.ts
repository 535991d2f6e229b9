// Tracking-plan violations as ingestion warnings, end to end (docs/catalog.md, "Plan
// violations"): with the project's `warn_on_violations` on, events the plan does not list,
// deprecated events, missing required properties, values of the wrong type and values outside
// enum_values are counted under reason plan_violation and listed by GET /ingestion/warnings, with
// the event as example (the catalog's personal-data properties masked); the events are accepted
// all the same. Off, nothing is counted; `$` names are checked only when planned; the kinds of
// message a day are bounded; the region keeps the plan across a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern } from "../helpers/client.ts";
import { nativeBody, nativeEvent, ok, postIngest, type NativeEvent } from "./helpers.ts";
import { moreViolationsMessage, violationKindsPerDayMax, violationNameLengthMax } from "../../server/ingest/plan-violations.ts";

let service: TestService;
let owner: SignedUpUser;
let patSecret: string;

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Violations owner");
  patSecret = (await createToken(owner, ["query:read"])).secret;
});
afterAll(() => service.close());

interface Project {
  id: string;
  path: string;
  key: string;
}

async function project(name: string): Promise<Project> {
  const created = await createProject(owner, name);
  return {
    id: created.project.id,
    path: `/app/projects/${created.project.id}/catalog`,
    key: created.public_keys.find((key: { environment: string }) => key.environment === "production").key,
  };
}

async function plan(target: Project, body: Record<string, unknown>) {
  const reply = await owner.client.post(`${target.path}/events`, body);
  expect([reply.status, reply.body.error]).toEqual([201, undefined]);
  return reply.body;
}

async function warnOnViolations(target: Project, on: boolean) {
  const reply = await owner.client.patch(`${target.path}/settings`, { warn_on_violations: on });
  expect([reply.status, reply.body.warn_on_violations, reply.body.region_synced]).toEqual([200, on, true]);
}

/** Sends events and checks every one is accepted: violations never reject. */
async function sendAll(target: Project, events: NativeEvent[], url = service.url) {
  const reply = await postIngest(url, nativeBody(target.key, events));
  expect([reply.status, reply.body]).toEqual([200, ok(events.length)]);
}

async function violations(target: Project, url = service.url) {
  const token = await regionTokenFor(service, patSecret, target.id, ["query:read"]);
  const reply = await call(url, "GET", "/region/eu/ingestion/warnings?reason=plan_violation", { headers: bearer(token) });
  expect(reply.status).toBe(200);
  return reply.body.results as { reason: string; message: string; count: number; first_seen: string; last_seen: string; example: string; days: unknown[] }[];
}

const today = () => new Date().toISOString().slice(0, 10);
const event = (name: string, properties: Record<string, unknown>) => nativeEvent({ event: name, properties });
const entry = (message: string, example: NativeEvent, count = 1) => ({
  reason: "plan_violation", message, count, first_seen: expect.stringMatching(isoPattern), last_seen: expect.stringMatching(isoPattern),
  example: JSON.stringify(example), days: [{ day: today(), count }],
});
const order = <Entry extends { count: number; message: string }>(entries: Entry[]) => [...entries].sort((a, b) => b.count - a.count || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));

describe("plan violations", () => {
  let target: Project;

  beforeAll(async () => {
    target = await project("Violations");
    await plan(target, {
      name: "order_completed",
      properties: [
        { name: "plan", type: "string", enum_values: ["free", "pro"], required: true },
        { name: "amount_minor", type: "number", required: true },
        { name: "placed_at", type: "datetime" },
        { name: "meta", type: "object" },
        { name: "tags", type: "array" },
        { name: "gift", type: "boolean" },
        { name: "anything", type: "any" },
        { name: "email", type: "string", pii: true },
      ],
    });
    const legacy = await plan(target, { name: "legacy", status: "implemented" });
    await owner.client.patch(`${target.path}/events/${legacy.id}`, { status: "deprecated" });
  });

  test("with the setting off (the default) nothing is counted", async () => {
    await sendAll(target, [event("unknown_event", {}), event("order_completed", { plan: "enterprise" })]);
    expect(await violations(target)).toEqual([]);
  });

  test("with it on, every kind of violation is counted with the event as example; events that keep the plan, and $ names not planned, are not", async () => {
    await warnOnViolations(target, true);
    const wrongValues = event("order_completed", { plan: "enterprise", amount_minor: "12" });
    const missing = event("order_completed", { plan: "pro" });
    const wrongShapes = event("order_completed", { plan: "pro", amount_minor: 1, placed_at: "yesterday", meta: [1], tags: { a: 1 }, gift: "yes" });
    const nullRequired = event("order_completed", { plan: null, amount_minor: 2 });
    const unknown = event("unknown_event", { a: 1 });
    const deprecated = event("legacy", {});
    const secret = event("order_completed", { plan: "free", amount_minor: 3, email: "jane", gift: 1 });
    const kept = [
      event("order_completed", { plan: "free", amount_minor: 0, placed_at: "2026-01-01T00:00:00Z", meta: {}, tags: [], gift: false, anything: null, extra: "not planned" }),
      event("$pageview", { $current_url: "https://example.com/" }),
      event("$identify", {}),
    ];
    await sendAll(target, [wrongValues, missing, wrongShapes, nullRequired, unknown, deprecated, secret, ...kept]);
    const property = (name: string) => `property "${name}" of event "order_completed"`;
    expect(await violations(target)).toEqual(order([
      entry(`${property("plan")} has a value outside its enum_values`, wrongValues),
      entry(`${property("amount_minor")} should be a number, not a string`, wrongValues),
      entry(`${property("amount_minor")} is required but missing`, missing),
      entry(`${property("placed_at")} should be an RFC 3339 date-time, not a string`, wrongShapes),
      entry(`${property("meta")} should be an object, not an array`, wrongShapes),
      entry(`${property("tags")} should be an array, not an object`, wrongShapes),
      entry(`${property("gift")} should be a boolean, not a string`, wrongShapes),
      entry(`${property("plan")} is required but missing`, nullRequired),
      entry('event "unknown_event" is not in the tracking plan', unknown),
      entry('event "legacy" is deprecated in the tracking plan', deprecated),
      entry(`${property("gift")} should be a boolean, not a number`, { ...secret, properties: { ...secret.properties, email: "[masked]" } }),
    ]));
  });

  test("counts add up per message; turned off again, nothing more is counted", async () => {
    const before = await violations(target);
    await sendAll(target, [event("unknown_event", {}), event("unknown_event", { b: 2 })]);
    const counted = await violations(target);
    expect(counted.find((found) => found.message === 'event "unknown_event" is not in the tracking plan')?.count).toBe(3);
    await warnOnViolations(target, false);
    await sendAll(target, [event("unknown_event", {}), event("another_unknown", {})]);
    expect(await violations(target)).toEqual(counted);
    expect(counted.length).toBe(before.length);
  });

  test("a plan change reaches ingest at once: a newly planned event is no longer a violation", async () => {
    const fresh = await project("Plan change");
    await warnOnViolations(fresh, true);
    await sendAll(fresh, [event("late_event", {})]);
    expect((await violations(fresh)).map((found) => [found.message, found.count])).toEqual([['event "late_event" is not in the tracking plan', 1]]);
    await plan(fresh, { name: "late_event", properties: [{ name: "size", type: "number", required: true }] });
    await sendAll(fresh, [event("late_event", { size: 1 }), event("late_event", {})]);
    expect((await violations(fresh)).map((found) => [found.message, found.count])).toEqual([
      ['event "late_event" is not in the tracking plan', 1],
      ['property "size" of event "late_event" is required but missing', 1],
    ]);
  });

  test(`names are cut to ${violationNameLengthMax} characters and quoted as JSON; a day holds ${violationKindsPerDayMax} kinds of message, the rest are counted under one`, async () => {
    const crowded = await project("Crowded");
    await warnOnViolations(crowded, true);
    const longName = `${"n".repeat(violationNameLengthMax)}"tail`;
    await sendAll(crowded, [event(longName, {})]);
    const names = Array.from({ length: violationKindsPerDayMax + 4 }, (_, index) => `unplanned_${String(index).padStart(3, "0")}`);
    for (let at = 0; at < names.length; at += 50) await sendAll(crowded, names.slice(at, at + 50).map((name) => event(name, {})));
    const found = await violations(crowded);
    expect(found.length).toBe(violationKindsPerDayMax + 1);
    expect(found[0]).toMatchObject({ message: moreViolationsMessage, count: 5 });
    expect(found.map((entry) => entry.message)).toContain(`event ${JSON.stringify(`${"n".repeat(violationNameLengthMax)}…`)} is not in the tracking plan`);
    expect(found.filter((entry) => entry.message !== moreViolationsMessage).every((entry) => entry.count === 1)).toBe(true);
  });
});

describe("across a restart", () => {
  test("the region keeps the plan and the setting", async () => {
    const kept = await project("Kept");
    await plan(kept, { name: "known" });
    await warnOnViolations(kept, true);
    service = await service.restart();
    await sendAll(kept, [event("known", {}), event("stranger", {})]);
    expect((await violations(kept)).map((found) => [found.message, found.count])).toEqual([['event "stranger" is not in the tracking plan', 1]]);
  });
});
