// GET /region/eu/findings, GET /findings/{id} and POST /findings/{id}/acknowledge over real
// HTTP: whole bodies, the filters and paging at their limits' edges, scopes (alerts:read,
// alerts:write), another project's finding and malformed ids as 404, the first acknowledgement
// kept, and hostile names returned as JSON strings. Findings are stored as the runner stores
// them (the evaluation itself is tested in test/findings/evaluation/).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, createToken, regionTokenFor, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern } from "../helpers/client.ts";
import type { RaisedFinding } from "../../server/findings/findings-types.ts";
import type { StoredFinding } from "../../storage/findings-store.ts";
import { findingsOffsetMax, findingsPageMax } from "../../server/region/findings-routes.ts";
import { RecordingDispatcher } from "../findings/evaluation/fixtures.ts";

let service: TestService;
let owner: SignedUpUser;
let member: SignedUpUser;
let projectId: string;
let otherProjectId: string;
const tokens: Record<string, string> = {};
const stored: StoredFinding[] = [];
let otherFinding: RaisedFinding;
const dispatcher = new RecordingDispatcher();
const hostile = `<script>alert("x")</script>'; DROP TABLE findings;--`;
const hourMs = 3_600_000;
const start = Date.parse("2026-11-02T00:00:00Z");

const findings = (query = "", token = tokens.read!) => call(service.url, "GET", `/region/eu/findings${query}`, { headers: bearer(token) });
const one = (id: string, token = tokens.read!) => call(service.url, "GET", `/region/eu/findings/${id}`, { headers: bearer(token) });
const acknowledge = (id: string, token = tokens.write!) => call(service.url, "POST", `/region/eu/findings/${id}/acknowledge`, { headers: bearer(token) });
const badRequest = (message: string) => ({ error: { code: "bad_request", message } });
const notFound = { error: { code: "not_found", message: "finding not found" } };

function seed(project: string, ruleId: string, hour: number, overrides: Partial<RaisedFinding> = {}): RaisedFinding {
  const finding: Omit<RaisedFinding, "sent"> = {
    id: crypto.randomUUID(), projectId: project, ruleId, ruleName: `Rule ${ruleId.slice(-1)}`, target: { kind: "event_volume", event: "signup" }, cadence: "hourly",
    severity: "warning", periodStart: new Date(start + hour * hourMs).toISOString(), periodEnd: new Date(start + (hour + 1) * hourMs).toISOString(),
    value: 38, baseline: 100, change: -62, relativeChange: -0.62, anomalyZ: -4.5, summary: "signup fell 62% (38 vs a median of 100 on Mondays 14:00–15:00 over 4 weeks)",
    raisedAt: new Date(start + (hour + 1) * hourMs + 600_000).toISOString(), ...overrides,
  };
  return service.nodes.get("eu")!.store.findings.recordJudgement(project, ruleId, start + hour * hourMs, finding, 10, 0)!;
}

const dto = (finding: RaisedFinding, extra: Record<string, unknown> = {}) => ({
  id: finding.id, project_id: finding.projectId, rule_id: finding.ruleId, rule_name: finding.ruleName, target: finding.target, cadence: finding.cadence,
  severity: finding.severity, period_start: finding.periodStart, period_end: finding.periodEnd, value: finding.value, baseline: finding.baseline,
  change: finding.change, relative_change: finding.relativeChange, anomaly_z: finding.anomalyZ, summary: finding.summary, raised_at: finding.raisedAt,
  sent: finding.sent, acknowledged_at: null, acknowledged_by: null, deliveries: [], ...extra,
});

beforeAll(async () => {
  service = await startTestService();
  service.nodes.get("eu")!.findings = dispatcher;
  owner = await signUp(service, "Findings owner");
  member = await addMember(service, owner, "member");
  projectId = (await createProject(owner, "Web", "eu", "UTC")).project.id;
  otherProjectId = (await createProject(owner, "Other", "eu", "UTC")).project.id;
  const ownerPat = (await createToken(owner, ["alerts:write", "query:read"])).secret;
  const memberPat = (await createToken(member, ["alerts:write"])).secret;
  tokens.read = await regionTokenFor(service, ownerPat, projectId, ["alerts:read"]);
  tokens.write = await regionTokenFor(service, ownerPat, projectId, ["alerts:write"]);
  tokens.query = await regionTokenFor(service, ownerPat, projectId, ["query:read"]);
  tokens.member = await regionTokenFor(service, memberPat, projectId, ["alerts:write"]);
  tokens.other = await regionTokenFor(service, ownerPat, otherProjectId, ["alerts:write"]);
  // Rule a: hours 0, 2, 4; rule b: hours 1, 3; then one with hostile names.
  for (let hour = 0; hour < 5; hour++) stored.push({ ...seed(projectId, hour % 2 === 0 ? "rule-a" : "rule-b", hour), acknowledgedAt: null, acknowledgedBy: null });
  stored.push({ ...seed(projectId, "rule-c", 5, { target: { kind: "event_volume", event: hostile }, summary: `${hostile} fell 62%`, ruleName: hostile, anomalyZ: null, relativeChange: null }), acknowledgedAt: null, acknowledgedBy: null });
  otherFinding = seed(otherProjectId, "rule-z", 0);
  dispatcher.deliveries.set(stored[0]!.id, [{
    destinationId: "d1", state: "failed", nextAttemptAt: null,
    attempts: [
      { destinationId: "d1", attempt: 1, at: "2026-11-02T01:10:01.000Z", status: 500, ok: false, error: "HTTP 500", durationMs: 30 },
      { destinationId: "d1", attempt: 2, at: "2026-11-02T01:11:01.000Z", status: null, ok: false, error: "time-out after 10 s", durationMs: 10_000 },
    ],
  }, { destinationId: "d2", state: "pending", nextAttemptAt: "2026-11-02T01:20:00.000Z", attempts: [] }]);
});

afterAll(async () => {
  await service.close();
});

describe("GET /findings", () => {
  test("pages of 50 by default, up to findingsPageMax", async () => {
    const busy = (await createProject(owner, "Busy", "eu", "UTC")).project.id;
    const token = await regionTokenFor(service, (await createToken(owner, ["alerts:read"])).secret, busy, ["alerts:read"]);
    const seeded = Array.from({ length: 51 }, (_, hour) => seed(busy, "rule-many", hour));
    const first = await findings("", token);
    expect([first.status, first.body.findings.length, first.body.next_offset, first.body.findings[0].id]).toEqual([200, 50, 50, seeded[50]!.id]);
    expect((await findings("?offset=50", token)).body).toEqual({ findings: [dto(seeded[0]!)], next_offset: null });
    const all = await findings(`?limit=${findingsPageMax}`, token);
    expect([all.body.findings.length, all.body.next_offset]).toEqual([51, null]);
  });

  test("newest first, with deliveries; hostile names as JSON strings", async () => {
    const reply = await findings();
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ findings: [...stored].reverse().map((finding, index) => dto(finding, index === 5 ? { deliveries: [
      { destination_id: "d1", state: "failed", next_attempt_at: null, attempts: [
        { attempt: 1, at: "2026-11-02T01:10:01.000Z", status: 500, ok: false, error: "HTTP 500", duration_ms: 30 },
        { attempt: 2, at: "2026-11-02T01:11:01.000Z", status: null, ok: false, error: "time-out after 10 s", duration_ms: 10_000 },
      ] },
      { destination_id: "d2", state: "pending", next_attempt_at: "2026-11-02T01:20:00.000Z", attempts: [] },
    ] } : {})), next_offset: null });
    expect(reply.body.findings[0].summary).toBe(`${hostile} fell 62%`);
    expect(reply.body.findings[0].target).toEqual({ kind: "event_volume", event: hostile });
  });

  test("rule_id and acknowledged filter; limit and offset page", async () => {
    expect((await findings("?rule_id=rule-a")).body.findings.map((f: { id: string }) => f.id)).toEqual([stored[4]!.id, stored[2]!.id, stored[0]!.id]);
    expect((await findings("?rule_id=rule-unknown")).body).toEqual({ findings: [], next_offset: null });
    expect((await findings("?limit=2")).body.findings.map((f: { id: string }) => f.id)).toEqual([stored[5]!.id, stored[4]!.id]);
    expect((await findings("?limit=2")).body.next_offset).toBe(2);
    expect((await findings("?limit=2&offset=4")).body).toEqual({ findings: [dto(stored[1]!), dto(stored[0]!, { deliveries: expect.any(Array) })], next_offset: null });
    expect((await findings("?limit=1&offset=5")).body.next_offset).toBeNull();
    expect((await findings(`?limit=${findingsPageMax}&offset=${findingsOffsetMax}`)).body).toEqual({ findings: [], next_offset: null });
    expect((await findings("?rule_id=rule-b&limit=1")).body).toEqual({ findings: [dto(stored[3]!)], next_offset: 1 });
    expect((await findings("?acknowledged=true")).body).toEqual({ findings: [], next_offset: null });
    expect((await findings("?acknowledged=false")).body.findings).toHaveLength(6);
  });

  test("parameters outside their limits are 400", async () => {
    const cases: [string, string][] = [
      ["?limit=0", `limit must be an integer from 1 to ${findingsPageMax}`],
      [`?limit=${findingsPageMax + 1}`, `limit must be an integer from 1 to ${findingsPageMax}`],
      ["?limit=1.5", `limit must be an integer from 1 to ${findingsPageMax}`],
      ["?limit=", `limit must be an integer from 1 to ${findingsPageMax}`],
      ["?offset=-1", `offset must be an integer from 0 to ${findingsOffsetMax}`],
      [`?offset=${findingsOffsetMax + 1}`, `offset must be an integer from 0 to ${findingsOffsetMax}`],
      ["?acknowledged=yes", "acknowledged must be true or false"],
      ["?rule_id=", "rule_id must be 1 to 64 characters"],
      [`?rule_id=${"r".repeat(65)}`, "rule_id must be 1 to 64 characters"],
    ];
    for (const [query, message] of cases) expect([query, (await findings(query)).status, (await findings(query)).body]).toEqual([query, 400, badRequest(message)]);
    expect((await findings(`?rule_id=${"r".repeat(64)}&limit=1&offset=0`)).body).toEqual({ findings: [], next_offset: null });
  });

  test("scopes: no token 401, a token without alerts:read 403; another project's token sees its own findings only", async () => {
    const anonymous = await call(service.url, "GET", "/region/eu/findings");
    expect([anonymous.status, anonymous.body]).toEqual([401, { error: { code: "unauthorized", message: "region token required (Authorization: Bearer <token>)" } }]);
    const query = await findings("", tokens.query);
    expect([query.status, query.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope alerts:read" } }]);
    expect((await findings("", tokens.write)).status).toBe(200);
    expect((await findings("", tokens.other)).body).toEqual({ findings: [dto(otherFinding)], next_offset: null });
  });
});

describe("GET /findings/{id}", () => {
  test("the finding with its deliveries", async () => {
    const reply = await one(stored[1]!.id);
    expect([reply.status, reply.body]).toEqual([200, dto(stored[1]!)]);
    expect((await one(stored[1]!.id.toUpperCase())).body).toEqual(dto(stored[1]!));
  });

  test("another project's finding, an unknown id and a malformed id are 404", async () => {
    for (const id of [otherFinding.id, crypto.randomUUID(), "not-a-uuid", "%3Cscript%3E"]) expect([id, (await one(id)).status, (await one(id)).body]).toEqual([id, 404, notFound]);
    expect((await one(stored[1]!.id, tokens.query)).status).toBe(403);
  });
});

describe("POST /findings/{id}/acknowledge", () => {
  test("needs alerts:write; keeps the first acknowledgement; another project's finding is 404", async () => {
    const readOnly = await acknowledge(stored[2]!.id, tokens.read);
    expect([readOnly.status, readOnly.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope alerts:write" } }]);
    expect([(await acknowledge(otherFinding.id)).status, (await acknowledge(otherFinding.id)).body]).toEqual([404, notFound]);
    expect((await acknowledge("nope")).status).toBe(404);

    const first = await acknowledge(stored[2]!.id);
    expect(first.status).toBe(200);
    expect(first.body.acknowledged_at).toMatch(isoPattern);
    expect(first.body).toEqual(dto(stored[2]!, { acknowledged_at: first.body.acknowledged_at, acknowledged_by: owner.userId }));
    const again = await acknowledge(stored[2]!.id, tokens.member);
    expect([again.status, again.body]).toEqual([200, first.body]);
    expect((await findings("?acknowledged=true")).body).toEqual({ findings: [first.body], next_offset: null });
    expect((await findings("?acknowledged=false")).body.findings.map((f: { id: string }) => f.id)).not.toContain(stored[2]!.id);
    // The other project's finding was not touched.
    expect((await findings("", tokens.other)).body.findings[0].acknowledged_at).toBeNull();
  });
});
