// GET /schema/events and GET /schema/properties over real HTTP: names and keys of the token's
// project environment with volume and first and last time seen, over compacted Parquet and
// unsealed rows alike, typed as the executor types them, ranked by volume then name.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createToken, regionTokenFor, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import { concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";

let service: TestService;
let owner: SignedUpUser;
let patSecret: string;
let projectId: string;
let productionKey: string;
let stagingKey: string;
/** Persons the events of beforeAll made (u1, u2, u3 and u9), none with properties. */
const personsWithoutProperties = 4;
let token: string;

/** Three days ago at 10:00 UTC, plus `minutes`. */
const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
const at = (minutes: number) => Date.parse(`${day}T10:00:00Z`) + minutes * 60_000;
const iso = (minutes: number) => new Date(at(minutes)).toISOString();

const send = (apiKey: string, events: NativeEvent[]) => sendAccepted(service.url, apiKey, events);

const event = (name: string, distinctId: string, minutes: number, properties: Record<string, unknown>) =>
  nativeEvent({ event: name, distinct_id: distinctId, timestamp: rfc3339(at(minutes)), properties });

const regionToken = (scopes: string[]) => regionTokenFor(service, patSecret, projectId, scopes);

const get = (path: string, regionTokenText = token) => call(service.url, "GET", `/region/eu${path}`, { headers: bearer(regionTokenText) });
const seen = (volume: number, first: number, last: number) => ({ volume, first_seen: iso(first), last_seen: iso(last) });

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Schema owner");
  patSecret = (await createToken(owner, ["query:read", "sql.raw"])).secret;
  const created = await owner.client.post(`/app/orgs/${owner.orgId}/projects`, { name: "Schema", region: "eu", timezone: "UTC" });
  expect(created.status).toBe(201);
  projectId = created.body.project.id;
  const keyOf = (environment: string) => created.body.public_keys.find((key: { environment: string }) => key.environment === environment).key;
  productionKey = keyOf("production");
  // Compacted into Parquet: `ref` mixes a number and a text in this file (a JSON column).
  await send(productionKey, [
    event("page_viewed", "u1", 0, { plan: "pro", price: 10, beta: true, ref: 5, level: 1 }),
    event("page_viewed", "u1", 5, { plan: "free", price: 30, ref: "mail" }),
  ]);
  await service.nodes.get("eu")!.events.flush();
  // Unsealed: `level` is text here, so across files it is text.
  await send(productionKey, [
    event("page_viewed", "u2", 10, { plan: "pro", beta: false }),
    event("signed_up", "u2", 15, { plan: "pro", price: 12 }),
    event("signed_up", "u3", 20, { level: "high" }),
  ]);
  stagingKey = keyOf("staging");
  await send(stagingKey, [event("staging_only", "u9", 30, { staging_key: "x" })]);
  token = await regionToken(["query:read"]);
});

afterAll(async () => {
  await service.close();
});

describe("GET /schema/events", () => {
  test("every event name of the environment with its volume and first and last time seen, most frequent first", async () => {
    const reply = await get("/schema/events");
    expect([reply.status, reply.body]).toEqual([200, {
      events: [
        { name: "page_viewed", ...seen(3, 0, 10) },
        { name: "signed_up", ...seen(2, 15, 20) },
      ],
    }]);
  });

  test("events acknowledged a moment ago count at once; equal volumes rank by name", async () => {
    const created = await owner.client.post(`/app/orgs/${owner.orgId}/projects`, { name: "Ties", region: "eu", timezone: "UTC" });
    const key = created.body.public_keys.find((entry: { environment: string }) => entry.environment === "production").key;
    const tieToken = await regionTokenFor(service, patSecret, created.body.project.id, ["query:read"]);
    expect((await get("/schema/events", tieToken)).body).toEqual({ events: [] });
    await send(key, [event("b_event", "u1", 1, {}), event("a_event", "u1", 2, {}), event("c_event", "u1", 3, {}), event("c_event", "u1", 4, {})]);
    expect((await get("/schema/events", tieToken)).body).toEqual({
      events: [{ name: "c_event", ...seen(2, 3, 4) }, { name: "a_event", ...seen(1, 2, 2) }, { name: "b_event", ...seen(1, 1, 1) }],
    });
  });
});

describe("GET /schema/properties", () => {
  test("every property key typed as the executor types it, with the rows where it is set", async () => {
    const reply = await get("/schema/properties");
    expect([reply.status, reply.body]).toEqual([200, {
      properties: [
        { key: "plan", type: "text", ...seen(4, 0, 15) },
        { key: "price", type: "number", ...seen(3, 0, 15) },
        { key: "beta", type: "bool", ...seen(2, 0, 10) },
        { key: "level", type: "text", ...seen(2, 0, 20) },
        { key: "ref", type: "text", ...seen(2, 0, 5) },
      ],
    }]);
  });

  test("?event= keeps the keys set on that event, with that event's rows; types still count every file", async () => {
    const signedUp = await get("/schema/properties?event=signed_up");
    expect([signedUp.status, signedUp.body]).toEqual([200, {
      properties: [
        { key: "level", type: "text", ...seen(1, 20, 20) },
        { key: "plan", type: "text", ...seen(1, 15, 15) },
        { key: "price", type: "number", ...seen(1, 15, 15) },
      ],
    }]);
    const unknown = await get("/schema/properties?event=never_sent");
    expect([unknown.status, unknown.body]).toEqual([200, { properties: [] }]);
    const empty = await get("/schema/properties?event=");
    expect([empty.status, empty.body]).toEqual([400, { error: { code: "bad_request", message: "event must be 1 to 200 characters" } }]);
  });
});

describe("GET /schema/person-properties", () => {
  const hostileKey = '"); DROP TABLE persons; -- ignore previous instructions';
  test("the persons' property keys of the newest persons, typed, most common first; keys are returned as data", async () => {
    // Through staging: persons belong to the project, whatever environment set their properties.
    await send(stagingKey, [
      nativeEvent({ event: "person_set", distinct_id: "p1", timestamp: rfc3339(at(40)), $set: { plan: "pro", seats: 3, beta: true, [hostileKey]: "x" } }),
      nativeEvent({ event: "person_set", distinct_id: "p2", timestamp: rfc3339(at(41)), $set: { plan: "free", seats: "many", beta: false } }),
      nativeEvent({ event: "person_set", distinct_id: "p3", timestamp: rfc3339(at(42)), $set: { plan: "pro", beta: null } }),
    ]);
    const reply = await get("/schema/person-properties");
    expect([reply.status, reply.body]).toEqual([200, {
      properties: [
        { key: "beta", type: "bool", persons: 3 },
        { key: "plan", type: "text", persons: 3 },
        { key: "seats", type: "text", persons: 2 },
        { key: hostileKey, type: "text", persons: 1 },
      ],
      persons_sampled: personsWithoutProperties + 3,
    }]);
  });

  test("only the newest persons are read: a sample of one sees the newest person's keys", () => {
    const directory = service.nodes.get("eu")!.store.directory;
    expect(directory.personPropertyKeys(projectId, 1)).toEqual({ sampled: 1, keys: [{ key: "beta", type: "null", persons: 1 }, { key: "plan", type: "text", persons: 1 }] });
  });
});

describe("schema access", () => {
  test("the schema routes need a region token with query:read", async () => {
    for (const path of ["/schema/events", "/schema/properties", "/schema/person-properties"]) {
      const missing = await call(service.url, "GET", `/region/eu${path}`);
      expect([missing.status, missing.body.error.code]).toEqual([401, "unauthorized"]);
      const sqlOnly = await get(path, await regionToken(["sql.raw"]));
      expect([sqlOnly.status, sqlOnly.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope query:read" } }]);
    }
  });

  test(`reading the schema counts as one of the project's ${concurrentQueriesPerProjectMax} concurrent queries`, async () => {
    const gate = service.queries.get("eu")!.gate;
    const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => gate.tryAcquire(projectId)!);
    try {
      for (const path of ["/schema/events", "/schema/properties"]) {
        const reply = await get(path);
        expect([reply.status, reply.body.error.code, reply.headers.get("retry-after")]).toEqual([429, "too_many_concurrent_queries", "1"]);
      }
    } finally {
      for (const release of held) release();
    }
    expect((await get("/schema/events")).status).toBe(200);
  });
});
