// POST /cohorts/preview and POST /cohorts/{id}/materialize over real HTTP, in a project in
// Tokyo time: events go in through /ingest/eu and count at once; "the last D days" start at
// local midnight; memberships are per environment; the limits a query has (rows read,
// concurrency) apply; scopes, bodies and definitions are checked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern, uuidPattern } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import { instantOf, localTime } from "../../engine/time-zone.ts";
import { concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";
import { cohortPreviewSampleMax } from "../../server/region/cohort-routes.ts";
import { CohortDefinitionSchema, cohortDaysMax } from "../../engine/cohorts/definition.ts";

const zone = "Asia/Tokyo";
const rowsMax = 40;
let service: TestService;
let owner: SignedUpUser;
let project: any;
let key: string;
let bigProject: any;
let bigKey: string;
let patSecret: string;

const regionToken = (projectId: string, scopes: string[], environment?: string) =>
  call(service.url, "POST", `/v1/projects/${projectId}/region-token`, { headers: bearer(patSecret), body: { scopes, ...(environment ? { environment } : {}) } })
    .then((reply) => {
      expect(reply.status).toBe(200);
      return reply.body.token as string;
    });
const region = (method: string, path: string, token: string | null, body?: unknown) =>
  call(service.url, method, `/region/eu${path}`, { headers: token === null ? {} : bearer(token), body });
const preview = (token: string, body: unknown) => region("POST", "/cohorts/preview", token, body);
const materialize = (token: string, cohortId: string, body: unknown) => region("POST", `/cohorts/${cohortId}/materialize`, token, body);

/** The start of the local day `daysBack` days before today in Tokyo. */
const today = localTime(zone, Date.now());
const dayStart = (daysBack: number) => {
  const date = new Date(Date.UTC(today.year, today.month - 1, today.day - daysBack));
  return instantOf(zone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
};
const yesterday = dayStart(1);
const minute = 60_000;
const event = (distinctId: string, name: string, at: number, extra: NativeEvent = {}) =>
  nativeEvent({ event: name, distinct_id: distinctId, timestamp: rfc3339(at), properties: {}, ...extra });

const cohortA = "0193a7c2-0000-7000-8000-00000000000a";
const cohortB = "0193a7c2-0000-7000-8000-00000000000b";
const cohortC = "0193a7c2-0000-7000-8000-00000000000c";
const purchasedIn = (days: number) => ({ type: "and", values: [{ type: "performed", event: "purchase", count_operator: "gte", count: 1, days }] });

beforeAll(async () => {
  service = await startTestService({ QUERY_ROWS_MAX: String(rowsMax), REGION_SECRET: "cohorts-test-secret" });
  owner = await signUp(service, "Cohorts owner");
  const created = await createProject(owner, "Cohorts", "eu", zone);
  project = created.project;
  key = created.public_keys[0].key;
  const big = await createProject(owner, "Big", "eu", zone);
  bigProject = big.project;
  bigKey = big.public_keys[0].key;
  patSecret = (await createToken(owner, ["cohorts:write", "persons:read", "persons.pii"])).secret;
  // Sent one at a time, so persons get their indexes in this order (u-late 0, u-pro 1, u-free 2, anon-m 3).
  for (const batch of [
    [event("u-late", "purchase", yesterday - minute)],
    [event("u-pro", "purchase", yesterday, { $set: { plan: "pro", email: "pro@example.com" } }), event("u-pro", "purchase", yesterday + 60 * minute)],
    [event("u-free", "signed_up", yesterday + 120 * minute, { $set: { plan: "free" } })],
    [event("anon-m", "purchase", yesterday + 180 * minute)],
    [event("u-merged", "$identify", yesterday + 240 * minute, { properties: { $anon_distinct_id: "anon-m" } })],
  ]) await sendAccepted(service.url, key, batch);
});

afterAll(async () => {
  await service.close();
});

/** A person as GET /persons/{id} answers it to a token with persons.pii. */
async function personOf(distinctId: string): Promise<any> {
  const token = await regionToken(project.id, ["persons:read", "persons.pii"]);
  const reply = await region("GET", `/persons?search=${encodeURIComponent(distinctId)}`, token);
  return reply.body.results.find((person: any) => person.distinct_ids.includes(distinctId));
}

describe("POST /cohorts/preview", () => {
  test("size and a sample of the newest members, personal data masked unless the token holds persons.pii", async () => {
    const token = await regionToken(project.id, ["cohorts:read"]);
    const [pro, merged] = [await personOf("u-pro"), await personOf("u-merged")];
    expect(merged.distinct_ids).toEqual(["anon-m", "u-merged"]);
    const reply = await preview(token, { definition: purchasedIn(1) });
    expect([reply.status, reply.body]).toEqual([200, { size: 2, sample: [merged, { ...pro, properties: { plan: "pro", email: "[masked]" } }] }]);
    const pii = await preview(await regionToken(project.id, ["cohorts:read", "persons.pii"]), { definition: purchasedIn(1), sample_size: 1 });
    expect([pii.status, pii.body]).toEqual([200, { size: 2, sample: [merged] }]);
    expect(pro).toEqual({
      id: expect.stringMatching(uuidPattern), distinct_ids: ["u-pro"], properties: { plan: "pro", email: "pro@example.com" },
      created_at: new Date(yesterday).toISOString(), is_identified: false, version: expect.any(Number),
    });
  });

  test("the last D days start at local midnight D days ago: 23:59 the day before is out", async () => {
    const token = await regionToken(project.id, ["cohorts:write"]);
    const sizes = [];
    for (const days of [1, 2, cohortDaysMax]) sizes.push((await preview(token, { definition: purchasedIn(days), sample_size: 0 })).body);
    expect(sizes).toEqual([{ size: 2, sample: [] }, { size: 3, sample: [] }, { size: 3, sample: [] }]);
    // Persons without any purchase are in "did not purchase" and in "at most 0 purchases".
    const none = await preview(token, { definition: { type: "or", values: [{ type: "not_performed", event: "purchase", days: 1 }] }, sample_size: 0 });
    expect(none.body).toEqual({ size: 2, sample: [] });
  });

  test(`sample_size from 0 to ${cohortPreviewSampleMax}; bodies and definitions are checked`, async () => {
    const token = await regionToken(project.id, ["cohorts:read"]);
    expect((await preview(token, { definition: purchasedIn(1), sample_size: cohortPreviewSampleMax })).body.sample).toHaveLength(2);
    const cases: [unknown, number, string, string][] = [
      [{ definition: purchasedIn(1), sample_size: cohortPreviewSampleMax + 1 }, 400, "bad_request", `body /sample_size: Expected integer to be less or equal to ${cohortPreviewSampleMax}`],
      [{ definition: purchasedIn(1), sample_size: -1 }, 400, "bad_request", "body /sample_size: Expected integer to be greater or equal to 0"],
      [{}, 400, "bad_request", "body /definition: Expected required property"],
      [{ definition: purchasedIn(1), extra: 1 }, 400, "bad_request", "body /extra: Unexpected property"],
      [{ definition: purchasedIn(cohortDaysMax + 1) }, 400, "invalid_query", `/definition/values/0/days: expected integer to be less or equal to ${cohortDaysMax}`],
      [{ definition: { type: "performed", event: "x" } }, 400, "invalid_query", "/definition/type: must be one of and, or (a definition is a group of criteria)"],
      [{ definition: { type: "and", values: [{ type: "person", key: "plan", operator: "in", value: "pro" }] } }, 400, "invalid_query", "/definition/values/0/value: must be an array for in"],
      [{ definition: { type: "and", values: [{ type: "cohort", cohort_id: cohortC, operator: "in" }] } }, 409, "conflict", `cohort ${cohortC} has no calculated membership in environment production; calculate it there first`],
    ];
    const replies = await Promise.all(cases.map(([body]) => preview(token, body)));
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual(cases.map(([, status, code, message]) => [status, { error: { code, message } }]));
    const notJson = await call(service.url, "POST", "/region/eu/cohorts/preview", { headers: bearer(token), rawBody: "{" });
    expect([notJson.status, notJson.body.error.code]).toEqual([400, "bad_request"]);
  });
});

describe("POST /cohorts/{id}/materialize", () => {
  test("stores a dynamic cohort's members in the token's environment; other cohorts can then name it", async () => {
    const token = await regionToken(project.id, ["cohorts:write"]);
    const first = await materialize(token, cohortA, { kind: "dynamic", version: 1, definition: purchasedIn(1) });
    expect([first.status, first.body]).toEqual([200, { cohort_id: cohortA, environment: "production", version: 1, size: 2, calculated_at: expect.stringMatching(isoPattern) }]);
    const definitionB = { type: "and", values: [{ type: "cohort", cohort_id: cohortA.toUpperCase(), operator: "in" }, { type: "person", key: "plan", operator: "eq", value: "pro" }] };
    const second = await materialize(token, cohortB, { kind: "dynamic", version: 3, definition: definitionB });
    expect([second.status, second.body]).toEqual([200, { cohort_id: cohortB, environment: "production", version: 3, size: 1, calculated_at: expect.stringMatching(isoPattern) }]);
    const notIn = await preview(token, { definition: { type: "and", values: [{ type: "cohort", cohort_id: cohortA, operator: "not_in" }] }, sample_size: 0 });
    expect(notIn.body).toEqual({ size: 2, sample: [] });
    // Staging has no membership of A.
    const staging = await materialize(await regionToken(project.id, ["cohorts:write"], "staging"), cohortB, { kind: "dynamic", version: 3, definition: definitionB });
    expect([staging.status, staging.body]).toEqual([409, { error: { code: "conflict", message: `cohort ${cohortA} has no calculated membership in environment staging; calculate it there first` } }]);
  });

  test("versions only move forward; the stored kind stays; a cohort cannot name itself", async () => {
    const token = await regionToken(project.id, ["cohorts:write"]);
    const again = await materialize(token, cohortA, { kind: "dynamic", version: 2, definition: purchasedIn(2) });
    expect([again.status, again.body.version, again.body.size]).toEqual([200, 2, 3]);
    const same = await materialize(token, cohortA, { kind: "dynamic", version: 2, definition: purchasedIn(2) });
    expect([same.status, same.body.version]).toEqual([200, 2]);
    const cases: [string, unknown, number, string, string][] = [
      [cohortA, { kind: "dynamic", version: 1, definition: purchasedIn(1) }, 409, "conflict", `cohort ${cohortA} was calculated for version 2 in environment production, newer than 1`],
      [cohortA, { kind: "static", version: 5, definition: null }, 409, "conflict", `cohort ${cohortA} is dynamic in environment production, not static`],
      [cohortC, { kind: "dynamic", version: 1, definition: { type: "or", values: [{ type: "cohort", cohort_id: cohortC, operator: "not_in" }] } }, 400, "invalid_query", `/definition: cohort ${cohortC} cannot be defined by its own membership`],
      [cohortC, { kind: "dynamic", version: 1, definition: null }, 400, "bad_request", "a dynamic cohort needs its definition"],
      [cohortC, { kind: "static", version: 1, definition: purchasedIn(1) }, 400, "bad_request", "definition must be null for a static cohort (its members are edited through /static)"],
      [cohortC, { kind: "dynamic", version: 0, definition: purchasedIn(1) }, 400, "bad_request", "body /version: Expected integer to be greater or equal to 1"],
      [cohortC, { kind: "cached", version: 1, definition: null }, 400, "bad_request", "body /kind: Expected union value"],
      [cohortC, { kind: "dynamic", version: 1, definition: { type: "and", values: [] } }, 400, "invalid_query", "/definition/values: expected array length to be greater or equal to 1"],
      ["not-a-uuid", { kind: "dynamic", version: 1, definition: purchasedIn(1) }, 404, "not_found", "cohort not found"],
    ];
    const replies = [];
    for (const [id, body] of cases) replies.push(await materialize(token, id, body));
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual(cases.map(([, , status, code, message]) => [status, { error: { code, message } }]));
    // None of the refused calls changed what is stored.
    expect((await materialize(token, cohortA, { kind: "dynamic", version: 2, definition: purchasedIn(2) })).body.size).toBe(3);
  });

  test("a static cohort's calculation records its version and reports the stored size", async () => {
    const token = await regionToken(project.id, ["cohorts:write"]);
    const reply = await materialize(token, cohortC, { kind: "static", version: 4, definition: null });
    expect([reply.status, reply.body]).toEqual([200, { cohort_id: cohortC, environment: "production", version: 4, size: 0, calculated_at: expect.stringMatching(isoPattern) }]);
  });
});

describe("access and limits", () => {
  test("a region token is required, with cohorts:read to preview and cohorts:write to materialize", async () => {
    const missing = await preview("", { definition: purchasedIn(1) });
    expect([missing.status, missing.body.error.code]).toEqual([401, "unauthorized"]);
    const personsOnly = await regionToken(project.id, ["persons:read"]);
    const reader = await regionToken(project.id, ["cohorts:read"]);
    const replies = [
      await preview(personsOnly, { definition: purchasedIn(1) }),
      await materialize(reader, cohortA, { kind: "dynamic", version: 9, definition: purchasedIn(1) }),
      await region("POST", `/cohorts/${cohortC}/static`, reader, { add: [{ distinct_id: "u-pro" }] }),
    ];
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual([
      [403, { error: { code: "forbidden", message: "region token lacks scope cohorts:read" } }],
      [403, { error: { code: "forbidden", message: "region token lacks scope cohorts:write" } }],
      [403, { error: { code: "forbidden", message: "region token lacks scope cohorts:write" } }],
    ]);
  });

  test("another project's token sees only its own persons and memberships", async () => {
    const other = await regionToken(bigProject.id, ["cohorts:write"]);
    const reply = await preview(other, { definition: { type: "and", values: [{ type: "cohort", cohort_id: cohortA, operator: "in" }] } });
    expect([reply.status, reply.body]).toEqual([409, { error: { code: "conflict", message: `cohort ${cohortA} has no calculated membership in environment production; calculate it there first` } }]);
  });

  test(`a project's third concurrent query or cohort calculation gets 429 too_many_concurrent_queries`, async () => {
    const token = await regionToken(project.id, ["cohorts:write"]);
    const gate = service.queries.get("eu")!.gate;
    const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => gate.tryAcquire(project.id)!);
    try {
      const replies = [await preview(token, { definition: purchasedIn(1) }), await materialize(token, cohortA, { kind: "dynamic", version: 2, definition: purchasedIn(2) })];
      expect(replies.map((reply) => [reply.status, reply.body, reply.headers.get("retry-after")])).toEqual(Array.from({ length: 2 }, () => [
        429, { error: { code: "too_many_concurrent_queries", message: "a project runs at most 2 queries at once; retry when one has finished" } }, "1",
      ]));
    } finally {
      for (const release of held) release();
    }
  });

  test("the rows-read limit: exactly the limit is answered, one row more is 422 query_too_large", async () => {
    const token = await regionToken(bigProject.id, ["cohorts:read"]);
    const filler = (count: number) => Array.from({ length: count }, () => event("filler", "filler", Date.now() - minute));
    const body = { definition: { type: "and", values: [{ type: "performed", event: "filler", count_operator: "gte", count: 1, days: 1 }] }, sample_size: 0 };
    await sendAccepted(service.url, bigKey, filler(rowsMax));
    expect(await preview(token, body)).toMatchObject({ status: 200, body: { size: 1, sample: [] } });
    await sendAccepted(service.url, bigKey, filler(1));
    const over = await preview(token, body);
    expect([over.status, over.body]).toEqual([422, { error: { code: "query_too_large", message: `the cohort would read ${rowsMax + 1} rows; at most ${rowsMax} (use fewer days or fewer events)` } }]);
  });

  test("the definition's JSON Schema is served without a token", async () => {
    const reply = await region("GET", "/schema/cohort-definition", null);
    expect([reply.status, reply.body]).toEqual([200, JSON.parse(JSON.stringify(CohortDefinitionSchema))]);
  });
});

describe("POST /internal/cohorts/materialize (the control plane's RegionLink)", () => {
  const internal = (body: unknown, secret: string | null) =>
    call(service.url, "POST", "/region/eu/internal/cohorts/materialize", { headers: secret === null ? {} : { "X-Region-Secret": secret }, body });

  test("needs the region secret; answers like the token route for the project its keys name", async () => {
    const body = { project_id: project.id, environment: "production", cohort_id: cohortA, kind: "dynamic", version: 7, definition: purchasedIn(1) };
    const replies = [
      await internal(body, null),
      await internal(body, "wrong"),
      await internal({ ...body, project_id: "0193a7c2-9999-7000-8000-000000000000" }, "cohorts-test-secret"),
      await internal({ ...body, cohort_id: "nope" }, "cohorts-test-secret"),
    ];
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual([
      [401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }],
      [401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }],
      [404, { error: { code: "not_found", message: "project 0193a7c2-9999-7000-8000-000000000000 in region eu not found" } }],
      [400, { error: { code: "bad_request", message: `body /cohort_id: Expected string to match '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'` } }],
    ]);
    const done = await internal(body, "cohorts-test-secret");
    expect([done.status, done.body]).toEqual([200, { cohort_id: cohortA, environment: "production", version: 7, size: 2, calculated_at: expect.stringMatching(isoPattern) }]);
  });
});
