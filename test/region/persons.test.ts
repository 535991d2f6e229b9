// Persons and groups over real HTTP: events go in through /ingest/eu, answers come from the
// region API with region tokens issued by the control plane.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern, uuidPattern } from "../helpers/client.ts";
import { concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";
import { personsExaminedPerPageMax } from "../../storage/person-directory.ts";
import { duplicate, nativeBody, nativeEvent, ok, postIngest, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";

let service: TestService;
let owner: SignedUpUser;
let project: any;
let key: string;
let stagingKey: string;
let otherProject: any;
let otherKey: string;
let tokens: Record<"read" | "pii" | "write" | "query" | "other", string>;
/** A personal access token of the owner, for issuing region tokens. */
let patSecret: string;
const regionSecret = "persons-test-secret";

const regionToken = (secret: string, projectId: string, scopes: string[]) => regionTokenFor(service, secret, projectId, scopes);

beforeAll(async () => {
  service = await startTestService({ REGION_SECRET: regionSecret });
  owner = await signUp(service, "Persons owner");
  const created = await createProject(owner, "People", "eu");
  project = created.project;
  key = created.public_keys[0].key;
  stagingKey = created.public_keys[1].key;
  const second = await createProject(owner, "Elsewhere", "eu");
  otherProject = second.project;
  otherKey = second.public_keys[0].key;
  const { secret } = await createToken(owner, ["persons:write", "persons.pii", "query:read"]);
  patSecret = secret;
  tokens = {
    read: await regionToken(secret, project.id, ["persons:read"]),
    pii: await regionToken(secret, project.id, ["persons:read", "persons.pii"]),
    write: await regionToken(secret, project.id, ["persons:write"]),
    query: await regionToken(secret, project.id, ["query:read"]),
    other: await regionToken(secret, otherProject.id, ["persons:write", "persons.pii"]),
  };
});
afterAll(async () => {
  await service.close();
});

let clock = Date.now() - 3_600_000;
/** An event a second after the previous one (so event-time order is the order written here). */
const at = (overrides: NativeEvent) => nativeEvent({ timestamp: rfc3339((clock += 1000)), properties: {}, ...overrides });

const send = (events: NativeEvent[], apiKey = key) => sendAccepted(service.url, apiKey, events);

const region = (method: string, path: string, token: string, body?: unknown) =>
  call(service.url, method, `/region/eu${path}`, { headers: bearer(token), body });

/** The one person whose distinct ids include `distinctId`. */
async function personOf(distinctId: string, token = tokens.pii) {
  const reply = await region("GET", `/persons?search=${encodeURIComponent(distinctId)}`, token);
  expect(reply.status).toBe(200);
  const matches = reply.body.results.filter((person: any) => person.distinct_ids.includes(distinctId));
  expect(matches).toHaveLength(1);
  return matches[0];
}

const uuids = (events: NativeEvent[]) => events.map((event) => event.uuid);
const newestFirst = (events: NativeEvent[]) => uuids([...events].reverse());

describe("identity over HTTP", () => {
  test("anonymous browsing then identify: one identified person with every event, newest first", async () => {
    const browsing = [at({ distinct_id: "anon-a1", event: "$pageview" }), at({ distinct_id: "anon-a1", event: "$pageview" })];
    await send(browsing);
    const before = await personOf("anon-a1");
    expect(before).toEqual({
      id: expect.stringMatching(uuidPattern), distinct_ids: ["anon-a1"], properties: {}, created_at: browsing[0]!.timestamp.replace("Z", ".000Z"),
      is_identified: false, version: 0,
    });
    const identify = at({ distinct_id: "user-a", event: "$identify", properties: { $anon_distinct_id: "anon-a1" }, $set: { plan: "pro" } });
    const after = at({ distinct_id: "user-a", event: "clicked" });
    await send([identify, after]);

    const person = await personOf("user-a");
    expect(person).toEqual({
      id: expect.stringMatching(uuidPattern), distinct_ids: ["anon-a1", "user-a"], properties: { plan: "pro" },
      created_at: browsing[0]!.timestamp.replace("Z", ".000Z"), is_identified: true, version: expect.any(Number),
    });
    // The anonymous person's id now answers as the person it merged into.
    const old = await region("GET", `/persons/${before.id}`, tokens.pii);
    expect([old.status, old.body]).toEqual([200, person]);
    const events = await region("GET", `/persons/${person.id}/events`, tokens.pii);
    expect(events.status).toBe(200);
    expect(events.body.results.map((event: any) => event.uuid)).toEqual(newestFirst([...browsing, identify, after]));
    expect(events.body.next_cursor).toBeNull();
    expect(events.body.results[1]).toEqual({
      uuid: identify.uuid, event: "$identify", timestamp: identify.timestamp.replace("Z", ".000Z"), distinct_id: "user-a", anon_id: null,
      session_id: null, window_id: null, lib: { name: "test-sdk", version: "1.2.3" }, consent: "granted", groups: null,
      $set: { plan: "pro" }, $set_once: null, properties: { $anon_distinct_id: "anon-a1" },
      location: { country: null, region: null, city: null, timezone: null }, is_suspect: false, sample_rate: 1,
    });
    const identity = await region("GET", `/persons/${person.id}/identity`, tokens.read);
    expect([identity.status, identity.body]).toEqual([200, {
      person_id: person.id, distinct_ids: ["anon-a1", "user-a"],
      history: [{ kind: "merge", at: identify.timestamp.replace("Z", ".000Z"), event_uuid: identify.uuid, survivor_id: person.id, absorbed_id: before.id }],
    }]);
  });

  test("two devices of one user are one person", async () => {
    const phone = [at({ distinct_id: "phone-b" }), at({ distinct_id: "user-b", anon_id: "phone-b" })];
    const laptop = [at({ distinct_id: "laptop-b" }), at({ distinct_id: "user-b", anon_id: "laptop-b" })];
    await send(phone);
    await send(laptop);
    const person = await personOf("user-b");
    expect(person.distinct_ids).toEqual(["laptop-b", "phone-b", "user-b"]);
    expect(await personOf("phone-b")).toEqual(person);
    const events = await region("GET", `/persons/${person.id}/events`, tokens.read);
    expect(events.body.results.map((event: any) => event.uuid)).toEqual(newestFirst([...phone, ...laptop]));
  });

  test("alias chains join every id into one person", async () => {
    await send([at({ distinct_id: "c-1" }), at({ distinct_id: "c-2" }), at({ distinct_id: "c-3" })]);
    await send([at({ distinct_id: "c-1", event: "$create_alias", properties: { alias: "c-2" } })]);
    await send([at({ distinct_id: "c-2", event: "$create_alias", properties: { alias: "c-3" } })]);
    expect((await personOf("c-3")).distinct_ids).toEqual(["c-1", "c-2", "c-3"]);
  });

  test("an alias joining two identified users is refused and recorded; both persons stay", async () => {
    await send([at({ distinct_id: "user-d1", event: "$identify" }), at({ distinct_id: "user-d2", event: "$identify" })]);
    const alias = at({ distinct_id: "user-d1", event: "$create_alias", properties: { alias: "user-d2" } });
    await send([alias]);
    const first = await personOf("user-d1");
    const second = await personOf("user-d2");
    expect([first.distinct_ids, second.distinct_ids]).toEqual([["user-d1"], ["user-d2"]]);
    const identity = await region("GET", `/persons/${first.id}/identity`, tokens.read);
    expect(identity.body.history).toEqual([
      { kind: "refused", at: alias.timestamp.replace("Z", ".000Z"), event_uuid: alias.uuid, survivor_id: first.id, absorbed_id: second.id },
    ]);
    // The alias event is kept, with the person of its distinct id.
    const events = await region("GET", `/persons/${first.id}/events?limit=1`, tokens.read);
    expect(events.body.results.map((event: any) => event.uuid)).toEqual([alias.uuid]);
  });

  test("$set: latest by event time wins; $set_once: earliest wins; whatever order the requests arrive in", async () => {
    const base = Date.now() - 600_000;
    const late = nativeEvent({ distinct_id: "user-e", timestamp: rfc3339(base + 2000), $set: { plan: "scale" }, $set_once: { source: "ads" } });
    const early = nativeEvent({ distinct_id: "user-e", timestamp: rfc3339(base + 1000), $set: { plan: "free", seats: 2 }, $set_once: { source: "blog" } });
    await send([late]);
    await send([early]);
    expect((await personOf("user-e")).properties).toEqual({ plan: "scale", seats: 2, source: "blog" });
  });

  test("replaying a batch changes nothing: its events are duplicates and the persons are as they were", async () => {
    const batch = [at({ distinct_id: "anon-f" }), at({ distinct_id: "user-f", anon_id: "anon-f", $set: { plan: "pro" } })];
    await send(batch);
    const person = await personOf("user-f");
    const identity = (await region("GET", `/persons/${person.id}/identity`, tokens.read)).body;
    const replay = await postIngest(service.url, nativeBody(key, batch));
    expect([replay.status, replay.body]).toEqual([200, ok(0, batch.map((event) => duplicate(event.uuid)))]);
    expect(await personOf("user-f")).toEqual(person);
    expect((await region("GET", `/persons/${person.id}/identity`, tokens.read)).body).toEqual(identity);
    expect((await region("GET", `/persons/${person.id}/events`, tokens.read)).body.results.map((event: any) => event.uuid)).toEqual(newestFirst(batch));
  });

  test("persons belong to the project, shared by its environments; events are the token's environment's", async () => {
    const production = at({ distinct_id: "user-g" });
    const staging = at({ distinct_id: "user-g" });
    await send([production]);
    await send([staging], stagingKey);
    const person = await personOf("user-g");
    const events = await region("GET", `/persons/${person.id}/events`, tokens.read);
    expect(events.body.results.map((event: any) => event.uuid)).toEqual([production.uuid]);
  });
});

describe("unmerge", () => {
  test("splits the given distinct ids into a new person; that device's earlier events and later ones follow it", async () => {
    const device = at({ distinct_id: "shared-tablet" });
    await send([device, at({ distinct_id: "user-h", anon_id: "shared-tablet" })]);
    const merged = await personOf("user-h");
    expect(merged.distinct_ids).toEqual(["shared-tablet", "user-h"]);

    const reply = await region("POST", `/persons/${merged.id}/unmerge`, tokens.write, { distinct_ids: ["shared-tablet"] });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      person: { ...merged, version: merged.version + 1, distinct_ids: ["user-h"] },
      new_person: {
        id: expect.stringMatching(uuidPattern), distinct_ids: ["shared-tablet"], properties: {}, created_at: expect.stringMatching(isoPattern),
        is_identified: true, version: 0,
      },
    });
    const later = at({ distinct_id: "shared-tablet" });
    await send([later]);
    const split = reply.body.new_person.id;
    const events = await region("GET", `/persons/${split}/events`, tokens.read);
    expect(events.body.results.map((event: any) => event.uuid)).toEqual([later.uuid, device.uuid]);
    const identity = await region("GET", `/persons/${split}/identity`, tokens.read);
    expect(identity.body.history).toEqual([
      { kind: "unmerge", at: expect.stringMatching(isoPattern), event_uuid: null, survivor_id: merged.id, absorbed_id: split },
    ]);
  });

  test("bad requests are refused and change nothing", async () => {
    await send([at({ distinct_id: "anon-i" }), at({ distinct_id: "user-i", anon_id: "anon-i" }), at({ distinct_id: "stranger-i" })]);
    const person = await personOf("user-i");
    const path = `/persons/${person.id}/unmerge`;
    const cases: [string, unknown, number, { code: string; message: string }][] = [
      [tokens.write, { distinct_ids: ["stranger-i"] }, 400, { code: "bad_request", message: "not distinct ids of this person: stranger-i" }],
      [tokens.write, { distinct_ids: ["anon-i", "user-i"] }, 400, { code: "bad_request", message: "at least one distinct id must stay with the person" }],
      [tokens.write, { distinct_ids: [] }, 400, { code: "bad_request", message: "body /distinct_ids: Expected array length to be greater or equal to 1" }],
      [tokens.write, { distinct_ids: Array.from({ length: 101 }, (_, i) => `id-${i}`) }, 400,
        { code: "bad_request", message: "body /distinct_ids: Expected array length to be less or equal to 100" }],
      [tokens.write, { distinct_ids: ["anon-i"], extra: 1 }, 400, { code: "bad_request", message: "body /extra: Unexpected property" }],
      [tokens.read, { distinct_ids: ["anon-i"] }, 403, { code: "forbidden", message: "region token lacks scope persons:write" }],
      [tokens.other, { distinct_ids: ["anon-i"] }, 404, { code: "not_found", message: "person not found" }],
    ];
    for (const [token, body, status, error] of cases) {
      const reply = await region("POST", path, token, body);
      expect([reply.status, reply.body]).toEqual([status, { error }]);
    }
    const noBody = await region("POST", path, tokens.write);
    expect([noBody.status, noBody.body]).toEqual([400, { error: { code: "bad_request", message: "request body is required" } }]);
    expect(await personOf("user-i")).toEqual(person);
  });
});

describe("groups", () => {
  test("$groupidentify sets group properties; events' groups create groups; types are indexed per project", async () => {
    await send([
      at({ distinct_id: "user-j", event: "$groupidentify", properties: { $group_type: "company", $group_key: "acme", $group_set: { name: "Acme", seats: 40 } } }),
      at({ distinct_id: "user-j", groups: { company: "acme", team: "growth" } }),
      at({ distinct_id: "user-j", groups: { company: "globex" } }),
    ]);
    const types = await region("GET", "/groups/types", tokens.read);
    expect([types.status, types.body]).toEqual([200, { results: [{ index: 0, name: "company" }, { index: 1, name: "team" }] }]);
    const acme = await region("GET", "/groups/0/acme", tokens.pii);
    expect([acme.status, acme.body]).toEqual([200, {
      type_index: 0, type: "company", key: "acme", properties: { name: "Acme", seats: 40 }, created_at: expect.stringMatching(isoPattern),
    }]);
    const all = await region("GET", "/groups?limit=2", tokens.pii);
    expect(all.body.results.map((group: any) => [group.type, group.key])).toEqual([["company", "acme"], ["company", "globex"]]);
    const rest = await region("GET", `/groups?limit=2&cursor=${all.body.next_cursor}`, tokens.pii);
    expect([rest.body.results.map((group: any) => [group.type, group.key]), rest.body.next_cursor]).toEqual([[["team", "growth"]], null]);
    const teams = await region("GET", "/groups?type_index=1", tokens.pii);
    expect(teams.body.results.map((group: any) => group.key)).toEqual(["growth"]);
    const searched = await region("GET", "/groups?search=GLO", tokens.pii);
    expect(searched.body.results.map((group: any) => group.key)).toEqual(["globex"]);

    const missing = await region("GET", "/groups/0/initech", tokens.read);
    expect([missing.status, missing.body]).toEqual([404, { error: { code: "not_found", message: "group not found" } }]);
    const badIndex = await region("GET", "/groups/5/acme", tokens.read);
    expect([badIndex.status, badIndex.body]).toEqual([400, { error: { code: "bad_request", message: "the group type index must be a group type index from 0 to 4" } }]);
    const badType = await region("GET", "/groups?type_index=x", tokens.read);
    expect([badType.status, badType.body]).toEqual([400, { error: { code: "bad_request", message: "type_index must be a group type index from 0 to 4" } }]);
    // Another project has no such groups.
    const elsewhere = await region("GET", "/groups/0/acme", tokens.other);
    expect(elsewhere.status).toBe(404);
    expect((await region("GET", "/groups/types", tokens.other)).body).toEqual({ results: [] });
  });
});

describe("personal data", () => {
  const profile = {
    email: "kim@example.com", $name: "Kim Lee", phoneNumber: "+44 20 7946 0000", billing_address: "1 High St",
    plan: "pro", contact: "kim.work@example.org", last_ip: "81.2.69.160", seen_from: "2001:db8::1", shoe_size: 9,
    prefs: { newsletter: true, work_email: "kim@corp.example" }, favourite: "blue",
  };

  test("masked without persons.pii, whole with it; catalog-marked properties are masked too", async () => {
    await send([at({ distinct_id: "user-k", $set: profile })]);
    const masked = {
      email: "[masked]", $name: "[masked]", phoneNumber: "[masked]", billing_address: "[masked]", plan: "pro", contact: "[masked]",
      last_ip: "[masked]", seen_from: "[masked]", shoe_size: 9, prefs: { newsletter: true, work_email: "[masked]" }, favourite: "blue",
    };
    expect((await personOf("user-k", tokens.read)).properties).toEqual(masked);
    expect((await personOf("user-k", tokens.pii)).properties).toEqual(profile);
    const person = await personOf("user-k", tokens.pii);
    const events = await region("GET", `/persons/${person.id}/events`, tokens.read);
    expect(events.body.results[0].$set).toEqual(masked);

    const set = await call(service.url, "PUT", `/region/eu/internal/pii-properties/${project.id}`, {
      body: { names: ["favourite", "shoe_size", "favourite"] }, headers: { "x-region-secret": regionSecret },
    });
    expect([set.status, set.body]).toEqual([200, { project_id: project.id, names: ["favourite", "shoe_size"] }]);
    expect((await personOf("user-k", tokens.read)).properties).toEqual({ ...masked, favourite: "[masked]", shoe_size: "[masked]" });
    expect((await personOf("user-k", tokens.pii)).properties).toEqual(profile);
    const wrongSecret = await call(service.url, "PUT", `/region/eu/internal/pii-properties/${project.id}`, {
      body: { names: [] }, headers: { "x-region-secret": "nope" },
    });
    expect([wrongSecret.status, wrongSecret.body]).toEqual([401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }]);
    expect((await personOf("user-k", tokens.read)).properties.favourite).toBe("[masked]");
  });

  test("searching by a personal-data property or value needs persons.pii", async () => {
    await send([at({ distinct_id: "user-l", $set: { email: "lee@example.com", plan: "team" } })]);
    const forbidden = { error: { code: "forbidden", message: "searching by personal-data properties needs persons.pii" } };
    for (const query of ["property=email&value=lee@example.com", "property=email", "property=plan&value=lee@example.com"]) {
      const reply = await region("GET", `/persons?${query}`, tokens.read);
      expect([reply.status, reply.body]).toEqual([403, forbidden]);
    }
    const allowed = await region("GET", "/persons?property=email&value=lee@example.com", tokens.pii);
    expect(allowed.body.results.map((person: any) => person.distinct_ids)).toEqual([["user-l"]]);
    const byPlan = await region("GET", "/persons?property=plan&value=team", tokens.read);
    expect(byPlan.body.results.map((person: any) => [person.distinct_ids, person.properties])).toEqual([[["user-l"], { email: "[masked]", plan: "team" }]]);
  });
});

describe("access and paging", () => {
  test("another project's person ids give 404 on every route", async () => {
    await send([at({ distinct_id: "user-m" })]);
    const person = await personOf("user-m");
    const notFound = { error: { code: "not_found", message: "person not found" } };
    for (const path of [`/persons/${person.id}`, `/persons/${person.id}/events`, `/persons/${person.id}/identity`]) {
      const reply = await region("GET", path, tokens.other);
      expect([reply.status, reply.body]).toEqual([404, notFound]);
    }
    for (const id of ["not-a-uuid", "00000000-0000-7000-8000-000000000000"]) {
      const reply = await region("GET", `/persons/${id}`, tokens.read);
      expect([reply.status, reply.body]).toEqual([404, notFound]);
    }
    // The other project's own listing does not show it.
    await send([at({ distinct_id: "user-m" })], otherKey);
    const theirs = await region("GET", "/persons?search=user-m", tokens.other);
    expect(theirs.body.results).toHaveLength(1);
    expect(theirs.body.results[0].id).not.toBe(person.id);
  });

  test("a region token is required, with persons:read", async () => {
    const none = await call(service.url, "GET", "/region/eu/persons");
    expect([none.status, none.body.error.code]).toEqual([401, "unauthorized"]);
    const queryOnly = await region("GET", "/persons", tokens.query);
    expect([queryOnly.status, queryOnly.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope persons:read" } }]);
    const groups = await region("GET", "/groups", tokens.query);
    expect(groups.status).toBe(403);
    const wrongRegion = await call(service.url, "GET", "/region/us/persons", { headers: bearer(tokens.read) });
    expect([wrongRegion.status, wrongRegion.body]).toEqual([401, { error: { code: "unauthorized", message: "region token is for another region" } }]);
  });

  test("persons page newest first with cursors; limit is 1 to 1000; foreign cursors are refused", async () => {
    const ids = Array.from({ length: 5 }, (_, i) => `pager-${i}`);
    await send(ids.map((distinctId) => at({ distinct_id: distinctId })));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply: any = await region("GET", `/persons?search=pager-&limit=2${cursor ? `&cursor=${cursor}` : ""}`, tokens.read);
      expect(reply.status).toBe(200);
      expect(reply.body.results.length).toBeLessThanOrEqual(2);
      seen.push(...reply.body.results.map((person: any) => person.distinct_ids[0]));
      cursor = reply.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const max = await region("GET", "/persons?limit=1000", tokens.read);
    expect(max.status).toBe(200);
    for (const query of ["limit=0", "limit=1001", "limit=ten", "limit=1.5"]) {
      const reply = await region("GET", `/persons?${query}`, tokens.read);
      expect([reply.status, reply.body]).toEqual([400, { error: { code: "bad_request", message: "limit must be an integer from 1 to 1000" } }]);
    }
    for (const cursorText of ["nonsense", Buffer.from('{"timestamp":1,"uuid":"x"}').toString("base64url")]) {
      const reply = await region("GET", `/persons?cursor=${cursorText}`, tokens.read);
      expect([reply.status, reply.body]).toEqual([400, { error: { code: "bad_request", message: "cursor is not one this listing gave" } }]);
    }
    const valueAlone = await region("GET", "/persons?value=x", tokens.read);
    expect([valueAlone.status, valueAlone.body]).toEqual([400, { error: { code: "bad_request", message: "value needs property" } }]);
    const longSearch = await region("GET", `/persons?search=${"x".repeat(201)}`, tokens.read);
    expect([longSearch.status, longSearch.body]).toEqual([400, { error: { code: "bad_request", message: "search must be 1 to 200 characters" } }]);
  });

  test(`a search examines at most ${personsExaminedPerPageMax} persons per page: an older match comes after a short page with a cursor`, async () => {
    const crowd = await createProject(owner, "Crowd", "eu");
    const token = await regionToken(patSecret, crowd.project.id, ["persons:read"]);
    const event = (distinctId: string) => nativeEvent({ distinct_id: distinctId, timestamp: rfc3339(Date.now() - 7_200_000), properties: {} });
    await send([event("crowd-needle")], crowd.public_keys[0].key);
    for (let start = 0; start < personsExaminedPerPageMax; start += 1000) {
      await send(Array.from({ length: 1000 }, (_, i) => event(`crowd-${start + i}`)), crowd.public_keys[0].key);
    }
    const first = await region("GET", "/persons?search=needle", token);
    expect([first.status, first.body.results, typeof first.body.next_cursor]).toEqual([200, [], "string"]);
    const second = await region("GET", `/persons?search=needle&cursor=${first.body.next_cursor}`, token);
    expect([second.status, second.body.results.map((person: any) => person.distinct_ids), second.body.next_cursor]).toEqual([200, [["crowd-needle"]], null]);
  });

  test("a person's events page newest first with cursors", async () => {
    const events = Array.from({ length: 5 }, () => at({ distinct_id: "user-n" }));
    await send(events);
    const person = await personOf("user-n");
    const first = await region("GET", `/persons/${person.id}/events?limit=3`, tokens.read);
    expect(first.body.results.map((event: any) => event.uuid)).toEqual(newestFirst(events).slice(0, 3));
    const second = await region("GET", `/persons/${person.id}/events?limit=3&cursor=${first.body.next_cursor}`, tokens.read);
    expect([second.body.results.map((event: any) => event.uuid), second.body.next_cursor]).toEqual([newestFirst(events).slice(3), null]);
    const foreign = await region("GET", `/persons/${person.id}/events?cursor=${Buffer.from('{"before":3}').toString("base64url")}`, tokens.read);
    expect([foreign.status, foreign.body]).toEqual([400, { error: { code: "bad_request", message: "cursor is not one this listing gave" } }]);
  });

  test(`reading a person's events counts as one of the project's ${concurrentQueriesPerProjectMax} concurrent queries; the person's details do not`, async () => {
    const events = [at({ distinct_id: "user-gated" })];
    await send(events);
    const person = await personOf("user-gated");
    const gate = service.queries.get("eu")!.gate;
    const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => gate.tryAcquire(project.id)!);
    try {
      const busy = await region("GET", `/persons/${person.id}/events`, tokens.read);
      expect([busy.status, busy.body, busy.headers.get("retry-after")]).toEqual([
        429, { error: { code: "too_many_concurrent_queries", message: "a project runs at most 2 queries at once; retry when one has finished" } }, "1",
      ]);
      expect((await region("GET", `/persons/${person.id}`, tokens.read)).status).toBe(200);
    } finally {
      for (const release of held) release();
    }
    const after = await region("GET", `/persons/${person.id}/events`, tokens.read);
    expect([after.status, after.body.results.map((event: any) => event.uuid)]).toEqual([200, uuids(events)]);
  });

  test("persons, events and groups outlive a restart (events then come from sealed segments)", async () => {
    const events = [at({ distinct_id: "anon-o" }), at({ distinct_id: "user-o", anon_id: "anon-o", groups: { company: "acme" } })];
    await send(events);
    const person = await personOf("user-o");
    service = await service.restart();
    // The issuer is the service's URL, which has a new port: tokens are issued again.
    tokens.read = await regionToken(patSecret, project.id, ["persons:read"]);
    tokens.pii = await regionToken(patSecret, project.id, ["persons:read", "persons.pii"]);
    expect(await personOf("user-o")).toEqual(person);
    const stored = await region("GET", `/persons/${person.id}/events`, tokens.read);
    expect(stored.body.results.map((event: any) => event.uuid)).toEqual(newestFirst(events));
    expect(stored.body.results[0].groups).toEqual({ company: "acme" });
  });
});
