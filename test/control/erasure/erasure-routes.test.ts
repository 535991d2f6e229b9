// The erasure routes on /v1 and /app (docs/erasure.md): who may call them (401, 403 for a
// member, a viewer and a token without persons.erase; 404 for another tenant's project or
// request and malformed ids), what they validate (1 to 100 persons, each by person id or by
// distinct id, a known environment), Idempotency-Key and dry_run, paging newest first, the
// audit row (counts, never identifiers), and their absence from /openapi.json. The eu
// region's erase is a stand-in here; the end-to-end test uses the real one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { desc, eq } from "drizzle-orm";
import { auditLog } from "../../../server/control/db/schema.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { addMember, createProject, createToken, signUp, v1 } from "../../helpers/accounts.ts";
import { call, isoPattern, uuidPattern } from "../../helpers/client.ts";
import { awaitErasure, erasureFixture, erasurePath, fakeReport, isEnded, replaceErase, type ErasureFixture } from "./fixture.ts";

let service: TestService;
let fixture: ErasureFixture;
let path: string;

beforeAll(async () => {
  service = await startTestService();
  fixture = await erasureFixture(service);
  path = erasurePath(fixture.projectId);
  replaceErase(service, async (request) => fakeReport(request));
});
afterAll(async () => {
  await service?.close();
});

const personId = "0190b6f2-3c4d-7e5f-8a9b-0c1d2e3f4a5b";
const post = (body: unknown, headers: Record<string, string> = {}, secret = fixture.secret) => v1(service, secret, "POST", path, body, headers);

const pendingDto = (body: any, subjectCount: number, environment = "production") => ({
  id: body.id,
  project_id: fixture.projectId,
  environment,
  status: "pending",
  progress: null,
  subject_count: subjectCount,
  persons_erased: null,
  error: null,
  created_at: body.created_at,
  started_at: null,
  completed_at: null,
  certificate_url: null,
});

test("POST answers 202 with the pending request; it completes, and the DTO then links its certificate", async () => {
  const reply = await post({ persons: [{ distinct_id: "user-42" }, { person_id: personId }] });
  expect(reply.status).toBe(202);
  expect(reply.body).toEqual(pendingDto(reply.body, 2));
  expect(reply.body.id).toMatch(uuidPattern);
  expect(reply.body.created_at).toMatch(isoPattern);

  const done = await awaitErasure(service, fixture, reply.body.id, isEnded);
  expect(done).toEqual({
    ...pendingDto(reply.body, 2),
    status: "completed",
    persons_erased: 2,
    started_at: done.started_at,
    completed_at: done.completed_at,
    certificate_url: `${service.url}${path}/${reply.body.id}/certificate`,
  });
  expect([done.started_at, done.completed_at].every((at: string) => isoPattern.test(at))).toBe(true);
  const console = await fixture.owner.client.get(`/app/projects/${fixture.projectId}/erasure-requests/${reply.body.id}`);
  expect(console.status).toBe(200);
  expect(console.body).toEqual({ ...done, certificate_url: `${service.url}/app/projects/${fixture.projectId}/erasure-requests/${reply.body.id}/certificate` });
});

test("the audit row names the request and counts its identifiers, never the identifiers themselves", async () => {
  const reply = await post({ environment: "staging", persons: [{ distinct_id: "audit-secret-id" }, { distinct_id: "audit-secret-id" }, { person_id: personId.toUpperCase() }] });
  expect(reply.status).toBe(202);
  expect(reply.body).toEqual(pendingDto(reply.body, 2, "staging"));
  const row = service.ctx.db.select().from(auditLog).where(eq(auditLog.targetId, reply.body.id)).orderBy(desc(auditLog.id)).get()!;
  expect({ action: row.action, actorType: row.actorType, projectId: row.projectId, before: row.before, after: row.after }).toEqual({
    action: "erasure.request", actorType: "token", projectId: fixture.projectId, before: null, after: { environment: "staging", person_ids: 1, distinct_ids: 1 },
  });
  expect(JSON.stringify(row)).not.toContain("audit-secret-id");
});

test("1 and 100 persons are accepted; 0, 101, an unknown key, a malformed person id, an empty or too long distinct id and an unknown environment are 400", async () => {
  const persons = (count: number) => Array.from({ length: count }, (_, index) => ({ distinct_id: `bulk-${index}` }));
  for (const count of [1, 100]) {
    const reply = await post({ persons: persons(count) });
    expect([reply.status, reply.body.subject_count]).toEqual([202, count]);
  }
  const refused = async (body: unknown, message: string) => {
    const reply = await post(body);
    expect([reply.status, reply.body]).toEqual([400, { error: { code: "validation", message } }]);
  };
  await refused({ persons: [] }, "body /persons: Expected array length to be greater or equal to 1");
  await refused({ persons: persons(101) }, "body /persons: Expected array length to be less or equal to 100");
  await refused({}, "body /persons: Expected required property");
  await refused({ persons: [{ email: "ada@example.com" }] }, "body /persons/0/email: Unexpected property");
  await refused({ persons: [{}] }, "body /persons/0: name the person by exactly one of person_id and distinct_id");
  await refused({ persons: [{ person_id: "not-a-uuid" }] }, "body /persons/0/person_id: Expected string to match 'uuid' format");
  await refused({ persons: [{ distinct_id: "" }] }, "body /persons/0/distinct_id: Expected string length greater or equal to 1");
  await refused({ persons: [{ distinct_id: " \t " }] }, "body /persons/0/distinct_id: must not be only white space (ingest accepts no such id)");
  await refused({ persons: [{ distinct_id: "x".repeat(201) }] }, "body /persons/0/distinct_id: Expected string length less or equal to 200");
  await refused({ persons: [{ distinct_id: "a" }, { distinct_id: "a", person_id: personId }] }, "body /persons/1: name the person by exactly one of person_id and distinct_id");
  await refused({ persons: persons(1), extra: true }, "body /extra: Unexpected property");
  await refused({ environment: "nowhere", persons: persons(1) }, 'unknown environment "nowhere"');
  const accepted = await post({ persons: [{ distinct_id: "x".repeat(200) }] });
  expect(accepted.status).toBe(202);
});

test("401 without a valid token; 403 for a token without persons.erase and for members and viewers; the console answers the same", async () => {
  const bare = await call(service.url, "GET", path);
  expect([bare.status, bare.body, bare.headers.get("www-authenticate")]).toEqual([401, { error: { code: "unauthorized", message: "bearer token required" } }, 'Bearer realm="svc-analytics"']);
  const unknown = await v1(service, "svc_pat_nothing", "POST", path, { persons: [{ distinct_id: "a" }] });
  expect(unknown.status).toBe(401);

  const forbidden = { error: { code: "missing_scope", message: "requires scope `persons.erase`" } };
  const { secret: readOnly } = await createToken(fixture.owner, ["persons:read", "persons:write", "persons.pii"]);
  for (const [method, suffix] of [["GET", ""], ["POST", ""], ["GET", `/${personId}`], ["GET", `/${personId}/certificate`]] as const) {
    const reply = await v1(service, readOnly, method, `${path}${suffix}`, method === "POST" ? { persons: [{ distinct_id: "a" }] } : undefined);
    expect([method, suffix, reply.status, reply.body]).toEqual([method, suffix, 403, forbidden]);
  }
  for (const role of ["member", "viewer"]) {
    const person = await addMember(service, fixture.owner, role);
    const consoleReply = await person.client.post(`/app/projects/${fixture.projectId}/erasure-requests`, { persons: [{ distinct_id: "a" }] });
    expect([role, consoleReply.status, consoleReply.body]).toEqual([role, 403, forbidden]);
    expect((await person.client.get(`/app/projects/${fixture.projectId}/erasure-requests`)).status).toBe(403);
    // A member's token cannot even be granted the scope.
    const granted = await person.client.post("/app/tokens", { name: "try", org_id: fixture.owner.orgId, scopes: ["persons.erase"] });
    expect(granted.status).toBe(403);
  }
  const admin = await addMember(service, fixture.owner, "admin");
  const byAdmin = await admin.client.post(`/app/projects/${fixture.projectId}/erasure-requests`, { persons: [{ distinct_id: "by-admin" }] });
  expect(byAdmin.status).toBe(202);
  const signedOut = await call(service.url, "GET", `/app/projects/${fixture.projectId}/erasure-requests`);
  expect(signedOut.status).toBe(401);
});

test("another tenant's project and request, and malformed ids, are 404", async () => {
  const stranger = await signUp(service, "Stranger");
  const strangerProject = (await createProject(stranger, "Theirs")).project.id;
  const { secret: strangerSecret } = await createToken(stranger, ["persons.erase"]);
  const mine = await post({ persons: [{ distinct_id: "tenancy" }] });
  const notFound = (what: string) => ({ error: { code: "not_found", message: `${what} not found` } });
  const cases: [string, string, string, unknown][] = [
    [fixture.secret, "GET", erasurePath(strangerProject), notFound("project")],
    [fixture.secret, "POST", erasurePath(strangerProject), notFound("project")],
    [strangerSecret, "GET", `${path}/${mine.body.id}`, notFound("project")],
    [fixture.secret, "GET", erasurePath("not-a-uuid"), notFound("project")],
    [fixture.secret, "GET", `${path}/not-a-uuid`, notFound("erasure request")],
    [fixture.secret, "GET", `${path}/${crypto.randomUUID()}`, notFound("erasure request")],
    [fixture.secret, "GET", `${path}/${crypto.randomUUID()}/certificate`, notFound("erasure request")],
  ];
  for (const [secret, method, target, body] of cases) {
    const reply = await v1(service, secret, method, target, method === "POST" ? { persons: [{ distinct_id: "a" }] } : undefined);
    expect([method, target, reply.status, reply.body]).toEqual([method, target, 404, body]);
  }
  // The stranger's request, read through the owner's project: not there either.
  const theirs = await v1(service, strangerSecret, "POST", erasurePath(strangerProject), { persons: [{ distinct_id: "theirs" }] });
  expect(theirs.status).toBe(202);
  expect((await v1(service, fixture.secret, "GET", `${path}/${theirs.body.id}`)).status).toBe(404);
});

test("the same Idempotency-Key replays the first answer and makes one request; with another body it is 422", async () => {
  const body = { persons: [{ distinct_id: "idempotent" }] };
  const first = await post(body, { "idempotency-key": "erase-idempotent-1" });
  const again = await post(body, { "idempotency-key": "erase-idempotent-1" });
  expect(first.status).toBe(202);
  expect([again.status, again.body, again.headers.get("idempotent-replayed")]).toEqual([202, first.body, "true"]);
  const other = await post({ persons: [{ distinct_id: "someone-else" }] }, { "idempotency-key": "erase-idempotent-1" });
  expect([other.status, other.body.error.code]).toEqual([422, "idempotency_key_reused"]);
  const listed = await v1(service, fixture.secret, "GET", `${path}?limit=200`);
  expect(listed.body.erasure_requests.filter((request: { id: string }) => request.id === first.body.id)).toHaveLength(1);
});

test("dry_run answers the audit action and creates nothing", async () => {
  const before = (await v1(service, fixture.secret, "GET", `${path}?limit=200`)).body.erasure_requests.length;
  const reply = await v1(service, fixture.secret, "POST", `${path}?dry_run=true`, { persons: [{ distinct_id: "dry" }] });
  expect([reply.status, reply.body]).toEqual([200, { action: "erasure.request", dry_run: true, before: null, after: { environment: "production", person_ids: 0, distinct_ids: 1 } }]);
  expect((await v1(service, fixture.secret, "GET", `${path}?limit=200`)).body.erasure_requests.length).toBe(before);
});

test("the list is newest first, a page at a time, and the certificate route is 409 until the erasure completes", async () => {
  const project = (await createProject(fixture.owner, "Paged")).project.id;
  const paged = erasurePath(project);
  const ids: string[] = [];
  for (let index = 0; index < 3; index++) ids.push((await v1(service, fixture.secret, "POST", paged, { persons: [{ distinct_id: `paged-${index}` }] })).body.id);
  const first = await v1(service, fixture.secret, "GET", `${paged}?limit=2`);
  expect([first.status, first.body.erasure_requests.map((request: { id: string }) => request.id), first.body.next_offset]).toEqual([200, [ids[2], ids[1]], 2]);
  const second = await v1(service, fixture.secret, "GET", `${paged}?limit=2&offset=2`);
  expect([second.body.erasure_requests.map((request: { id: string }) => request.id), second.body.next_offset]).toEqual([[ids[0]], null]);
  const badLimit = await v1(service, fixture.secret, "GET", `${paged}?limit=0`);
  expect([badLimit.status, badLimit.body]).toEqual([400, { error: { code: "validation", message: "limit must be an integer from 1 to 200" } }]);

  // Held in the region: the certificate is not there yet.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  replaceErase(service, async (request) => {
    await held;
    return fakeReport(request);
  });
  const waiting = await v1(service, fixture.secret, "POST", paged, { persons: [{ distinct_id: "held" }] });
  const inPaged = { ...fixture, projectId: project };
  await awaitErasure(service, inPaged, waiting.body.id, (body) => body.status === "running");
  const early = await v1(service, fixture.secret, "GET", `${paged}/${waiting.body.id}/certificate`);
  expect([early.status, early.body]).toEqual([409, { error: { code: "conflict", message: "the erasure is running: its certificate is issued once it is completed" } }]);
  release();
  await awaitErasure(service, inPaged, waiting.body.id, isEnded);
  const issued = await v1(service, fixture.secret, "GET", `${paged}/${waiting.body.id}/certificate`);
  expect(issued.status).toBe(200);
  replaceErase(service, async (request) => fakeReport(request));
});

test("no erasure route is in /openapi.json", async () => {
  const reply = await call(service.url, "GET", "/openapi.json");
  expect(reply.status).toBe(200);
  expect(Object.keys(reply.body.paths).filter((route) => route.includes("erasure"))).toEqual([]);
});
