// Every SQL statement that ingest's person resolution and the persons and groups routes run
// on region.sqlite, recorded while real requests are served, must find its rows through an
// index in a way that does not grow with the project: no table scan, and no search bounded
// by the project alone unless it is a first page read in index order.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { recordStatements, type StatementRecorder } from "../helpers/sql-capture.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";

/** The person store's tables, which grow with a project's persons, ids, merges and groups. */
const growingTables = ["persons", "person_distinct_ids", "person_overrides", "identity_log", "groups"];

let recorder: StatementRecorder;
let service: TestService;

beforeAll(async () => {
  recorder = recordStatements(join("eu", "region.sqlite"));
  service = await startTestService();
  // What opening the region ran (loading every flag snapshot, say) is not a request's.
  recorder.clear();
});
afterAll(async () => {
  recorder.stop();
  await service.close();
});

/** What is wrong with one statement's plan, if anything; `tables` are the file's tables (a plan also scans its own subqueries). */
function planProblems(db: Database, tables: Set<string>, sql: string): string[] {
  const plan = (db.query(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail);
  // A first page read in index order with a LIMIT and no sort: SQLite stops after the page. A
  // page after a cursor (parameters $before..., $after...) must start at the cursor instead of
  // walking there from the project's first row.
  const firstPageInOrder = /\bLIMIT\b/.test(sql) && !/\$(before|after)/.test(sql) && !plan.some((detail) => detail.startsWith("USE TEMP B-TREE"));
  const problems: string[] = [];
  for (const detail of plan) {
    const scan = detail.match(/^SCAN (\w+)/);
    if (scan && tables.has(scan[1]!)) problems.push(`${detail}: reads the whole table`);
    const search = detail.match(/^SEARCH (\w+) .*\((.*)\)$/);
    if (search && growingTables.includes(search[1]!) && search[2]!.split(" AND ").every((term) => term.startsWith("project_id"))) {
      if (!firstPageInOrder) problems.push(`${detail}: reads the whole project`);
    }
  }
  return problems.map((problem) => `${sql.replace(/\s+/g, " ")} -> ${problem}`);
}

test("ingest's person resolution and every persons and groups route use indexes that do not grow with the project", async () => {
  const owner = await signUp(service, "Plans owner");
  const { project, public_keys } = await createProject(owner, "Plans", "eu");
  const { secret } = await createToken(owner, ["persons:write", "persons.pii"]);
  const read = await regionTokenFor(service, secret, project.id, ["persons:read"]);
  const write = await regionTokenFor(service, secret, project.id, ["persons:write", "persons.pii"]);
  let clock = Date.now() - 3_600_000;
  const at = (overrides: NativeEvent) => nativeEvent({ timestamp: rfc3339((clock += 1000)), properties: {}, ...overrides });
  // Every identity effect ingest applies: new and known ids, anon_id, $identify, aliases (one
  // refused), $set / $set_once, groups and $groupidentify.
  await sendAccepted(service.url, public_keys[0].key, [
    at({ distinct_id: "anon-1" }),
    at({ distinct_id: "anon-1" }),
    at({ distinct_id: "user-1", anon_id: "anon-1", $set: { plan: "pro" }, $set_once: { source: "ads" } }),
    at({ distinct_id: "anon-2" }),
    at({ distinct_id: "user-1", event: "$identify", properties: { $anon_distinct_id: "anon-2" } }),
    at({ distinct_id: "user-2", event: "$identify" }),
    at({ distinct_id: "user-1", event: "$create_alias", properties: { alias: "user-2" } }),
    at({ distinct_id: "alias-a" }),
    at({ distinct_id: "alias-a", event: "$create_alias", properties: { alias: "alias-b" } }),
    at({ distinct_id: "user-1", groups: { company: "acme", team: "core" } }),
    at({ distinct_id: "user-2", groups: { company: "globex" } }),
    at({ distinct_id: "user-1", event: "$groupidentify", properties: { $group_type: "company", $group_key: "acme", $group_set: { seats: 4 } } }),
  ]);
  const region = async (method: string, path: string, token = read, body?: unknown) => {
    const reply = await call(service.url, method, `/region/eu${path}`, { headers: bearer(token), body });
    expect([method, path, reply.status]).toEqual([method, path, 200]);
    return reply.body;
  };
  const person = (await region("GET", "/persons?search=user-1")).results[0];
  const absorbed = (await region("GET", `/persons/${person.id}/identity`)).history[0].absorbed_id;
  const firstPersons = await region("GET", "/persons?limit=1");
  for (const query of ["", "search=anon", "property=plan", "property=plan&value=pro"]) {
    await region("GET", `/persons?${query}`);
    await region("GET", `/persons?${query}&limit=1&cursor=${firstPersons.next_cursor}`);
  }
  await region("GET", "/persons?property=plan", write);
  for (const id of [person.id, absorbed]) {
    await region("GET", `/persons/${id}`);
    await region("GET", `/persons/${id}/identity`);
    await region("GET", `/persons/${id}/events`);
  }
  await region("POST", `/persons/${person.id}/unmerge`, write, { distinct_ids: ["anon-1"] });
  const firstGroups = await region("GET", "/groups?limit=1");
  for (const query of ["", "type_index=0", "search=ac", "type_index=0&search=ac"]) {
    await region("GET", `/groups?${query}`);
    await region("GET", `/groups?${query}&limit=1&cursor=${firstGroups.next_cursor}`);
  }
  await region("GET", "/groups/types");
  await region("GET", "/groups/0/acme");

  const statements = recorder.statements();
  const db = new Database(join(service.dataDir, "eu", "region.sqlite"), { readonly: true });
  try {
    // The recording saw each growing table being read.
    const tablesRead = growingTables.filter((table) => statements.some((sql) => new RegExp(`\\bFROM ${table}\\b`).test(sql)));
    expect(tablesRead).toEqual(growingTables);
    const tables = new Set((db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
    expect(statements.flatMap((sql) => planProblems(db, tables, sql))).toEqual([]);
  } finally {
    db.close();
  }
});

test("a query finds its project's time zone through an index, not by reading every key of the region", async () => {
  const owner = await signUp(service, "Zone owner");
  const { project } = await createProject(owner, "Zoned", "eu", "Asia/Tokyo");
  const token = await regionTokenFor(service, (await createToken(owner, ["query:read"])).secret, project.id, ["query:read"]);
  recorder.clear();
  const query = { ir_version: 1, date_range: { from: "-1d" }, insight: { kind: "trends", series: [{ event: "x" }] } };
  const reply = await call(service.url, "POST", "/region/eu/query", { headers: bearer(token), body: { query } });
  expect([reply.status, reply.body.result.time_zone]).toEqual([200, "Asia/Tokyo"]);
  const registryReads = recorder.statements().filter((sql) => /\bFROM key_registry\b/.test(sql));
  const db = new Database(join(service.dataDir, "eu", "region.sqlite"), { readonly: true });
  try {
    expect(registryReads.length).toBeGreaterThan(0);
    expect(registryReads.flatMap((sql) => planProblems(db, new Set(["key_registry"]), sql))).toEqual([]);
  } finally {
    db.close();
  }
});
