// POST /query over real HTTP: events go in through /ingest/eu and are queried at once (they
// are still unsealed), in the project's time zone, with the result cache, the per-project
// concurrency limit and the rows-read limit at their edges.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import { instantOf, localTime } from "../../engine/time-zone.ts";
import { concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";

const zone = "America/New_York";
const rowsMax = 20;
let service: TestService;
let owner: SignedUpUser;
let project: any;
let key: string;
let bigProject: any;
let bigKey: string;
let patSecret: string;

const makeProject = (name: string, timezone: string) => createProject(owner, name, "eu", timezone);
const regionToken = (projectId: string, scopes: string[]) => regionTokenFor(service, patSecret, projectId, scopes);
const send = (events: NativeEvent[], apiKey = key) => sendAccepted(service.url, apiKey, events);

const query = (token: string, body: unknown) => call(service.url, "POST", "/region/eu/query", { headers: bearer(token), body });

/** Local day D (three days ago in New York) and the day after, as dates and instants. */
const today = localTime(zone, Date.now());
const dayD = new Date(Date.UTC(today.year, today.month - 1, today.day - 3));
const dayE = new Date(dayD.getTime() + 86_400_000);
const dateText = (date: Date) => date.toISOString().slice(0, 10);
const localInstant = (date: Date, hour: number, minute = 0) => instantOf(zone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hour, minute);

beforeAll(async () => {
  service = await startTestService({ QUERY_ROWS_MAX: String(rowsMax) });
  owner = await signUp(service, "Query owner");
  const created = await makeProject("Queries", zone);
  project = created.project;
  key = created.public_keys[0].key;
  const big = await makeProject("Big", "UTC");
  bigProject = big.project;
  bigKey = big.public_keys[0].key;
  patSecret = (await createToken(owner, ["query:read", "persons:read"])).secret;
  await send([
    // 00:30 and 23:30 local are both day D in New York (23:30 is already the next day in UTC).
    nativeEvent({ event: "page_viewed", distinct_id: "u1", timestamp: rfc3339(localInstant(dayD, 0, 30)), properties: { plan: "pro", price: 10 } }),
    nativeEvent({ event: "page_viewed", distinct_id: "u1", timestamp: rfc3339(localInstant(dayD, 23, 30)), properties: { plan: "free", price: 30 } }),
    nativeEvent({ event: "page_viewed", distinct_id: "u2", timestamp: rfc3339(localInstant(dayE, 10)), properties: { plan: "pro" } }),
    nativeEvent({ event: "signed_up", distinct_id: "u2", timestamp: rfc3339(localInstant(dayE, 11)), properties: {} }),
  ]);
});

afterAll(async () => {
  await service.close();
});

const trendsIr = (series: unknown[], extra: Record<string, unknown> = {}) => ({
  ir_version: 1,
  date_range: { from: dateText(dayD), to: dateText(dayE) },
  insight: { kind: "trends", interval: "day", series, ...extra },
});

describe("POST /query", () => {
  test("trends bucket by the project's local days and include events acknowledged a moment ago", async () => {
    const token = await regionToken(project.id, ["query:read"]);
    const reply = await query(token, { query: trendsIr([{ event: "page_viewed", math: "total" }, { event: "page_viewed", math: "unique_persons" }, { event: "page_viewed", math: "avg", property: "price" }]) });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      result: {
        kind: "trends",
        interval: "day",
        time_zone: zone,
        buckets: [dateText(dayD), dateText(dayE)],
        rows: [
          { series: 0, event: "page_viewed", math: "total", values: [2, 1], total: 3 },
          { series: 1, event: "page_viewed", math: "unique_persons", values: [1, 1], total: 2 },
          { series: 2, event: "page_viewed", math: "avg", values: [20, null], total: 20 },
        ],
      },
      cached: false,
      computed_at: expect.stringMatching(isoPattern),
      rows_read: 4,
    });
  });

  test("a breakdown ranks values by volume; include_sql returns the compiled SQL and its parameters", async () => {
    const token = await regionToken(project.id, ["query:read"]);
    const reply = await query(token, { query: trendsIr([{ event: "page_viewed" }], { breakdown: { type: "event", property: "plan", limit: 1 } }), include_sql: true });
    expect(reply.status).toBe(200);
    expect(reply.body.result.rows).toEqual([
      { series: 0, event: "page_viewed", math: "total", breakdown_value: "pro", breakdown_other: false, values: [1, 1], total: 2 },
      { series: 0, event: "page_viewed", math: "total", breakdown_value: null, breakdown_other: true, values: [1, 0], total: 1 },
    ]);
    expect(reply.body.sql).toStartWith("WITH cells AS (");
    expect(reply.body.sql).toContain("FROM stored_events e");
    expect(reply.body.params).toEqual([
      "page_viewed",
      new Date(localInstant(dayD, 0)).toISOString(),
      new Date(localInstant(new Date(dayE.getTime() + 86_400_000), 0)).toISOString(),
      1,
    ]);
  });

  test("lifecycle reads when each person was created from the person store (u1 on day D, u2 on day E)", async () => {
    const token = await regionToken(project.id, ["query:read"]);
    const reply = await query(token, { query: { ...trendsIr([{ event: "page_viewed" }]), insight: { kind: "lifecycle", interval: "day", series: [{ event: "page_viewed" }] } } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      result: {
        kind: "lifecycle",
        interval: "day",
        time_zone: zone,
        buckets: [dateText(dayD), dateText(dayE)],
        rows: [
          { status: "new", values: [1, 1] },
          { status: "returning", values: [0, 0] },
          { status: "resurrecting", values: [0, 0] },
          { status: "dormant", values: [0, -1] },
        ],
      },
      cached: false,
      computed_at: expect.stringMatching(isoPattern),
      rows_read: 4,
    });
  });

  test("the result cache answers a repeated query until refresh: true", async () => {
    const token = await regionToken(project.id, ["query:read"]);
    const body = { query: trendsIr([{ event: "signed_up" }]) };
    const first = await query(token, body);
    expect(first.body.result.rows[0].total).toBe(1);
    expect(first.body.cached).toBe(false);
    await send([nativeEvent({ event: "signed_up", distinct_id: "u3", timestamp: rfc3339(localInstant(dayE, 12)), properties: {} })]);
    const again = await query(token, body);
    expect([again.status, again.body]).toEqual([200, { ...first.body, cached: true }]);
    const refreshed = await query(token, { ...body, refresh: true });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.cached).toBe(false);
    expect(refreshed.body.result.rows[0]).toEqual({ series: 0, event: "signed_up", math: "total", values: [0, 2], total: 2 });
  });

  test("an answer's values at their bound: 20 series x 5 breakdown groups x 10,000 hours is answered, one group more is 422", async () => {
    const cells = await makeProject("Cells", "UTC");
    await send(["a", "b", "c", "d", "e", "f"].map((plan) => nativeEvent({ event: "e", distinct_id: plan, timestamp: rfc3339(Date.now() - 60_000), properties: { plan } })), cells.public_keys[0].key);
    const hourMs = 3_600_000;
    const end = Math.floor(Date.now() / hourMs) * hourMs + hourMs;
    const document = (limit: number) => ({
      ir_version: 1,
      date_range: { from: new Date(end - 10_000 * hourMs).toISOString(), to: new Date(end).toISOString() },
      insight: { kind: "trends", interval: "hour", series: Array.from({ length: 20 }, () => ({ event: "e" })), breakdown: { type: "event", property: "plan", limit } },
    });
    const token = await regionToken(cells.project.id, ["query:read"]);
    const atBound = await query(token, { query: document(4) });
    expect([atBound.status, atBound.body.result.buckets.length, atBound.body.result.rows.length]).toEqual([200, 10_000, 100]);
    expect(atBound.body.result.rows.reduce((sum: number, row: any) => sum + row.values.length, 0)).toBe(1_000_000);
    const past = await query(token, { query: document(5) });
    expect([past.status, past.body]).toEqual([422, {
      error: {
        code: "query_too_large",
        message: "the answer would hold 20 series x 6 breakdown values x 10000 hour intervals = 1200000 values; at most 1000000 (use fewer series, a lower breakdown limit, a longer interval or a shorter date range)",
      },
    }]);
  });

  test("the result cache keeps at most QUERY_RESULT_CACHE_MB of answers, and /health says how much it holds", async () => {
    const small = await startTestService({ QUERY_RESULT_CACHE_MB: "1" });
    try {
      const user = await signUp(small, "Cache owner");
      const created = await createProject(user, "Cache", "eu", "UTC");
      await sendAccepted(small.url, created.public_keys[0].key, [nativeEvent({ event: "e", properties: { plan: "x" } })]);
      const pat = (await createToken(user, ["query:read"])).secret;
      const token = await regionTokenFor(small, pat, created.project.id, ["query:read"]);
      // Ten series of 1,920 hours: about 76 KB each; thirty limits of the breakdown make thirty answers (of one size).
      const document = (limit: number) => ({
        ir_version: 1, date_range: { from: "-80d" },
        insight: { kind: "trends", interval: "hour", series: Array.from({ length: 10 }, () => ({ event: "e" })), breakdown: { type: "event", property: "plan", limit } },
      });
      const sizes: number[] = [];
      for (let limit = 1; limit <= 30; limit++) {
        const reply = await call(small.url, "POST", "/region/eu/query", { headers: bearer(token), body: { query: document(limit) } });
        expect(reply.status).toBe(200);
        sizes.push(JSON.stringify(reply.body).length);
      }
      const health = await call(small.url, "GET", "/health");
      const results = health.body.caches.results;
      // Thirty answers do not fit in 1 MiB: the oldest went, as many as fit stayed.
      const entryBytes = results.bytes / results.entries;
      expect([results.bytes_max, results.entries, entryBytes > sizes[0]! - 100]).toEqual([1024 * 1024, Math.floor((1024 * 1024) / entryBytes), true]);
    } finally {
      await small.close();
    }
  });

  test("invalid documents get invalid_query with the JSON path of the problem", async () => {
    const token = await regionToken(project.id, ["query:read"]);
    const cases: [unknown, string][] = [
      [trendsIr([{ event: "x", math: "median" }]), "/insight/series/0/math: must be one of total, unique_persons, unique_sessions, unique_groups, sum, avg, min, max, p50, p90, p99"],
      [trendsIr([{ event: "x", math: "sum" }]), "/insight/series/0/property: is required for math sum"],
      [{ ...trendsIr([{ event: "x" }]), date_range: { from: "last tuesday" } }, '/date_range/from: "last tuesday" is not a date expression (now, today, yesterday, -Nh, -Nd, -Nw, -Nm, -Ny, YYYY-MM-DD or an ISO 8601 timestamp)'],
      [{ ...trendsIr([{ event: "x" }]), ir_version: 2 }, "/ir_version: expected 1"],
      [{ ...trendsIr([{ event: "x" }]), filters: [{ type: "event", key: "a", operator: "gt", value: "ten" }] }, "/filters/0/value: must be a number for gt"],
      [{ ...trendsIr([{ event: "x" }]), filters: [{ type: "column", key: "password", operator: "eq", value: 1 }] }, "/filters/0/key: must be one of event, distinct_id, anon_id, session_id, window_id, lib_name, lib_version, consent, geo_country, geo_region, geo_city, geo_timezone, is_suspect"],
      [trendsIr([{ event: "x" }], { periods: 3 }), "/insight/periods: applies to retention insights only"],
      [{ ...trendsIr([{ event: "x" }]), filters: [{ type: "event", key: "a\u0000b", operator: "is_set" }] }, "/filters/0/key: must not contain NUL (U+0000)"],
      [trendsIr([{ event: "x", math: "sum", property: "\u0000" }]), "/insight/series/0/property: must not contain NUL (U+0000)"],
      [trendsIr([{ event: "x" }], { breakdown: { type: "person", property: "x\u0000" } }), "/insight/breakdown/property: must not contain NUL (U+0000)"],
    ];
    for (const [document, message] of cases) {
      const reply = await query(token, { query: document });
      expect([reply.status, reply.body]).toEqual([400, { error: { code: "invalid_query", message } }]);
    }
    const noQuery = await query(token, { include_sql: true });
    expect(noQuery.status).toBe(400);
    expect(noQuery.body.error.code).toBe("bad_request");
  });

  test("ranges of centuries and dates out of 1970-9999 are refused at once, the region and /v1 alike, while /health answers", async () => {
    const token = await regionToken(project.id, ["query:read"]);
    const ranged = (from: string, to?: string) => ({ ...trendsIr([{ event: "x" }]), date_range: to === undefined ? { from } : { from, to } });
    const cases: [unknown, string][] = [
      [ranged("1970-01-01", "9999-12-31"), "/insight/interval: the range has 2932897 day intervals; at most 10000 (use a longer interval or a shorter range)"],
      [ranged("1900-01-01", "9999-12-31"), '/date_range/from: "1900-01-01" is before 1970-01-01, the earliest date a query can name'],
      [ranged("-7000y"), '/date_range/from: "-7000y" is before 1970-01-01, the earliest date a query can name'],
      [ranged("-99999y"), '/date_range/from: "-99999y" is before 1970-01-01, the earliest date a query can name'],
    ];
    const [health, ...replies] = await Promise.all([
      call(service.url, "GET", "/health"),
      ...cases.map(([document]) => query(token, { query: document })),
      ...cases.map(([document]) => call(service.url, "POST", `/v1/projects/${project.id}/query`, { headers: bearer(patSecret), body: { query: document } })),
    ]);
    expect(health.status).toBe(200);
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual([
      ...cases.map(([, message]) => [400, { error: { code: "invalid_query", message } }]),
      ...cases.map(([, message]) => [400, { error: { code: "validation", message: `body /query${message}` } }]),
    ]);
  });

  test("a region token is required, with query:read", async () => {
    const missing = await call(service.url, "POST", "/region/eu/query", { body: { query: trendsIr([{ event: "x" }]) } });
    expect([missing.status, missing.body.error.code]).toEqual([401, "unauthorized"]);
    const personsOnly = await regionToken(project.id, ["persons:read"]);
    const forbidden = await query(personsOnly, { query: trendsIr([{ event: "x" }]) });
    expect([forbidden.status, forbidden.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope query:read" } }]);
  });

  test(`a project's third concurrent query gets 429 too_many_concurrent_queries`, async () => {
    const token = await regionToken(project.id, ["query:read"]);
    const gate = service.queries.get("eu")!.gate;
    const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => gate.tryAcquire(project.id)!);
    try {
      const third = await query(token, { query: trendsIr([{ event: "page_viewed" }]), refresh: true });
      expect([third.status, third.body, third.headers.get("retry-after")]).toEqual([
        429,
        { error: { code: "too_many_concurrent_queries", message: "a project runs at most 2 queries at once; retry when one has finished" } },
        "1",
      ]);
      // Another project is not held back.
      const other = await query(await regionToken(bigProject.id, ["query:read"]), { query: trendsIr([{ event: "page_viewed" }]) });
      expect(other.status).toBe(200);
    } finally {
      for (const release of held) release();
    }
    const after = await query(token, { query: trendsIr([{ event: "page_viewed" }]), refresh: true });
    expect(after.status).toBe(200);
  });

  test("the rows-read limit: exactly the limit is answered, one row more is 422 query_too_large", async () => {
    const token = await regionToken(bigProject.id, ["query:read"]);
    const body = { query: { ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "trends", series: [{ event: "filler" }] } }, refresh: true };
    const filler = (count: number) => Array.from({ length: count }, () => nativeEvent({ event: "filler", distinct_id: "f", timestamp: rfc3339(Date.now() - 60_000), properties: {} }));
    await send(filler(rowsMax), bigKey);
    const atLimit = await query(token, body);
    expect([atLimit.status, atLimit.body.rows_read, atLimit.body.result.rows[0].total]).toEqual([200, rowsMax, rowsMax]);
    await send(filler(1), bigKey);
    const past = await query(token, body);
    expect([past.status, past.body]).toEqual([422, { error: { code: "query_too_large", message: `the query would read ${rowsMax + 1} rows; at most ${rowsMax} (narrow the date range)` } }]);
  });

  test("GET /schema/query-ir publishes the JSON Schema", async () => {
    const reply = await call(service.url, "GET", "/region/eu/schema/query-ir");
    expect(reply.status).toBe(200);
    expect(reply.body.title).toBe("Query IR v1");
    expect(reply.body.required).toEqual(["ir_version", "date_range", "insight"]);
    expect(reply.body.properties.insight.properties.kind.anyOf.map((member: any) => member.const)).toEqual(["trends", "funnel", "retention", "paths", "lifecycle", "stickiness", "revenue"]);
  });
});
