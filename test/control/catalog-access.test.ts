// Who may call the tracking plan's routes (spec 1, Authentication 5-9): on the console a viewer
// reads (catalog:read) and is refused every write with 403 missing_scope, a member writes
// (catalog:write); on /v1 codegen needs a token with catalog:read and counts against the
// token's call limit. Another tenant's project, a malformed id, a deleted project and a project
// outside the token's list answer 404 on every route, and change nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import type { Reply } from "../helpers/client.ts";
import { tokenCallsPerMinuteMax } from "../../server/control/limits.ts";

let service: TestService;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let member: SignedUpUser;
let otherOwner: SignedUpUser;
let projectId: string;
let otherProjectId: string;
let deletedProjectId: string;
let eventId: string;
let otherEventId: string;

type Route = [method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body: unknown];
/** Every console catalog route, `{event}` filled per call. */
const routes: Route[] = [
  ["GET", "/catalog/events", undefined],
  ["POST", "/catalog/events", { name: "new_event" }],
  ["GET", "/catalog/events/{event}", undefined],
  ["PATCH", "/catalog/events/{event}", { description: "changed" }],
  ["DELETE", "/catalog/events/{event}", undefined],
  ["POST", "/catalog/sync", {}],
  ["GET", "/catalog/codegen", undefined],
  ["GET", "/catalog/settings", undefined],
  ["PATCH", "/catalog/settings", { warn_on_violations: true }],
];
const reads = routes.filter(([method]) => method === "GET");
const writes = routes.filter(([method]) => method !== "GET");
const label = ([method, path]: Route) => `${method} ${path}`;
const fill = (path: string, project: string, event: string) => `/app/projects/${project}${path.replace("{event}", event)}`;
const notFound = (what: string) => ({ error: { code: "not_found", message: `${what} not found` } });

async function addEvent(user: SignedUpUser, project: string, name: string): Promise<string> {
  const reply = await user.client.post(`/app/projects/${project}/catalog/events`, { name });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Access owner");
  viewer = await addMember(service, owner, "viewer");
  member = await addMember(service, owner, "member");
  otherOwner = await signUp(service, "Other tenant");
  projectId = (await createProject(owner, "Access")).project.id;
  eventId = await addEvent(owner, projectId, "kept");
  otherProjectId = (await createProject(otherOwner, "Other")).project.id;
  otherEventId = await addEvent(otherOwner, otherProjectId, "theirs");
  deletedProjectId = (await createProject(owner, "Deleted")).project.id;
  await addEvent(owner, deletedProjectId, "gone");
  expect((await owner.client.delete(`/app/projects/${deletedProjectId}`)).status).toBe(204);
});
afterAll(() => service.close());

describe("roles on the console", () => {
  for (const route of reads) {
    test(`${label(route)}: viewers and members read`, async () => {
      for (const user of [viewer, member]) {
        const reply = await user.client.request(route[0], fill(route[1], projectId, eventId), route[2]);
        expect([label(route), reply.status, reply.body?.error]).toEqual([label(route), 200, undefined]);
      }
    });
  }
  for (const route of writes) {
    test(`${label(route)}: a viewer is refused with 403 missing_scope catalog:write; a member may (dry run)`, async () => {
      const refused = await viewer.client.request(route[0], `${fill(route[1], projectId, eventId)}?dry_run=true`, route[2]);
      expect([label(route), refused.status, refused.body]).toEqual([label(route), 403, { error: { code: "missing_scope", message: "requires scope `catalog:write`" } }]);
      const allowed = await member.client.request(route[0], `${fill(route[1], projectId, eventId)}?dry_run=true`, route[2]);
      expect([label(route), allowed.status, allowed.body.dry_run]).toEqual([label(route), 200, true]);
    });
  }

  test("nothing the refused and previewed writes asked for happened", async () => {
    const list = await owner.client.get(`/app/projects/${projectId}/catalog/events`);
    expect(list.body.events.map((event: any) => [event.name, event.version, event.description])).toEqual([["kept", 1, null]]);
    expect((await owner.client.get(`/app/projects/${projectId}/catalog/settings`)).body).toMatchObject({ catalog_version: 1, warn_on_violations: false, synced_at: null });
  });
});

describe("tenancy: 404, never 403", () => {
  const cases = () => [
    { name: "another organisation's project", project: otherProjectId, event: otherEventId },
    { name: "a malformed project id", project: "not-a-uuid", event: eventId },
    { name: "a project that does not exist", project: crypto.randomUUID(), event: eventId },
    { name: "a deleted project", project: deletedProjectId, event: eventId },
  ];
  for (const caller of [{ name: "an owner", user: () => owner }, { name: "a viewer", user: () => viewer }]) {
    test(`every console route called by ${caller.name}`, async () => {
      for (const { name, project, event } of cases()) {
        for (const route of routes) {
          for (const query of route[0] === "GET" ? [""] : ["", "?dry_run=true"]) {
            const reply = await caller.user().client.request(route[0], fill(route[1], project, event) + query, route[2]);
            expect([name, label(route), query, reply.status, reply.body]).toEqual([name, label(route), query, 404, notFound("project")]);
          }
        }
      }
      const theirs = await otherOwner.client.get(`/app/projects/${otherProjectId}/catalog/events`);
      expect(theirs.body.events.map((event: any) => [event.name, event.version])).toEqual([["theirs", 1]]);
    });
  }

  test("/v1 codegen: another organisation's, malformed, unknown and deleted projects, and a project outside the token's list", async () => {
    const { secret } = await createToken(owner, ["catalog:read"]);
    for (const { name, project } of cases()) {
      const reply = await v1(service, secret, "GET", `/v1/projects/${project}/catalog/codegen`);
      expect([name, reply.status, reply.body]).toEqual([name, 404, notFound("project")]);
    }
    const elsewhere = (await createProject(owner, "Listed")).project.id;
    const listed = await createToken(owner, ["catalog:read"], { project_ids: [elsewhere] });
    const outside = await v1(service, listed.secret, "GET", `/v1/projects/${projectId}/catalog/codegen`);
    expect([outside.status, outside.body]).toEqual([404, notFound("project")]);
    expect((await v1(service, listed.secret, "GET", `/v1/projects/${elsewhere}/catalog/codegen`)).status).toBe(200);
  });
});

describe("/v1 codegen", () => {
  const codegen = (secret: string): Promise<Reply> => v1(service, secret, "GET", `/v1/projects/${projectId}/catalog/codegen`);

  test("needs catalog:read (catalog:write implies it); a token without it is 403 naming it", async () => {
    const without = await codegen((await createToken(owner, ["projects:read", "query:read"])).secret);
    expect([without.status, without.body]).toEqual([403, { error: { code: "missing_scope", message: "requires scope `catalog:read`" } }]);
    for (const scopes of [["catalog:read"], ["catalog:write"]]) {
      const reply = await codegen((await createToken(owner, scopes)).secret);
      expect([scopes, reply.status, reply.body.events.map((event: any) => event.name)]).toEqual([scopes, 200, ["kept"]]);
    }
    expect((await codegen((await createToken(viewer, ["catalog:read"])).secret)).status).toBe(200);
  });

  test("a missing or unknown token is 401 with the WWW-Authenticate challenge", async () => {
    for (const secret of ["", "svc_pat_nonsense"]) {
      const reply = await codegen(secret);
      expect([reply.status, reply.body.error.code, reply.headers.get("www-authenticate")]).toEqual([401, "unauthorized", 'Bearer realm="svc-analytics"']);
    }
  });

  test(`counts against the token's ${tokenCallsPerMinuteMax} calls a minute: the last passes, the next is 429 with Retry-After`, async () => {
    const { secret } = await createToken(owner, ["catalog:read"]);
    for (let callNumber = 1; callNumber <= tokenCallsPerMinuteMax; callNumber++) {
      const reply = await codegen(secret);
      if (reply.status !== 200) throw new Error(`call ${callNumber} answered ${reply.status}`);
    }
    const limited = await codegen(secret);
    expect([limited.status, limited.body.error.code]).toEqual([429, "rate_limited"]);
    expect(limited.body.error.message).toMatch(/^call limit per token exceeded; retry after \d+ s$/);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
