// POST /cohorts/{id}/static over real HTTP (persons by distinct id or person id, through
// merges, the per-call bound at its edge), and RegionLink.materializeCohort, in process and
// over the internal API, as the control plane calls it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import { staticCohortPersonsPerCallMax } from "../../server/region/cohort-routes.ts";
import { RegionRefusal, RemoteRegionLink, type RegionLink } from "../../server/region/region-link.ts";

const secret = "static-cohorts-secret";
let service: TestService;
let owner: SignedUpUser;
let project: any;
let key: string;
let patSecret: string;
let writer: string;

const regionToken = (scopes: string[], environment?: string) =>
  environment === undefined
    ? regionTokenFor(service, patSecret, project.id, scopes)
    : call(service.url, "POST", `/v1/projects/${project.id}/region-token`, { headers: bearer(patSecret), body: { scopes, environment } }).then((reply) => reply.body.token as string);
const editStatic = (cohortId: string, body: unknown, token = writer) => call(service.url, "POST", `/region/eu/cohorts/${cohortId}/static`, { headers: bearer(token), body });
const materialize = (cohortId: string, body: unknown, token = writer) => call(service.url, "POST", `/region/eu/cohorts/${cohortId}/materialize`, { headers: bearer(token), body });

let clock = Date.now() - 3_600_000;
const at = (overrides: NativeEvent) => nativeEvent({ timestamp: rfc3339((clock += 1000)), properties: {}, ...overrides });

const cohortS = "0193a7c2-5555-7000-8000-00000000000a";
const cohortD = "0193a7c2-5555-7000-8000-00000000000d";

beforeAll(async () => {
  service = await startTestService({ REGION_SECRET: secret });
  owner = await signUp(service, "Static cohorts owner");
  const created = await createProject(owner, "Static", "eu");
  project = created.project;
  key = created.public_keys[0].key;
  patSecret = (await createToken(owner, ["cohorts:write", "persons:read"])).secret;
  writer = await regionToken(["cohorts:write"]);
  await sendAccepted(service.url, key, [
    at({ distinct_id: "dev-1", event: "clicked" }),
    at({ distinct_id: "user-y", event: "$identify" }),
    at({ distinct_id: "plain", event: "clicked" }),
    at({ distinct_id: "other", event: "clicked" }),
  ]);
});

afterAll(async () => {
  await service.close();
});

async function personId(distinctId: string): Promise<string> {
  const reply = await call(service.url, "GET", `/region/eu/persons?search=${encodeURIComponent(distinctId)}`, { headers: bearer(await regionToken(["persons:read"])) });
  return reply.body.results.find((person: any) => person.distinct_ids.includes(distinctId)).id;
}

describe("POST /cohorts/{id}/static", () => {
  test("adds and removes persons by distinct id or person id; unknown ones are listed; members follow merges", async () => {
    const plain = await personId("plain");
    const added = await editStatic(cohortS, { add: [{ distinct_id: "dev-1" }, { person_id: plain.toUpperCase() }, { distinct_id: "ghost" }, { distinct_id: "plain" }] });
    expect([added.status, added.body]).toEqual([200, { cohort_id: cohortS, environment: "production", size: 2, added: 2, removed: 0, not_found: [{ distinct_id: "ghost" }] }]);
    // dev-1's person merges into the identified user-y: the member is now user-y's person.
    await sendAccepted(service.url, key, [at({ distinct_id: "user-y", event: "$create_alias", properties: { alias: "dev-1" } })]);
    const again = await editStatic(cohortS, { add: [{ distinct_id: "user-y" }], remove: [{ person_id: "0193a7c2-0000-7000-8000-000000000000" }] });
    expect([again.status, again.body]).toEqual([200, {
      cohort_id: cohortS, environment: "production", size: 2, added: 0, removed: 0, not_found: [{ person_id: "0193a7c2-0000-7000-8000-000000000000" }],
    }]);
    const removed = await editStatic(cohortS, { remove: [{ distinct_id: "dev-1" }, { distinct_id: "other" }] });
    expect([removed.status, removed.body]).toEqual([200, { cohort_id: cohortS, environment: "production", size: 1, added: 0, removed: 1, not_found: [] }]);
    const calculated = await materialize(cohortS, { kind: "static", version: 2, definition: null });
    expect([calculated.status, calculated.body]).toEqual([200, { cohort_id: cohortS, environment: "production", version: 2, size: 1, calculated_at: expect.stringMatching(isoPattern) }]);
    // A dynamic cohort can be defined by the static one.
    const preview = await call(service.url, "POST", "/region/eu/cohorts/preview", {
      headers: bearer(writer), body: { definition: { type: "and", values: [{ type: "cohort", cohort_id: cohortS, operator: "in" }] } },
    });
    expect([preview.status, preview.body.size, preview.body.sample.map((person: any) => person.id)]).toEqual([200, 1, [plain]]);
  });

  test("each environment has its own members", async () => {
    const staging = await editStatic(cohortS, { add: [{ distinct_id: "other" }] }, await regionToken(["cohorts:write"], "staging"));
    expect([staging.status, staging.body]).toEqual([200, { cohort_id: cohortS, environment: "staging", size: 1, added: 1, removed: 0, not_found: [] }]);
  });

  test(`at most ${staticCohortPersonsPerCallMax} persons per call, added and removed together`, async () => {
    const ids = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => ({ distinct_id: `${prefix}-${index}` }));
    const atLimit = await editStatic(cohortS, { add: ids(staticCohortPersonsPerCallMax - 1, "nobody"), remove: [{ distinct_id: "missing" }] });
    expect([atLimit.status, atLimit.body.not_found.length, atLimit.body.size]).toEqual([200, staticCohortPersonsPerCallMax, 1]);
    const cases: [unknown, string][] = [
      [{ add: ids(600, "a"), remove: ids(401, "r") }, `a call names at most ${staticCohortPersonsPerCallMax} persons (add and remove together); this one names ${staticCohortPersonsPerCallMax + 1}`],
      [{ add: ids(staticCohortPersonsPerCallMax + 1, "a") }, `body /add: Expected array length to be less or equal to ${staticCohortPersonsPerCallMax}`],
      [{}, "add or remove must name at least one person"],
      [{ add: [], remove: [] }, "add or remove must name at least one person"],
      [{ add: [{ distinct_id: "plain" }], remove: [{ distinct_id: "plain" }] }, `{"distinct_id":"plain"} names a person both added and removed`],
      [{ add: [{ distinct_id: "plain", person_id: "x" }] }, "body /add/0: Expected union value"],
      [{ add: [{ person_id: "42" }] }, "body /add/0: Expected union value"],
      [{ add: [{ distinct_id: "" }] }, "body /add/0: Expected union value"],
    ];
    const replies = [];
    for (const [body] of cases) replies.push(await editStatic(cohortS, body));
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual(cases.map(([, message]) => [400, { error: { code: "bad_request", message } }]));
  });

  test("a dynamic cohort's members are not edited; a static cohort is not calculated from a definition", async () => {
    const definition = { type: "and", values: [{ type: "performed", event: "clicked", count_operator: "gte", count: 1, days: 1 }] };
    expect((await materialize(cohortD, { kind: "dynamic", version: 1, definition })).status).toBe(200);
    const replies = [await editStatic(cohortD, { add: [{ distinct_id: "plain" }] }), await materialize(cohortS, { kind: "dynamic", version: 9, definition })];
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual([
      [409, { error: { code: "conflict", message: `cohort ${cohortD} is dynamic in environment production; only a static cohort's members are edited` } }],
      [409, { error: { code: "conflict", message: `cohort ${cohortS} is static in environment production, not dynamic` } }],
    ]);
  });
});

describe("RegionLink.materializeCohort", () => {
  const links = (): [string, RegionLink][] => [
    ["in process", service.ctx.regions.get("eu")!],
    ["over the internal API", new RemoteRegionLink("eu", `${service.url}/region/eu`, secret)],
  ];

  test("calculates and reports like the region route, in process and over HTTP", async () => {
    // The current persons are user-y (dev-1 merged into it), plain and other; the static cohort holds plain.
    const definition = { type: "and", values: [{ type: "cohort", cohort_id: cohortS, operator: "not_in" }] };
    for (const [how, link] of links()) {
      const version = how === "in process" ? 3 : 4;
      const answer = await link.materializeCohort({ project_id: project.id, environment: "production", cohort_id: cohortD, kind: "dynamic", version, definition });
      expect([how, answer]).toEqual([how, { cohort_id: cohortD, environment: "production", version, size: 2, calculated_at: expect.stringMatching(isoPattern) }]);
    }
  });

  test("a refusal is a RegionRefusal with the region's status, code and message", async () => {
    const missing = "0193a7c2-5555-7000-8000-0000000000ff";
    const unknownProject = "0193a7c2-9999-7000-8000-000000000000";
    for (const [how, link] of links()) {
      const refusals = [];
      for (const request of [
        { project_id: project.id, environment: "production", cohort_id: cohortD, kind: "dynamic" as const, version: 5, definition: { type: "and", values: [{ type: "cohort", cohort_id: missing, operator: "in" }] } },
        { project_id: unknownProject, environment: "production", cohort_id: cohortD, kind: "dynamic" as const, version: 5, definition: null },
        { project_id: project.id, environment: "production", cohort_id: cohortD, kind: "dynamic" as const, version: 5, definition: { type: "or" } },
      ]) {
        const refusal = await link.materializeCohort(request).then(() => null, (error) => error);
        expect(refusal).toBeInstanceOf(RegionRefusal);
        refusals.push([refusal.status, refusal.code, refusal.message]);
      }
      expect([how, refusals]).toEqual([how, [
        [409, "conflict", `cohort ${missing} has no calculated membership in environment production; calculate it there first`],
        [404, "not_found", `project ${unknownProject} in region eu not found`],
        [400, "invalid_query", "/definition/values: is required"],
      ]]);
    }
  });
});
