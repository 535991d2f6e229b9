// Seeded fuzz of the region's query surfaces over real HTTP: malformed and extreme Query IR
// documents (on /query and /v1's query route) and SQL texts (on /sql), against a project with
// data. Every answer must be a client error or a result (never 5xx), in the spec's error shape,
// and the service must stay within its memory: the bounds of issue 34 (bucket counts, answer
// sizes, date ranges, NUL, time-outs) are what keep it so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp } from "../helpers/accounts.ts";
import { bearer, call, type Reply } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted } from "../ingest/helpers.ts";
import { seededRandom } from "../engine/dataset.ts";

const queryDocuments = 400;
/** Each statement starts a process of its own (about a second here), so the SQL part is short. */
const sqlTexts = 16;
/** Growth of the process's resident memory the whole fuzz may cause. */
const rssGrowthMax = 768 * 1024 * 1024;

let service: TestService;
let projectId: string;
let pat: string;
let queryToken: string;
let sqlToken: string;
const random = seededRandom(3434);

const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const integer = (max: number) => Math.floor(random() * max);

beforeAll(async () => {
  service = await startTestService({ QUERY_TIMEOUT_MS: "2000" });
  const owner = await signUp(service, "Fuzz owner");
  const created = await createProject(owner, "Fuzzed", "eu", "Pacific/Chatham");
  projectId = created.project.id;
  pat = (await createToken(owner, ["query:read", "sql.raw"])).secret;
  const events = Array.from({ length: 300 }, (_, index) =>
    nativeEvent({
      event: pick(["$pageview", "signed_up", "purchase", "clicked"]),
      distinct_id: `user-${index % 40}`,
      timestamp: rfc3339(Date.now() - integer(30 * 86_400_000)),
      properties: { plan: pick(["free", "pro", "Pro", null]), price: integer(1000), $current_url: `https://x.test/${"p".repeat(integer(50))}`, currency: pick(["USD", "EUR", "JPY"]) },
    }),
  );
  for (let start = 0; start < events.length; start += 100) await sendAccepted(service.url, created.public_keys[0].key, events.slice(start, start + 100));
  queryToken = await regionTokenFor(service, pat, projectId, ["query:read"]);
  sqlToken = await regionTokenFor(service, pat, projectId, ["sql.raw"]);
});

afterAll(async () => {
  await service.close();
});

const hostileStrings = ["", " ", "\u0000", "a\u0000b", "'; DROP TABLE events; --", '"', "\\", "\n", "é", "🦆".repeat(100), "x".repeat(5000), "$pageview", "-99999y", "1900-01-01", "9999-12-31", "now", "-1d"];
const extremeNumbers = [0, -1, 1, 2 ** 31, -(2 ** 53), 1e308, -1e-308, 0.5, 10_000, 10_001, 1000, 1001];

function randomValue(depth = 0): unknown {
  switch (integer(depth > 3 ? 4 : 7)) {
    case 0:
      return pick(hostileStrings);
    case 1:
      return pick(extremeNumbers);
    case 2:
      return pick([true, false, null]);
    case 3:
      return pick(["trends", "funnel", "retention", "paths", "lifecycle", "stickiness", "revenue", "hour", "day", "week", "month", "total", "unique_persons", "p99", "event", "person", "column", "group", "eq", "regex", "in", "is_set"]);
    case 4: {
      // Long arrays hold scalars only, so a document stays within the body limits' reach.
      const length = pick([0, 1, 2, 21, 51, 1001]);
      return Array.from({ length }, () => randomValue(length > 2 ? 4 : depth + 1));
    }
    case 5:
      return Object.fromEntries(Array.from({ length: integer(4) }, () => [pick(["kind", "event", "math", "key", "value", "operator", "type", "from", "to", "limit", "property", "periods"]), randomValue(depth + 1)]));
    default: {
      let nested: unknown = "deep";
      for (let level = 0; level < 200; level++) nested = { insight: nested };
      return nested;
    }
  }
}

/** A plausible document: right structure, extreme members. */
function extremeDocument(): Record<string, unknown> {
  const kind = pick(["trends", "funnel", "retention", "paths", "lifecycle", "stickiness", "revenue"]);
  const series = Array.from({ length: pick([1, 2, 3, 20]) }, () => ({ event: pick(["$pageview", "signed_up", "purchase", null]), ...(kind === "trends" ? { math: pick(["total", "unique_persons", "p90", "sum"]), property: "price" } : {}) }));
  const insight: Record<string, unknown> = { kind, series, interval: pick(["hour", "day", "week", "month"]) };
  if (kind === "trends" || kind === "funnel") insight.breakdown = { type: pick(["event", "person", "column"]), property: pick(["plan", "Plan", "$current_url", "event", "a\u0000b"]), limit: pick([1, 25, 1000]) };
  if (kind === "retention") insight.periods = pick([1, 7, 366]);
  if (kind === "paths") Object.assign(insight, { depth: pick([2, 20]), edges: pick([1, 1000]), series: [] });
  if (kind === "funnel") insight.funnel_window = { value: pick([1, 10_000]), unit: pick(["minute", "month"]) };
  return {
    ir_version: 1,
    date_range: { from: pick(["-7d", "-12w", "-1y", "-27y", "-99999h", "1970-01-01", "2026-01-01T00:00:00+14:00", "-99999y"]), to: pick(["now", "9999-12-31", "today", "1970-01-02"]) },
    filters: Array.from({ length: pick([0, 1, 50]) }, () => ({ type: "event", key: pick(["plan", "price", "x".repeat(400)]), operator: pick(["eq", "regex", "gt", "in", "is_set"]), value: pick(["(a+)+$", "pro", 5, ["a", "b"]]) })),
    insight,
  };
}

/** A document with one member replaced by a random value, or a random value altogether. */
function mutatedDocument(): unknown {
  if (random() < 0.1) return randomValue();
  const document = extremeDocument();
  const path = pick([["ir_version"], ["date_range"], ["date_range", "from"], ["filters"], ["insight"], ["insight", "kind"], ["insight", "series"], ["insight", "interval"], ["insight", "breakdown"]]);
  let target = document as Record<string, unknown>;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[path.at(-1)!] = randomValue();
  return document;
}

const sqlFragments = [
  "SELECT", "*", "count(*)", "FROM events", "FROM", "WHERE", "event = $1", "p_plan", '"p_Plan_2"', "GROUP BY ALL", "ORDER BY 1", "LIMIT 5", "(", ")", ";", "'", '"',
  "\u0000", "range(10000000000000)", "repeat('x', 100000000)", "read_parquet('/etc/passwd')", "ATTACH ':memory:' AS x", "PRAGMA version", "COPY events TO '/tmp/x'",
  "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r", "SELECT * FROM person_overrides", "DESCRIBE events", "SUMMARIZE events",
  "unnest(range(1000000))", "string_agg(properties, ',')", "'🦆'", "--", "/*", "*/", "x".repeat(1000),
];

/** Statements every run tries first: a file outside the sandbox, a NUL, one past the time-out, one past the memory. */
const firstSql = ["SELECT * FROM read_parquet('/etc/passwd')", "SELECT 1\u0000; DROP TABLE events", "SELECT sum(x) FROM range(10000000000000) t(x)", "SELECT repeat('x', 100000000) FROM range(100)"];

function randomSql(index: number): string {
  if (index < firstSql.length) return firstSql[index]!;
  if (random() < 0.3) return pick(sqlFragments.filter((fragment) => fragment.length > 20));
  return Array.from({ length: 1 + integer(8) }, () => pick(sqlFragments)).join(" ");
}

/** A client error or a result, in the region's error shape when it is an error. */
function expectHandled(reply: Reply, input: unknown): void {
  const ok = reply.status === 200 || (reply.status >= 400 && reply.status < 500 && typeof reply.body?.error?.code === "string" && typeof reply.body?.error?.message === "string");
  if (!ok) throw new Error(`unhandled answer ${reply.status} ${JSON.stringify(reply.body).slice(0, 500)} to ${JSON.stringify(input).slice(0, 500)}`);
}

describe("fuzz", () => {
  test(`${queryDocuments} malformed and extreme Query IR documents and ${sqlTexts} SQL texts: never 5xx, always answered, memory bounded`, async () => {
    const rssBefore = process.memoryUsage().rss;
    const statuses = new Map<number, number>();
    const count = (reply: Reply) => statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    for (let index = 0; index < queryDocuments; index++) {
      const document = random() < 0.5 ? extremeDocument() : mutatedDocument();
      const region = await call(service.url, "POST", "/region/eu/query", { headers: bearer(queryToken), body: { query: document, include_sql: random() < 0.5, refresh: true } });
      expectHandled(region, document);
      count(region);
      if (index % 4 === 0) {
        const v1 = await call(service.url, "POST", `/v1/projects/${projectId}/query`, { headers: bearer(pat), body: { query: document } });
        expectHandled(v1, document);
        count(v1);
      }
    }
    for (let index = 0; index < sqlTexts; index++) {
      const text = randomSql(index);
      const reply = await call(service.url, "POST", "/region/eu/sql", { headers: bearer(sqlToken), body: { sql: text, params: random() < 0.5 ? ["signed_up"] : [] } });
      expectHandled(reply, text);
      count(reply);
    }
    const growth = process.memoryUsage().rss - rssBefore;
    // Results and every kind of refusal occurred, and the process grew less than the bound.
    expect([[...statuses.keys()].sort(), growth < rssGrowthMax]).toEqual([[200, 400, 403, 413, 422], true]);
  });
});
