// POST /v1/projects/{id}/query over real HTTP: the control plane validates the Query IR and
// answers a query:read region token plus the exact region request; the test then sends that
// request to the region as is and gets the trends result there (docs/v1-query.md).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern, type Reply } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";

const dayMs = 86_400_000;
const jwtPattern = /^[\w-]+\.[\w-]+\.[\w-]+$/;

let service: TestService;
let owner: SignedUpUser;
let project: any;
let keys: Record<string, string>;
/** Holds more than query:read, so the narrowing to exactly query:read shows. */
let querySecret: string;

/** Day D: two UTC days ago (projects default to UTC); every event is at noon on D. */
const dayD = new Date(Date.now() - 2 * dayMs).toISOString().slice(0, 10);
const noonOfD = Date.parse(`${dayD}T12:00:00Z`);

const pageView = (distinctId: string, minute: number) =>
  nativeEvent({ event: "page_viewed", distinct_id: distinctId, timestamp: rfc3339(noonOfD + minute * 60_000), properties: {} });

const send = (environment: string, events: NativeEvent[]) => sendAccepted(service.url, keys[environment]!, events);

const trendsIr = {
  ir_version: 1,
  date_range: { from: dayD, to: dayD },
  insight: { kind: "trends", interval: "day", series: [{ event: "page_viewed", math: "total" }, { event: "page_viewed", math: "unique_persons" }] },
};

/** The region's answer for trendsIr, given the counts of the environment queried. */
const trendsAnswer = (total: number, persons: number, cached = false) => ({
  result: {
    kind: "trends",
    interval: "day",
    time_zone: "UTC",
    buckets: [dayD],
    rows: [
      { series: 0, event: "page_viewed", math: "total", values: [total], total },
      { series: 1, event: "page_viewed", math: "unique_persons", values: [persons], total: persons },
    ],
  },
  cached,
  computed_at: expect.stringMatching(isoPattern),
  rows_read: total,
});

const queryPath = (projectId: string) => `/v1/projects/${projectId}/query`;
const prepare = (body: unknown, secret = querySecret, projectId: string = project.id, headers: Record<string, string> = {}) =>
  v1(service, secret, "POST", queryPath(projectId), body, headers);

/** Sends the returned RegionRequestDto exactly as given, with the returned token. */
const sendToRegion = (prepared: Reply) =>
  call(prepared.body.request.url, prepared.body.request.method, "", { body: prepared.body.request.body, headers: bearer(prepared.body.region_token.token) });

/** The whole 200 body for the project, given the environment and the region body. */
const preparedBody = (environment: string, body: Record<string, unknown>) => ({
  region_token: {
    token: expect.stringMatching(jwtPattern),
    region_api_url: `${service.url}/region/eu`,
    expires_at: expect.stringMatching(isoPattern),
    region: "eu",
    environment,
    scopes: ["query:read"],
  },
  request: { method: "POST", url: `${service.url}/region/eu/query`, body },
});

const validationError = (message: string) => ({ error: { code: "validation", message } });
const notFoundBody = { error: { code: "not_found", message: "project not found" } };

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Query owner");
  const created = await createProject(owner, "Queries", "eu");
  project = created.project;
  keys = Object.fromEntries(created.public_keys.map((key: any) => [key.environment, key.key]));
  querySecret = (await createToken(owner, ["query:read", "persons:read", "sql.raw"])).secret;
  await send("production", [pageView("u1", 0), pageView("u1", 1), pageView("u2", 2)]);
  await send("staging", [pageView("s1", 0)]);
});
afterAll(async () => {
  await service.close();
});

describe("POST /v1/projects/{project_id}/query", () => {
  test("answers a query:read region token and the region request; sent as is, the region answers the trends result", async () => {
    const before = Date.now();
    const prepared = await prepare({ query: trendsIr });
    expect([prepared.status, prepared.body]).toEqual([200, preparedBody("production", { query: trendsIr, include_sql: false, refresh: false })]);
    const lifeMs = Date.parse(prepared.body.region_token.expires_at) - before;
    expect(lifeMs).toBeGreaterThan(9 * 60_000);
    expect(lifeMs).toBeLessThanOrEqual(10 * 60_000);

    // The region reads project, environment and scopes only from the token.
    const claims = await call(service.url, "GET", "/region/eu/token", { headers: bearer(prepared.body.region_token.token) });
    expect([claims.status, claims.body]).toEqual([200, {
      project_id: project.id,
      data_id: project.data_id,
      environment: "production",
      scopes: ["query:read"],
      region: "eu",
      expires_at: prepared.body.region_token.expires_at,
    }]);

    const answer = await sendToRegion(prepared);
    expect([answer.status, answer.body]).toEqual([200, trendsAnswer(3, 2)]);
  });

  test("include_sql and refresh are passed on to the region", async () => {
    const prepared = await prepare({ query: trendsIr, include_sql: true, refresh: true });
    expect([prepared.status, prepared.body]).toEqual([200, preparedBody("production", { query: trendsIr, include_sql: true, refresh: true })]);
    const answer = await sendToRegion(prepared);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...trendsAnswer(3, 2), sql: expect.stringContaining("FROM events e"), params: expect.any(Array) });
  });

  test("environment selects the token's environment: staging and development see only their own events", async () => {
    const staging = await prepare({ query: trendsIr, environment: "staging" });
    expect([staging.status, staging.body]).toEqual([200, preparedBody("staging", { query: trendsIr, include_sql: false, refresh: false })]);
    const stagingAnswer = await sendToRegion(staging);
    expect([stagingAnswer.status, stagingAnswer.body]).toEqual([200, trendsAnswer(1, 1)]);

    const development = await prepare({ query: trendsIr, environment: "development", refresh: true });
    expect([development.status, development.body]).toEqual([200, preparedBody("development", { query: trendsIr, include_sql: false, refresh: true })]);
    const developmentAnswer = await sendToRegion(development);
    expect([developmentAnswer.status, developmentAnswer.body]).toEqual([200, trendsAnswer(0, 0)]);

    const byDefault = await prepare({ query: trendsIr, environment: null });
    expect([byDefault.status, byDefault.body]).toEqual([200, preparedBody("production", { query: trendsIr, include_sql: false, refresh: false })]);

    const unknown = await prepare({ query: trendsIr, environment: "qa" });
    expect([unknown.status, unknown.body]).toEqual([400, validationError('unknown environment "qa"')]);
  });

  test("an invalid Query IR is 400 validation naming the JSON path inside the request body", async () => {
    const cases: [unknown, string][] = [
      [{ ...trendsIr, insight: { ...trendsIr.insight, series: [{ event: "x", math: "median" }] } },
        "body /query/insight/series/0/math: must be one of total, unique_persons, unique_sessions, unique_groups, sum, avg, min, max, p50, p90, p99"],
      [{ ...trendsIr, insight: { ...trendsIr.insight, series: [{ event: "x", math: "sum" }] } }, "body /query/insight/series/0/property: is required for math sum"],
      [{ ...trendsIr, date_range: { from: "last tuesday" } },
        'body /query/date_range/from: "last tuesday" is not a date expression (now, today, yesterday, -Nh, -Nd, -Nw, -Nm, -Ny, YYYY-MM-DD or an ISO 8601 timestamp)'],
      [{ ...trendsIr, ir_version: 2 }, "body /query/ir_version: expected 1"],
      [{ ...trendsIr, filters: [{ type: "event", key: "a", operator: "gt", value: "ten" }] }, "body /query/filters/0/value: must be a number for gt"],
      [{ ...trendsIr, insight: { ...trendsIr.insight, periods: 3 } }, "body /query/insight/periods: applies to retention insights only"],
    ];
    for (const [query, message] of cases) {
      const reply = await prepare({ query });
      expect([reply.status, reply.body]).toEqual([400, validationError(message)]);
    }
  });

  test("the request body itself is checked first: query is required and must be an object; unknown members are refused", async () => {
    const missing = await prepare({ include_sql: true });
    expect([missing.status, missing.body]).toEqual([400, validationError("body /query: Expected required property")]);
    const array = await prepare({ query: [] });
    expect([array.status, array.body]).toEqual([400, validationError("body /query: Expected object")]);
    const extra = await prepare({ query: trendsIr, format: "csv" });
    expect([extra.status, extra.body]).toEqual([400, validationError("body /format: Unexpected property")]);
  });

  test("a valid document of any insight kind passes: which kinds run is the region's decision", async () => {
    const paths = { ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "paths" } };
    const prepared = await prepare({ query: paths });
    expect([prepared.status, prepared.body]).toEqual([200, preparedBody("production", { query: paths, include_sql: false, refresh: false })]);
  });

  test("a token without query:read gets 403 missing_scope, even with a valid document", async () => {
    const { secret } = await createToken(owner, ["projects:read", "persons:read"]);
    const reply = await prepare({ query: trendsIr }, secret);
    expect([reply.status, reply.body]).toEqual([403, { error: { code: "missing_scope", message: "requires scope `query:read`" } }]);
  });

  test("unknown, malformed and another organisation's project ids, and projects outside the token's list, are 404", async () => {
    const stranger = await signUp(service, "Other tenant");
    const foreign = await createProject(stranger, "Theirs", "eu");
    const sibling = await createProject(owner, "Sibling", "eu");
    const restricted = await createToken(owner, ["query:read"], { project_ids: [sibling.project.id] });
    const replies = [
      await prepare({ query: trendsIr }, querySecret, crypto.randomUUID()),
      await prepare({ query: trendsIr }, querySecret, "not-a-uuid"),
      await prepare({ query: trendsIr }, querySecret, foreign.project.id),
      await prepare({ query: trendsIr }, restricted.secret, project.id),
    ];
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual(Array.from({ length: 4 }, () => [404, notFoundBody]));
  });

  test("a read, not a W route: dry_run and Idempotency-Key do not apply", async () => {
    const dryRun = await v1(service, querySecret, "POST", `${queryPath(project.id)}?dry_run=true`, { query: trendsIr });
    expect([dryRun.status, dryRun.body]).toEqual([200, preparedBody("production", { query: trendsIr, include_sql: false, refresh: false })]);

    const headers = { "Idempotency-Key": "same-key" };
    const first = await prepare({ query: trendsIr }, querySecret, project.id, headers);
    const second = await prepare({ query: trendsIr, environment: "staging" }, querySecret, project.id, headers);
    expect([second.status, second.body, second.headers.get("idempotent-replayed")]).toEqual([
      200, preparedBody("staging", { query: trendsIr, include_sql: false, refresh: false }), null,
    ]);
    expect(first.body.region_token.token).not.toBe(second.body.region_token.token);
  });

  test("/openapi.json declares the operation: scope, request and response schemas, no dry_run or Idempotency-Key", async () => {
    const { paths, components } = (await call(service.url, "GET", "/openapi.json")).body;
    const operation = paths["/v1/projects/{project_id}/query"].post;
    const component = (schema: { $ref: string }) => components.schemas[schema.$ref.replace("#/components/schemas/", "")];
    const request = component(operation.requestBody.content["application/json"].schema);
    expect({
      operationId: operation.operationId,
      scope: operation["x-required-scope"],
      parameters: operation.parameters.map((parameter: any) => `${parameter.in}:${parameter.name}`),
      requestBody: [operation.requestBody.required, request.title],
      required: request.required,
      response: component(operation.responses["200"].content["application/json"].schema).title,
      statuses: Object.keys(operation.responses),
    }).toEqual({
      operationId: "prepareQuery",
      scope: "query:read",
      parameters: ["path:project_id"],
      requestBody: [true, "V1QueryRequest"],
      required: ["query"],
      response: "V1QueryResponse",
      statuses: ["200", "400", "401", "403", "404", "429"],
    });
  });
});
