// POST /sql over real HTTP: one read-only SELECT over the token's project environment only,
// reading compacted Parquet parts, sealed segments and unsealed rows together; every way out
// of the sandbox (files, URLs, extensions, settings, other statements) refused with the exact
// error body; the row limit at its edge; parameters; the shared concurrency gate.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import { QueryGate, concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";
import { SqlService, sqlAnswerBytesMax, sqlRowsMax } from "../../server/region/sql-service.ts";
import { ApiError } from "../../server/http/errors.ts";
import { sandboxProcessesMax, sandboxProcessesPerTenantMax, sandboxSlots } from "../../engine/sql/sandbox-slots.ts";
import type { RegionClaims } from "../../server/region/region-auth.ts";

let service: TestService;
let owner: SignedUpUser;
let patSecret: string;
let project: { id: string };
let other: { id: string };
let otherParquet: string;
let ownParquet: string;
let claims: RegionClaims;

/** Three days ago at 10:00 UTC, plus `minutes`. */
const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
const at = (minutes: number) => Date.parse(`${day}T10:00:00Z`) + minutes * 60_000;
const iso = (minutes: number) => new Date(at(minutes)).toISOString();

const makeProject = (name: string) =>
  createProject(owner, name, "eu", "UTC") as Promise<{ project: { id: string }; public_keys: { key: string; environment: string }[] }>;

const keyOf = (created: Awaited<ReturnType<typeof makeProject>>, environment: string) => created.public_keys.find((key) => key.environment === environment)!.key;

const send = (apiKey: string, events: NativeEvent[]) => sendAccepted(service.url, apiKey, events);
const regionToken = (projectId: string, scopes: string[]) => regionTokenFor(service, patSecret, projectId, scopes);

const event = (name: string, distinctId: string, minutes: number, properties: Record<string, unknown>) =>
  nativeEvent({ event: name, distinct_id: distinctId, timestamp: rfc3339(at(minutes)), properties });

let sqlToken: string;
const sql = (body: unknown, token = sqlToken) => call(service.url, "POST", "/region/eu/sql", { headers: bearer(token), body });

/** Every file under `dir`. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "SQL owner");
  patSecret = (await createToken(owner, ["query:read", "sql.raw"])).secret;
  const created = await makeProject("SQL");
  project = created.project;
  const otherCreated = await makeProject("Other tenant");
  other = otherCreated.project;
  const events = service.nodes.get("eu")!.events;

  // The other project's rows are compacted into Parquet, so there is a real file to aim at.
  await send(keyOf(otherCreated, "production"), [event("secret_event", "them", 0, { secret: "other-tenant" })]);
  // Three tiers of this project's production rows: a Parquet part, a sealed segment, unsealed rows.
  await send(keyOf(created, "production"), [
    event("page_viewed", "u1", 0, { plan: "pro", price: 10 }),
    event("page_viewed", "u1", 5, { plan: "free", price: 30 }),
  ]);
  await events.flush();
  await send(keyOf(created, "production"), [event("page_viewed", "u2", 10, { plan: "pro", beta: true })]);
  await events.seal();
  await send(keyOf(created, "production"), [event("signed_up", "u2", 15, {})]);
  // Staging rows of the same project are another environment: never in a production token's view.
  await send(keyOf(created, "staging"), [event("staging_only", "u9", 0, { plan: "pro" })]);

  sqlToken = await regionToken(project.id, ["sql.raw"]);
  const otherToken = await regionToken(other.id, ["sql.raw"]);
  const whoAmI = await call(service.url, "GET", "/region/eu/token", { headers: bearer(otherToken) });
  otherParquet = filesUnder(join(service.dataDir, "eu", "parquet", String(whoAmI.body.data_id))).find((file) => file.endsWith(".parquet"))!;
  expect(otherParquet).toBeDefined();
  const mine = await call(service.url, "GET", "/region/eu/token", { headers: bearer(sqlToken) });
  ownParquet = filesUnder(join(service.dataDir, "eu", "parquet", String(mine.body.data_id))).find((file) => file.endsWith(".parquet"))!;
  claims = { orgId: owner.orgId, projectId: project.id, dataId: mine.body.data_id, environment: "production", scopes: ["sql.raw"], region: "eu", expiresAt: mine.body.expires_at };
});

afterAll(async () => {
  await service.close();
});

const refused = (status: number, code: string, message: string) => [status, { error: { code, message } }];
const permission = (path: string, sqlText: string, caret: number) =>
  `Permission Error: Cannot access file "${path}" - file system operations are disabled by configuration\n\nLINE 1: ${sqlText}\n${" ".repeat(caret)}^`;
const notSelect = (type: string) => refused(400, "invalid_query", `only a SELECT statement can run here; this is ${type}`);

describe("POST /sql", () => {
  test("reads the project environment's Parquet parts, sealed segments and unsealed rows as one events view", async () => {
    const reply = await sql({ sql: "SELECT event, distinct_id, timestamp, p_plan, p_price, p_beta, person_id FROM events ORDER BY timestamp" });
    expect([reply.status, reply.body]).toEqual([200, {
      columns: ["event", "distinct_id", "timestamp", "p_plan", "p_price", "p_beta", "person_id"],
      types: ["VARCHAR", "VARCHAR", "TIMESTAMP WITH TIME ZONE", "VARCHAR", "DOUBLE", "VARCHAR", "INTEGER"],
      rows: [
        ["page_viewed", "u1", iso(0), "pro", 10, null, 0],
        ["page_viewed", "u1", iso(5), "free", 30, null, 0],
        ["page_viewed", "u2", iso(10), "pro", null, "true", 1],
        ["signed_up", "u2", iso(15), null, null, null, 1],
      ],
      truncated: false,
    }]);
  });

  test("the view holds the fixed columns, one p_<key> per property and person_id; nothing of staging or another project", async () => {
    const described = await sql({ sql: "SELECT column_name, column_type FROM (DESCRIBE events)" });
    expect(described.status).toBe(200);
    expect(described.body.rows).toEqual([
      ...["uuid", "event"].map((name) => [name, "VARCHAR"]),
      ["timestamp", "TIMESTAMP WITH TIME ZONE"],
      ...["distinct_id", "anon_id", "session_id", "window_id", "lib_name", "lib_version", "consent"].map((name) => [name, "VARCHAR"]),
      ["sample_rate", "DOUBLE"],
      ...["geo_country", "geo_region", "geo_city", "geo_timezone"].map((name) => [name, "VARCHAR"]),
      ["is_suspect", "BOOLEAN"],
      ["person_index", "INTEGER"],
      ...["$group_0", "$group_1", "$group_2", "$group_3", "$group_4", "groups", "set", "set_once", "properties"].map((name) => [name, "VARCHAR"]),
      ["p_beta", "VARCHAR"],
      ["p_plan", "VARCHAR"],
      ["p_price", "DOUBLE"],
      ["person_id", "INTEGER"],
    ]);
    const counted = await sql({ sql: "SELECT event, count(*) AS n FROM events GROUP BY ALL ORDER BY ALL" });
    expect([counted.status, counted.body]).toEqual([200, { columns: ["event", "n"], types: ["VARCHAR", "BIGINT"], rows: [["page_viewed", 3], ["signed_up", 1]], truncated: false }]);
  });

  test("params bind in order: whole numbers as BIGINT, other numbers as DOUBLE, text, booleans and null", async () => {
    const typed = await sql({ sql: "SELECT $1 AS text, $2 AS whole, $3 AS fraction, $4 AS flag, $5 AS nothing", params: ["a'b", 7, 2.5, true, null] });
    expect([typed.status, typed.body]).toEqual([200, {
      columns: ["text", "whole", "fraction", "flag", "nothing"],
      types: ["VARCHAR", "BIGINT", "DOUBLE", "BOOLEAN", "INTEGER"],
      rows: [["a'b", 7, 2.5, true, null]],
      truncated: false,
    }]);
    const filtered = await sql({ sql: "SELECT count(*) AS n FROM events WHERE event = ? AND p_price > ?", params: ["page_viewed", 15] });
    expect(filtered.body.rows).toEqual([[1]]);
    const missing = await sql({ sql: "SELECT $1" });
    expect([missing.status, missing.body]).toEqual(refused(400, "invalid_query", "params has 0 values; the statement takes 1"));
    const extra = await sql({ sql: "SELECT $1", params: [1, 2] });
    expect([extra.status, extra.body]).toEqual(refused(400, "invalid_query", "params has 2 values; the statement takes 1"));
  });

  test("values become JSON: exact integers as numbers, larger as text, instants (Z) and local times (no Z) as ISO, nested types as JSON", async () => {
    const reply = await sql({
      sql: `SELECT 9007199254740991::BIGINT AS safe, 9007199254740993::BIGINT AS unsafe, 42::HUGEINT AS huge, 1.5 AS dec,
        DATE '2024-01-02' AS d, TIMESTAMP '2024-01-01 10:00:00.123456' AS naive, TIMESTAMPTZ '2024-01-01 12:00:00+02' AS tz,
        'infinity'::TIMESTAMP AS forever, [1, 2] AS list, {'a': 1, 'b': 'x'} AS struct, 'NaN'::DOUBLE AS nan,
        INTERVAL 1 DAY AS span, '8a0d0826-bf0d-4a5f-a4ec-f98d45a6ae44'::UUID AS id`,
    });
    expect([reply.status, reply.body]).toEqual([200, {
      columns: ["safe", "unsafe", "huge", "dec", "d", "naive", "tz", "forever", "list", "struct", "nan", "span", "id"],
      types: ["BIGINT", "BIGINT", "HUGEINT", "DECIMAL(2,1)", "DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP", "INTEGER[]", 'STRUCT("a" INTEGER, "b" VARCHAR)', "DOUBLE", "INTERVAL", "UUID"],
      rows: [[9007199254740991, "9007199254740993", 42, 1.5, "2024-01-02", "2024-01-01T10:00:00.123", "2024-01-01T10:00:00.000Z", "infinity", [1, 2], { a: 1, b: "x" }, "NaN", "1 day", "8a0d0826-bf0d-4a5f-a4ec-f98d45a6ae44"]],
      truncated: false,
    }]);
  });

  test(`the row limit: exactly ${sqlRowsMax} rows are not truncated, one more is`, async () => {
    const numbers = Array.from({ length: sqlRowsMax }, (_, n) => [n]);
    const atLimit = await sql({ sql: "SELECT range AS n FROM range($1)", params: [sqlRowsMax] });
    expect([atLimit.status, atLimit.body]).toEqual([200, { columns: ["n"], types: ["BIGINT"], rows: numbers, truncated: false }]);
    const past = await sql({ sql: "SELECT range AS n FROM range($1)", params: [sqlRowsMax + 1] });
    expect([past.status, past.body]).toEqual([200, { columns: ["n"], types: ["BIGINT"], rows: numbers, truncated: true }]);
  });

  test(`answers stop at ${sqlAnswerBytesMax / 1024 / 1024} MiB of rows, marked truncated`, async () => {
    const rowBytes = 1_000_000;
    const reply = await sql({ sql: "SELECT repeat('x', $1) AS s FROM range(40)", params: [rowBytes] });
    const fitting = Math.floor((sqlAnswerBytesMax - 2) / (rowBytes + 5));
    expect([reply.status, reply.body.rows.length, reply.body.truncated]).toEqual([200, fitting, true]);
  });

  test("files, URLs, globs and other projects' Parquet are refused 403 without revealing whether they exist", async () => {
    const cases: [string, unknown[], string, number][] = [
      ["SELECT * FROM read_csv('/etc/passwd')", [], "/etc/passwd", 22],
      ["SELECT * FROM read_text('/etc/passwd')", [], "/etc/passwd", 22],
      ["SELECT * FROM read_blob('/etc/passwd')", [], "/etc/passwd", 22],
      ["SELECT * FROM glob('/**')", [], "/**", 22],
      ["SELECT * FROM read_parquet($1)", [otherParquet], otherParquet, 22],
      ["SELECT * FROM read_parquet($1)", [join(otherParquet, "..", "part-99999999.parquet")], join(otherParquet, "..", "part-99999999.parquet"), 22],
      // The project's own files too: the view reads pinned copies (see docs/sql.md), never the storage's files.
      ["SELECT * FROM read_parquet($1)", [ownParquet], ownParquet, 22],
      ["SELECT * FROM read_parquet('https://example.com/x.parquet')", [], "https://example.com/x.parquet", 22],
      ["SELECT * FROM read_json('http://169.254.169.254/latest/meta-data')", [], "http://169.254.169.254/latest/meta-data", 22],
    ];
    for (const [text, params, path, caret] of cases) {
      const reply = await sql({ sql: text, params });
      expect([text, reply.status, reply.body]).toEqual([text, ...refused(403, "forbidden", permission(path, text, caret))]);
    }
    // The other project's path written into the SQL: DuckDB shortens the quoted line, the refusal is the same.
    const literal = await sql({ sql: `SELECT * FROM read_parquet('${otherParquet}')` });
    expect([literal.status, literal.body.error.code, literal.body.error.message.split("\n")[0]]).toEqual([
      403, "forbidden", `Permission Error: Cannot access file "${otherParquet}" - file system operations are disabled by configuration`,
    ]);
    expect(JSON.stringify(literal.body)).not.toContain("other-tenant");
  });

  test("anything but one SELECT is refused 400 before it runs: DDL, DML, ATTACH, INSTALL, LOAD, SET, RESET, PRAGMA, EXPLAIN, CALL", async () => {
    const cases: [string, unknown][] = [
      ["CREATE TABLE t (x INTEGER)", notSelect("CREATE")],
      ["CREATE TEMP VIEW v AS SELECT 1", notSelect("CREATE")],
      ["INSERT INTO person_overrides VALUES (1, 2)", notSelect("INSERT")],
      ["DELETE FROM person_overrides", notSelect("DELETE")],
      ["UPDATE person_overrides SET person_id = 0", notSelect("UPDATE")],
      ["DROP VIEW events", notSelect("DROP")],
      ["ATTACH ':memory:' AS m", notSelect("ATTACH")],
      ["ATTACH '/tmp/sql-test.db' AS m", notSelect("ATTACH")],
      ["DETACH memory", notSelect("DETACH")],
      ["INSTALL httpfs", notSelect("LOAD")],
      ["LOAD httpfs", notSelect("LOAD")],
      ["SET threads = 4", notSelect("SET")],
      ["SET enable_external_access = true", notSelect("SET")],
      ["RESET threads", notSelect("SET")],
      ["PRAGMA threads = 4", notSelect("SET")],
      ["USE system", notSelect("SET")],
      ["EXPLAIN SELECT 1", notSelect("EXPLAIN")],
      ["CALL pragma_version()", notSelect("CALL")],
      ["CHECKPOINT", notSelect("CALL")],
      ["SELECT 1; SELECT 2", refused(400, "invalid_query", "sql holds 2 statements; send exactly one SELECT")],
      ["SELECT 1; DROP VIEW events", refused(400, "invalid_query", "sql holds 2 statements; send exactly one SELECT")],
      ["-- a comment only", refused(400, "invalid_query", "sql holds no statement")],
      ["SELEC 1", refused(400, "invalid_query", 'Parser Error: syntax error at or near "SELEC"\n\nLINE 1: SELEC 1\n        ^')],
      ["SELECT getenv('HOME')", refused(400, "invalid_query", 'Catalog Error: Scalar Function with name getenv does not exist!\nDid you mean "get_current_time"?\n\nLINE 1: SELECT getenv(\'HOME\')\n               ^')],
      // Writing a file is refused while DuckDB binds the statement, before its type is looked at.
      ["COPY (SELECT 1) TO '/tmp/sql-test-out.csv'", refused(403, "forbidden", 'Permission Error: Cannot access file "/tmp/sql-test-out.csv" - file system operations are disabled by configuration')],
    ];
    for (const [text, expected] of cases) {
      const reply = await sql({ sql: text });
      expect([text, reply.status, reply.body]).toEqual([text, ...(expected as unknown[])]);
    }
    expect([existsSync("/tmp/sql-test-out.csv"), existsSync("/tmp/sql-test.db")]).toEqual([false, false]);
    // The view is still there and unchanged: every session starts afresh.
    const after = await sql({ sql: "SELECT count(*) AS n FROM events" });
    expect(after.body.rows).toEqual([[4]]);
  });

  test("binder and runtime errors are 400 invalid_query with DuckDB's message", async () => {
    const unknown = await sql({ sql: "SELECT nope FROM events" });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.message.split("\n")[0]]).toEqual([400, "invalid_query", 'Binder Error: Referenced column "nope" not found in FROM clause!']);
    const conversion = await sql({ sql: "SELECT 'a'::INTEGER" });
    expect([conversion.status, conversion.body]).toEqual(refused(400, "invalid_query", "Conversion Error: Could not convert string 'a' to INT32\n\nLINE 1: SELECT 'a'::INTEGER\n                  ^"));
  });

  test("a query that builds more than the sandbox's memory is 422 query_too_large, and the service goes on", async () => {
    const reply = await sql({ sql: "SELECT repeat('x', 100000000) FROM range(100)" });
    expect([reply.status, reply.body]).toEqual(refused(422, "query_too_large", "the query needs more than 1 GiB of memory; filter or aggregate more"));
    const next = await sql({ sql: "SELECT 1 AS one" });
    expect(next.body.rows).toEqual([[1]]);
  });

  test("a statement past the time-out is interrupted: 422 query_too_large", async () => {
    const scratchDir = mkdtempSync(join(tmpdir(), "sql-timeout-"));
    try {
      const quick = new SqlService(service.nodes.get("eu")!, service.queries.get("eu")!.columns, new QueryGate(), { scratchDir, timeoutMs: 1_500 });
      const error = await quick.run(claims, { sql: "SELECT sum(x) FROM range(10000000000000) t(x)" }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect([(error as ApiError).status, (error as ApiError).code, (error as ApiError).message]).toEqual([422, "query_too_large", "the query ran past the 1.5 s limit; filter or aggregate more"]);
      // The request's scratch copies are gone.
      expect(readdirSync(scratchDir)).toEqual([]);
    } finally {
      rmSync(scratchDir, { recursive: true, force: true });
    }
  });

  test("hostile property keys are quoted and keys that differ only in letter case keep their own columns; the view never breaks", async () => {
    const created = await makeProject("Hostile keys");
    const long = "k".repeat(1000);
    await send(keyOf(created, "production"), [
      event("e", "a", 0, { plan: "lower", 'say "hi"': 1, "back\\slash": 2, [long]: 3, "it's": 4 }),
      event("e", "b", 1, { Plan: "upper" }),
    ]);
    const token = await regionToken(created.project.id, ["sql.raw"]);
    const reply = await sql({ sql: `SELECT distinct_id, "p_Plan", "p_plan_2", "p_say ""hi""", "p_back\\slash", "p_${long}", "p_it's" FROM events ORDER BY distinct_id` }, token);
    expect([reply.status, reply.body]).toEqual([200, {
      columns: ["distinct_id", "p_Plan", "p_plan_2", 'p_say "hi"', "p_back\\slash", `p_${long}`, "p_it's"],
      types: ["VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE"],
      rows: [["a", null, "lower", 1, 2, 3, 4], ["b", "upper", null, null, null, null, null]],
      truncated: false,
    }]);
  });

  test("a NUL in the statement is 400 invalid_query, not a statement cut short at it", async () => {
    const reply = await sql({ sql: "SELECT 1 AS one\u0000; SELECT secret FROM elsewhere" });
    expect([reply.status, reply.body]).toEqual(refused(400, "invalid_query", "the statement contains NUL (U+0000), which would cut it short; remove it"));
    const inParams = await sql({ sql: "SELECT $1 AS text, length($1) AS characters", params: ["a\u0000b"] });
    expect([inParams.status, inParams.body.rows]).toEqual([200, [["a\u0000b", 3]]]);
  });

  test("over HTTP, a statement past QUERY_TIMEOUT_MS is 422 query_too_large, never the request time-out's 503", async () => {
    const quick = await startTestService({ QUERY_TIMEOUT_MS: "1000" });
    try {
      const user = await signUp(quick, "Slow SQL");
      const created = await createProject(user, "Slow", "eu", "UTC");
      const pat = (await createToken(user, ["sql.raw"])).secret;
      const token = await regionTokenFor(quick, pat, created.project.id, ["sql.raw"]);
      const reply = await call(quick.url, "POST", "/region/eu/sql", { headers: bearer(token), body: { sql: "SELECT sum(x) FROM range(10000000000000) t(x)" } });
      expect([reply.status, reply.body, reply.headers.get("retry-after")]).toEqual([...refused(422, "query_too_large", "the query ran past the 1 s limit; filter or aggregate more"), null]);
    } finally {
      await quick.close();
    }
  });

  test(`an organisation holds at most ${sandboxProcessesPerTenantMax} of the server's ${sandboxProcessesMax} SQL processes: another tenant still gets one`, async () => {
    const tenantA = await signUp(service, "Tenant A");
    const projectA = await createProject(tenantA, "A's project", "eu", "UTC");
    const tokenA = await regionTokenFor(service, (await createToken(tenantA, ["sql.raw"])).secret, projectA.project.id, ["sql.raw"]);
    const statementA = () => call(service.url, "POST", "/region/eu/sql", { headers: bearer(tokenA), body: { sql: "SELECT 1 AS one" } });
    // Tenant B (this file's owner) runs two statements, from two of its projects.
    const heldByB = [sandboxSlots.tryAcquire(owner.orgId), sandboxSlots.tryAcquire(owner.orgId)].map((slot) => (slot as { release: () => void }).release);
    const others: (() => void)[] = [];
    try {
      const thirdOfB = await sql({ sql: "SELECT 1 AS one" });
      expect([thirdOfB.status, thirdOfB.body, thirdOfB.headers.get("retry-after")]).toEqual([
        ...refused(429, "too_many_concurrent_queries", `an organisation runs at most ${sandboxProcessesPerTenantMax} SQL statements at once across its projects; retry when one has finished`), "1",
      ]);
      const ofA = await statementA();
      expect([ofA.status, ofA.body.rows]).toEqual([200, [[1]]]);
      // Two more tenants fill the server: then A waits too, with the server's reason.
      for (const tenant of ["tenant-c", "tenant-d"]) others.push((sandboxSlots.tryAcquire(tenant) as { release: () => void }).release);
      const full = await statementA();
      expect([full.status, full.body]).toEqual(refused(429, "too_many_concurrent_queries", `the server runs at most ${sandboxProcessesMax} SQL statements at once; retry shortly`));
    } finally {
      for (const release of [...heldByB, ...others]) release();
    }
    expect((await sql({ sql: "SELECT 1 AS one" })).status).toBe(200);
  });

  test("POST /sql needs a region token with sql.raw; query:read is not enough", async () => {
    const missing = await call(service.url, "POST", "/region/eu/sql", { body: { sql: "SELECT 1" } });
    expect([missing.status, missing.body.error.code]).toEqual([401, "unauthorized"]);
    const readOnly = await sql({ sql: "SELECT 1" }, await regionToken(project.id, ["query:read"]));
    expect([readOnly.status, readOnly.body]).toEqual(refused(403, "forbidden", "region token lacks scope sql.raw"));
    const badBody = await sql({ sql: "SELECT 1", params: [{ nested: true }] });
    expect([badBody.status, badBody.body.error.code]).toEqual([400, "bad_request"]);
  });

  test(`/sql shares the project's ${concurrentQueriesPerProjectMax} concurrent queries with /query`, async () => {
    const gate = service.queries.get("eu")!.gate;
    const held = Array.from({ length: concurrentQueriesPerProjectMax }, () => gate.tryAcquire(project.id)!);
    try {
      const reply = await sql({ sql: "SELECT 1" });
      expect([reply.status, reply.body, reply.headers.get("retry-after")]).toEqual([
        429, { error: { code: "too_many_concurrent_queries", message: "a project runs at most 2 queries at once; retry when one has finished" } }, "1",
      ]);
    } finally {
      for (const release of held) release();
    }
    expect((await sql({ sql: "SELECT 1 AS one" })).status).toBe(200);
  });
});
