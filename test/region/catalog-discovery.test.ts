// GET /catalog/discovery over real HTTP (spec 2: region route, scope catalog:read;
// docs/catalog.md, "Discovery"): the events the token's project environment sent in the last
// `days` days with volume, volume over 30 days and first and last time seen, and per event the
// properties set on it with their types and up to three examples, over compacted Parquet and
// unsealed rows alike; hostile names and values come back as JSON data; `days` at its edges;
// access and isolation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createToken, regionTokenFor, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import { concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";
import { discoveryDaysMax, discoveryExampleLengthMax } from "../../server/region/catalog-discovery.ts";

let service: TestService;
let owner: SignedUpUser;
let patSecret: string;
let projectId: string;
let keys: Record<string, string>;
let token: string;

const dayMs = 86_400_000;
/** Three days ago at 10:00 UTC, plus `minutes`. */
const day = new Date(Date.now() - 3 * dayMs).toISOString().slice(0, 10);
const at = (minutes: number) => Date.parse(`${day}T10:00:00Z`) + minutes * 60_000;
const iso = (epochMs: number) => new Date(epochMs).toISOString();
const twentyDaysAgo = Date.parse(`${new Date(Date.now() - 20 * dayMs).toISOString().slice(0, 10)}T08:00:00Z`);
const fortyDaysAgo = Date.parse(`${new Date(Date.now() - 40 * dayMs).toISOString().slice(0, 10)}T08:00:00Z`);
const hostileKey = `<script>"'\u2028`;
const hostileName = `"; DROP TABLE events; -- */`;
let todayAt: number;

const event = (name: string, distinctId: string, epochMs: number, properties: Record<string, unknown>) =>
  nativeEvent({ event: name, distinct_id: distinctId, timestamp: rfc3339(epochMs), properties });
const send = (environment: string, events: NativeEvent[]) => sendAccepted(service.url, keys[environment]!, events);
const get = (query = "", regionToken = token) => call(service.url, "GET", `/region/eu/catalog/discovery${query}`, { headers: bearer(regionToken) });

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Discovery owner");
  patSecret = (await createToken(owner, ["catalog:write", "query:read"])).secret;
  const created = await owner.client.post(`/app/orgs/${owner.orgId}/projects`, { name: "Discovery", region: "eu", timezone: "UTC" });
  expect(created.status).toBe(201);
  projectId = created.body.project.id;
  keys = Object.fromEntries(created.body.public_keys.map((key: { environment: string; key: string }) => [key.environment, key.key]));
  // Compacted into Parquet: `ref` mixes a number and a text in this file; `meta` is an object (JSON only).
  await send("production", [
    event("page_viewed", "u1", at(0), { plan: "pro", price: 10, beta: true, ref: 5, meta: { a: 1 } }),
    event("page_viewed", "u1", at(5), { plan: "free", price: 30, ref: "mail" }),
    event("old_event", "u9", fortyDaysAgo, { x: 1 }),
  ]);
  await service.nodes.get("eu")!.events.flush();
  // Unsealed rows.
  todayAt = Math.floor(Date.now() / 1000) * 1000 - 1000;
  await send("production", [
    event("page_viewed", "u2", at(10), { plan: "pro", beta: false, long: "é".repeat(discoveryExampleLengthMax + 50) }),
    event("signed_up", "u2", at(15), { plan: "team", [hostileKey]: "</script><img src=x onerror=alert(1)>" }),
    event("signed_up", "u3", at(20), { plan: "a" }),
    event("signed_up", "u4", at(25), { plan: "b" }),
    event("signed_up", "u5", at(30), { plan: "c" }),
    event("mid_event", "u6", twentyDaysAgo, {}),
    event(hostileName, "u7", todayAt, { n: 1 }),
  ]);
  await send("staging", [event("staging_only", "u8", at(0), { staging_key: "x" })]);
  token = await regionTokenFor(service, patSecret, projectId, ["catalog:read"]);
});

afterAll(() => service.close());

const pageViewed = {
  name: "page_viewed", volume: 3, volume_30d: 3, first_seen: iso(at(0)), last_seen: iso(at(10)),
  properties: [
    { name: "plan", types: ["string"], volume: 3, examples: ["pro", "free"] },
    { name: "beta", types: ["boolean"], volume: 2, examples: [true, false] },
    { name: "price", types: ["number"], volume: 2, examples: [10, 30] },
    { name: "ref", types: ["string", "number"], volume: 2, examples: [5, "mail"] },
    { name: "long", types: ["string"], volume: 1, examples: ["é".repeat(discoveryExampleLengthMax)] },
  ],
};
const signedUp = {
  name: "signed_up", volume: 4, volume_30d: 4, first_seen: iso(at(15)), last_seen: iso(at(30)),
  properties: [
    { name: "plan", types: ["string"], volume: 4, examples: ["team", "a", "b"] },
    { name: hostileKey, types: ["string"], volume: 1, examples: ["</script><img src=x onerror=alert(1)>"] },
  ],
};
const hostile = () => ({ name: hostileName, volume: 1, volume_30d: 1, first_seen: iso(todayAt), last_seen: iso(todayAt), properties: [{ name: "n", types: ["number"], volume: 1, examples: [1] }] });
const midEvent = { name: "mid_event", volume: 1, volume_30d: 1, first_seen: iso(twentyDaysAgo), last_seen: iso(twentyDaysAgo), properties: [] };
const window = (days: number) => ({ environment: "production", days, from: expect.stringMatching(isoPattern), to: expect.stringMatching(isoPattern) });

describe("GET /catalog/discovery", () => {
  test("the last 30 days by default: events most frequent first, each with its properties most frequent first, types and up to three examples", async () => {
    const reply = await get();
    expect([reply.status, reply.body]).toEqual([200, { ...window(30), events: [signedUp, pageViewed, hostile(), midEvent] }]);
    const { from, to } = reply.body;
    expect(Date.parse(to) - Date.parse(from)).toBe(30 * dayMs);
    expect(Math.abs(Date.parse(to) - Date.now())).toBeLessThan(60_000);
  });

  test("days narrows or widens the window; volume_30d always counts the last 30 days", async () => {
    const week = await get("?days=7");
    expect([week.status, week.body]).toEqual([200, { ...window(7), events: [signedUp, pageViewed, hostile()] }]);
    const wide = await get("?days=45");
    const old = { name: "old_event", volume: 1, volume_30d: 0, first_seen: iso(fortyDaysAgo), last_seen: iso(fortyDaysAgo), properties: [{ name: "x", types: ["number"], volume: 1, examples: [1] }] };
    expect([wide.status, wide.body]).toEqual([200, { ...window(45), events: [signedUp, pageViewed, hostile(), midEvent, old] }]);
    const today = await get("?days=0");
    expect([today.status, today.body]).toEqual([200, { ...window(0), events: [hostile()] }]);
    expect(today.body.from).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    const longest = await get(`?days=${discoveryDaysMax}`);
    expect([longest.status, longest.body.events.length]).toEqual([200, 5]);
  });

  test("days must be an integer from 0 to 365: anything else is 400 bad_request", async () => {
    for (const days of ["-1", "1.5", `${discoveryDaysMax + 1}`, "abc", ""]) {
      const reply = await get(`?days=${days}`);
      expect([days, reply.status, reply.body]).toEqual([days, 400, { error: { code: "bad_request", message: `days must be an integer from 0 to ${discoveryDaysMax}` } }]);
    }
  });

  test("only the token's environment is read", async () => {
    const staging = await v1(service, patSecret, "POST", `/v1/projects/${projectId}/region-token`, { scopes: ["catalog:read"], environment: "staging" });
    const reply = await get("", staging.body.token);
    expect([reply.status, reply.body]).toEqual([200, {
      ...window(30), environment: "staging",
      events: [{ name: "staging_only", volume: 1, volume_30d: 1, first_seen: iso(at(0)), last_seen: iso(at(0)), properties: [{ name: "staging_key", types: ["string"], volume: 1, examples: ["x"] }] }],
    }]);
  });
});

describe("discovery access", () => {
  test("needs a region token with catalog:read (catalog:write implies it)", async () => {
    const missing = await call(service.url, "GET", "/region/eu/catalog/discovery");
    expect([missing.status, missing.body.error.code]).toEqual([401, "unauthorized"]);
    const queryOnly = await get("", await regionTokenFor(service, patSecret, projectId, ["query:read"]));
    expect([queryOnly.status, queryOnly.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope catalog:read" } }]);
    const writer = await get("", await regionTokenFor(service, patSecret, projectId, ["catalog:write"]));
    expect(writer.status).toBe(200);
  });

  test("the internal routes need the region secret (none is set here: they are not served)", async () => {
    const discovery = await call(service.url, "POST", "/region/eu/internal/catalog/discovery", { body: { project_id: projectId, data_id: 1, environment: "production", days: 30 } });
    expect([discovery.status, discovery.body]).toEqual([401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }]);
    const plan = await call(service.url, "POST", "/region/eu/internal/catalog/plan", { body: {} });
    expect([plan.status, plan.body]).toEqual([401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }]);
  });

  test(`a discovery counts as one of the project's ${concurrentQueriesPerProjectMax} concurrent queries`, async () => {
    const gate = service.queries.get("eu")!.gate;
    const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => gate.tryAcquire(projectId)!);
    try {
      const reply = await get();
      expect([reply.status, reply.body.error.code, reply.headers.get("retry-after")]).toEqual([429, "too_many_concurrent_queries", "1"]);
    } finally {
      for (const release of held) release();
    }
    expect((await get()).status).toBe(200);
  });
});
