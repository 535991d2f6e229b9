// Spec 1, Authentication rule 9 (tenancy) and Errors: another tenant's resource, a malformed
// id, a project outside the token's project list and a soft-deleted project all answer 404
// not_found, never 403, on every /v1 and console route that carries an id.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import type { Reply } from "../helpers/client.ts";

type Created = { project: any; public_keys: any[] };
interface Ids {
  org: string;
  project: string;
  key: string;
  member: string;
}
interface IdRoute {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path template; {org}, {project}, {key} and {member} are filled from Ids. */
  path: string;
  body?: unknown;
  write?: boolean;
}

/** Spec 1, Authentication rule 5-6: the whole catalogue (an owner holds all of it). */
const everyScope = [
  ...["projects", "org", "query", "insights", "dashboards", "cohorts", "catalog", "flags", "experiments", "replays", "persons", "alerts", "ai", "annotations", "usage"].flatMap(
    (domain) => [`${domain}:read`, `${domain}:write`],
  ),
  "flags.production", "experiments.ship", "sql.raw", "persons.pii", "persons.erase", "export", "billing.write", "members.write",
];

/** Every /v1 route of spec 1 implemented so far that has an id in its path. */
const v1Routes: IdRoute[] = [
  { method: "GET", path: "/v1/orgs/{org}" },
  { method: "GET", path: "/v1/orgs/{org}/projects" },
  { method: "POST", path: "/v1/orgs/{org}/projects", body: { name: "Intruder", region: "eu" }, write: true },
  { method: "GET", path: "/v1/projects/{project}" },
  { method: "PATCH", path: "/v1/projects/{project}", body: { name: "Hijacked" }, write: true },
  { method: "DELETE", path: "/v1/projects/{project}", write: true },
  { method: "GET", path: "/v1/projects/{project}/environments" },
  { method: "GET", path: "/v1/projects/{project}/keys" },
  { method: "POST", path: "/v1/projects/{project}/keys/{key}/revoke", write: true },
  { method: "POST", path: "/v1/projects/{project}/keys/{key}/rotate", body: {}, write: true },
  { method: "POST", path: "/v1/projects/{project}/region-token", body: {} },
];

/** Console routes that carry an org, project, key or member id. */
const consoleRoutes: IdRoute[] = [
  { method: "PATCH", path: "/app/orgs/{org}", body: { name: "Hijacked org" } },
  { method: "GET", path: "/app/orgs/{org}/members" },
  { method: "PATCH", path: "/app/orgs/{org}/members/{member}", body: { role: "viewer" } },
  { method: "DELETE", path: "/app/orgs/{org}/members/{member}" },
  { method: "GET", path: "/app/orgs/{org}/projects" },
  { method: "POST", path: "/app/orgs/{org}/projects", body: { name: "Intruder", region: "eu" } },
  { method: "GET", path: "/app/projects/{project}" },
  { method: "PATCH", path: "/app/projects/{project}", body: { name: "Hijacked" } },
  { method: "DELETE", path: "/app/projects/{project}" },
  { method: "GET", path: "/app/projects/{project}/environments" },
  { method: "GET", path: "/app/projects/{project}/keys" },
  { method: "POST", path: "/app/projects/{project}/keys/{key}/revoke" },
  { method: "POST", path: "/app/projects/{project}/keys/{key}/rotate", body: {} },
  { method: "POST", path: "/app/projects/{project}/region-token", body: {} },
  { method: "GET", path: "/app/projects/{project}/insights" },
  { method: "POST", path: "/app/projects/{project}/insights", body: { name: "Intruder", query: { ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "trends", series: [{ event: "x" }] } } } },
  { method: "GET", path: "/app/projects/{project}/dashboards" },
  { method: "POST", path: "/app/projects/{project}/dashboards", body: { name: "Intruder" } },
  { method: "GET", path: "/app/projects/{project}/cohorts" },
  { method: "POST", path: "/app/projects/{project}/cohorts", body: { kind: "static", name: "Intruder" } },
  { method: "GET", path: "/app/projects/{project}/annotations" },
  { method: "POST", path: "/app/projects/{project}/annotations", body: { content: "Intruder", kind: "note", occurred_at: "2026-11-27T00:00:00Z" } },
];

const projectScoped = (routes: IdRoute[]) => routes.filter((route) => route.path.includes("{project}"));
const label = (route: IdRoute) => `${route.method} ${route.path}`;
const fill = (route: IdRoute, ids: Ids) =>
  route.path.replace(/\{(org|project|key|member)\}/g, (_, name: keyof Ids) => ids[name]);
const placeholders = (route: IdRoute) => [...route.path.matchAll(/\{(org|project|key|member)\}/g)].map((match) => match[1] as keyof Ids);

const notFoundBody = { error: { code: "not_found", message: expect.any(String) } };

let service: TestService;
let ownerA: SignedUpUser;
let viewerA: SignedUpUser;
let ownerB: SignedUpUser;
let projectA1: Created;
let projectA2: Created;
let projectB: Created;
let idsA: Ids;
let idsB: Ids;
/** The organisation and membership of B, as B's owner sees them, to prove nothing changed. */
let orgBBefore: any;
let membersBBefore: any;

async function membershipOf(user: SignedUpUser, orgId: string) {
  const reply = await user.client.get(`/app/orgs/${orgId}/members`);
  expect(reply.status).toBe(200);
  return reply.body;
}

beforeAll(async () => {
  service = await startTestService();
  ownerA = await signUp(service, "Alice Owner");
  ownerB = await signUp(service, "Bob Owner");
  viewerA = await addMember(service, ownerA, "viewer");
  projectA1 = await createProject(ownerA, "A one");
  projectA2 = await createProject(ownerA, "A two");
  projectB = await createProject(ownerB, "B only");
  const membersA = await membershipOf(ownerA, ownerA.orgId);
  membersBBefore = await membershipOf(ownerB, ownerB.orgId);
  idsA = {
    org: ownerA.orgId,
    project: projectA1.project.id,
    key: projectA1.public_keys[0].id,
    member: membersA.members.find((member: any) => member.user_id === viewerA.userId).id,
  };
  idsB = {
    org: ownerB.orgId,
    project: projectB.project.id,
    key: projectB.public_keys[0].id,
    member: membersBBefore.members[0].id,
  };
  orgBBefore = (await ownerB.client.get("/app/orgs")).body.orgs.find((org: any) => org.id === ownerB.orgId);
});
afterAll(async () => {
  await service.close();
});

const callV1 = (secret: string, route: IdRoute, ids: Ids, query = ""): Promise<Reply> =>
  v1(service, secret, route.method, fill(route, ids) + query, route.body);
const callConsole = (user: SignedUpUser, route: IdRoute, ids: Ids): Promise<Reply> =>
  user.client.request(route.method, fill(route, ids), route.body);

function expectNotFound(reply: Reply, what: string) {
  expect({ what, status: reply.status, body: reply.body }).toEqual({ what, status: 404, body: notFoundBody });
}

/** B's organisation, members, project and keys are exactly as they were. */
async function expectTenantBUntouched() {
  const orgs = await ownerB.client.get("/app/orgs");
  expect(orgs.body.orgs).toContainEqual(orgBBefore);
  expect(await membershipOf(ownerB, ownerB.orgId)).toEqual(membersBBefore);
  const project = await ownerB.client.get(`/app/projects/${projectB.project.id}`);
  expect(project.status).toBe(200);
  expect(project.body).toEqual(projectB.project);
  const keys = await ownerB.client.get(`/app/projects/${projectB.project.id}/keys`);
  expect(keys.status).toBe(200);
  expect(keys.body.keys).toHaveLength(projectB.public_keys.length);
  expect(keys.body.keys).toEqual(expect.arrayContaining(projectB.public_keys));
  const list = await ownerB.client.get(`/app/orgs/${ownerB.orgId}/projects`);
  expect(list.body.projects.map((project: any) => project.name)).toEqual(["B only"]);
}

describe("another organisation's ids answer 404, never 403", () => {
  const callers: { name: string; scopes: () => string[]; user: () => SignedUpUser }[] = [
    { name: "an owner token holding every scope", scopes: () => everyScope, user: () => ownerA },
    { name: "an owner token holding only annotations:read", scopes: () => ["annotations:read"], user: () => ownerA },
    { name: "a viewer token holding only projects:read", scopes: () => ["projects:read"], user: () => viewerA },
  ];
  for (const caller of callers) {
    test(`/v1 with ${caller.name}`, async () => {
      const token = await createToken(caller.user(), caller.scopes());
      for (const route of v1Routes) {
        expectNotFound(await callV1(token.secret, route, idsB), label(route));
        if (route.write) expectNotFound(await callV1(token.secret, route, idsB, "?dry_run=true"), `${label(route)}?dry_run=true`);
      }
      await expectTenantBUntouched();
    });
  }

  test("/v1 with a token whose user is also an owner elsewhere: the token's organisation only", async () => {
    // viewerA owns a personal organisation; a token cut for org A never reaches it.
    const token = await createToken(viewerA, ["org:read", "projects:read"]);
    const personal = (await viewerA.client.get("/app/orgs")).body.orgs.find((org: any) => org.id !== ownerA.orgId);
    expect(personal).toMatchObject({ role: "owner" });
    expectNotFound(await v1(service, token.secret, "GET", `/v1/orgs/${personal.id}`), "GET /v1/orgs/{personal}");
    expectNotFound(await v1(service, token.secret, "GET", `/v1/orgs/${personal.id}/projects`), "GET /v1/orgs/{personal}/projects");
    const orgs = await v1(service, token.secret, "GET", "/v1/orgs");
    expect(orgs.body.orgs.map((org: any) => org.id)).toEqual([ownerA.orgId]);
  });

  for (const who of [{ name: "A's owner", user: () => ownerA }, { name: "A's viewer (lacks every write)", user: () => viewerA }]) {
    test(`console routes called by ${who.name}`, async () => {
      for (const route of consoleRoutes) expectNotFound(await callConsole(who.user(), route, idsB), label(route));
      await expectTenantBUntouched();
    });
  }

  test("console: a member id of organisation B under organisation A's path answers 404", async () => {
    const ids = { ...idsA, member: idsB.member };
    for (const route of consoleRoutes.filter((route) => route.path.includes("{member}"))) {
      expectNotFound(await callConsole(ownerA, route, ids), label(route));
    }
    await expectTenantBUntouched();
  });

  test("/v1 and console: B's key under A's own project answers 404", async () => {
    const token = await createToken(ownerA, everyScope);
    const ids = { ...idsA, key: idsB.key };
    for (const route of v1Routes.filter((route) => route.path.includes("{key}"))) {
      expectNotFound(await callV1(token.secret, route, ids), label(route));
    }
    for (const route of consoleRoutes.filter((route) => route.path.includes("{key}"))) {
      expectNotFound(await callConsole(ownerA, route, ids), label(route));
    }
    await expectTenantBUntouched();
  });
});

describe("malformed ids answer 404", () => {
  for (const bad of ["not-a-uuid", "123"]) {
    test(`/v1: "${bad}" in each id position`, async () => {
      const token = await createToken(ownerA, everyScope);
      for (const route of v1Routes) {
        for (const slot of placeholders(route)) {
          const ids = { ...idsA, [slot]: bad };
          expectNotFound(await callV1(token.secret, route, ids), `${label(route)} with ${slot}=${bad}`);
        }
      }
    });

    test(`console: "${bad}" in each id position`, async () => {
      for (const route of consoleRoutes) {
        for (const slot of placeholders(route)) {
          const ids = { ...idsA, [slot]: bad };
          expectNotFound(await callConsole(ownerA, route, ids), `${label(route)} with ${slot}=${bad}`);
        }
      }
    });
  }

  test("a well-formed id that names nothing answers 404 in each id position too", async () => {
    const token = await createToken(ownerA, everyScope);
    for (const route of [...v1Routes, ...consoleRoutes]) {
      for (const slot of placeholders(route)) {
        const ids = { ...idsA, [slot]: crypto.randomUUID() };
        const reply = route.path.startsWith("/v1/") ? await callV1(token.secret, route, ids) : await callConsole(ownerA, route, ids);
        expectNotFound(reply, `${label(route)} with an unknown ${slot}`);
      }
    }
  });

  test("own resources are untouched afterwards", async () => {
    const project = await ownerA.client.get(`/app/projects/${projectA1.project.id}`);
    expect(project.body).toEqual(projectA1.project);
    const keys = await ownerA.client.get(`/app/projects/${projectA1.project.id}/keys`);
    expect(keys.body.keys).toHaveLength(3);
    expect(keys.body.keys).toEqual(expect.arrayContaining(projectA1.public_keys));
    const members = await membershipOf(ownerA, ownerA.orgId);
    expect(members.members.find((member: any) => member.user_id === viewerA.userId)).toMatchObject({ role: "viewer" });
  });
});

describe("a token restricted with project_ids", () => {
  test("gets 404 on every route of another project of the same organisation, which its lists leave out", async () => {
    const token = await createToken(ownerA, everyScope, { project_ids: [projectA1.project.id] });
    const idsA2 = { ...idsA, project: projectA2.project.id, key: projectA2.public_keys[0].id };
    for (const route of projectScoped(v1Routes)) {
      expectNotFound(await callV1(token.secret, route, idsA2), label(route));
      if (route.write) expectNotFound(await callV1(token.secret, route, idsA2, "?dry_run=true"), `${label(route)}?dry_run=true`);
    }

    const list = await v1(service, token.secret, "GET", "/v1/projects");
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ projects: [projectA1.project] });
    const orgList = await v1(service, token.secret, "GET", `/v1/orgs/${ownerA.orgId}/projects`);
    expect(orgList.status).toBe(200);
    expect(orgList.body).toEqual({ projects: [projectA1.project] });

    const allowed = await v1(service, token.secret, "GET", `/v1/projects/${projectA1.project.id}`);
    expect(allowed.status).toBe(200);
    expect(allowed.body).toEqual(projectA1.project);

    const untouched = await ownerA.client.get(`/app/projects/${projectA2.project.id}`);
    expect(untouched.body).toEqual(projectA2.project);
    const keys = await ownerA.client.get(`/app/projects/${projectA2.project.id}/keys`);
    expect(keys.body.keys).toEqual(expect.arrayContaining(projectA2.public_keys));
    expect(keys.body.keys).toHaveLength(3);
  });

  test("cannot create projects, even with projects:write (403 missing_scope saying why); dry runs neither", async () => {
    const token = await createToken(ownerA, ["projects:write"], { project_ids: [projectA1.project.id] });
    const before = (await ownerA.client.get(`/app/orgs/${ownerA.orgId}/projects`)).body.projects;
    const refused = {
      error: {
        code: "missing_scope",
        message: "requires scope `projects:write` on the whole organisation: this token is restricted to its project_ids and cannot create projects; use a token without project_ids",
      },
    };
    for (const query of ["", "?dry_run=true"]) {
      const reply = await v1(service, token.secret, "POST", `/v1/orgs/${ownerA.orgId}/projects${query}`, { name: "Widened", region: "eu" });
      expect([reply.status, reply.body]).toEqual([403, refused]);
    }
    const keyed = await v1(service, token.secret, "POST", `/v1/orgs/${ownerA.orgId}/projects`, { name: "Widened", region: "eu" }, { "Idempotency-Key": "restricted-1" });
    expect([keyed.status, keyed.body]).toEqual([403, refused]);
    expect((await ownerA.client.get(`/app/orgs/${ownerA.orgId}/projects`)).body.projects).toEqual(before);
    expect((await v1(service, token.secret, "GET", "/v1/projects")).body).toEqual({ projects: [projectA1.project] });

    const whole = await createToken(ownerA, ["projects:write"]);
    const created = await v1(service, whole.secret, "POST", `/v1/orgs/${ownerA.orgId}/projects?dry_run=true`, { name: "Allowed", region: "eu" });
    expect([created.status, created.body.action]).toEqual([200, "project.create"]);
  });

  test("gets 404 for a key of the other project under its own project's path", async () => {
    const token = await createToken(ownerA, everyScope, { project_ids: [projectA1.project.id] });
    const ids = { ...idsA, key: projectA2.public_keys[0].id };
    for (const route of v1Routes.filter((route) => route.path.includes("{key}"))) {
      expectNotFound(await callV1(token.secret, route, ids), label(route));
    }
  });
});

describe("a key id of project A under project B's path (same organisation) answers 404", () => {
  test("on /v1 and the console, and the key stays active", async () => {
    const token = await createToken(ownerA, everyScope);
    const ids = { ...idsA, project: projectA2.project.id, key: projectA1.public_keys[1].id };
    for (const route of v1Routes.filter((route) => route.path.includes("{key}"))) {
      expectNotFound(await callV1(token.secret, route, ids), label(route));
      expectNotFound(await callV1(token.secret, route, ids, "?dry_run=true"), `${label(route)}?dry_run=true`);
    }
    for (const route of consoleRoutes.filter((route) => route.path.includes("{key}"))) {
      expectNotFound(await callConsole(ownerA, route, ids), label(route));
    }
    const keys = await ownerA.client.get(`/app/projects/${projectA1.project.id}/keys`);
    expect(keys.body.keys).toContainEqual(projectA1.public_keys[1]);
    expect(keys.body.keys).toHaveLength(3);
    const other = await ownerA.client.get(`/app/projects/${projectA2.project.id}/keys`);
    expect(other.body.keys).toHaveLength(3);
  });
});

describe("a soft-deleted project answers 404 on every route", () => {
  for (const via of ["console", "v1"] as const) {
    test(`deleted via ${via === "console" ? "DELETE /app/projects/{id}" : "DELETE /v1/projects/{id}"}`, async () => {
      const doomed = await createProject(ownerA, `Doomed via ${via}`);
      const token = await createToken(ownerA, everyScope);
      const deleted =
        via === "console"
          ? await ownerA.client.delete(`/app/projects/${doomed.project.id}`)
          : await v1(service, token.secret, "DELETE", `/v1/projects/${doomed.project.id}`);
      expect(deleted.status).toBe(204);

      const ids = { ...idsA, project: doomed.project.id, key: doomed.public_keys[0].id };
      for (const route of projectScoped(v1Routes)) {
        expectNotFound(await callV1(token.secret, route, ids), label(route));
        if (route.write) expectNotFound(await callV1(token.secret, route, ids, "?dry_run=true"), `${label(route)}?dry_run=true`);
      }
      for (const route of projectScoped(consoleRoutes)) {
        expectNotFound(await callConsole(ownerA, route, ids), label(route));
      }

      const list = await v1(service, token.secret, "GET", "/v1/projects");
      expect(list.body.projects.map((project: any) => project.id)).not.toContain(doomed.project.id);
      const consoleList = await ownerA.client.get(`/app/orgs/${ownerA.orgId}/projects`);
      expect(consoleList.body.projects.map((project: any) => project.id)).not.toContain(doomed.project.id);

      // A token cannot be restricted to it any more either.
      const restricted = await ownerA.client.post("/app/tokens", {
        name: "to a deleted project",
        org_id: ownerA.orgId,
        scopes: ["projects:read"],
        project_ids: [doomed.project.id],
      });
      expect(restricted.status).toBe(404);
      expect(restricted.body).toEqual(notFoundBody);
    });
  }
});
