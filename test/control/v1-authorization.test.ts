// Spec 1, Authentication (scopes, roles rule 7), Errors and the /v1 endpoint table:
// every role x every /v1 route, with a token holding exactly the route's scope and a token
// holding only an unrelated scope, plus write-implies-read and an immediate role reduction.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { isoPattern, uuidPattern, type Reply } from "../helpers/client.ts";

const roles = ["viewer", "member", "admin", "owner"] as const;
type Role = (typeof roles)[number];

/** Spec 1, Authentication rule 7, restated here so the table does not trust the server's catalogue. */
function roleHolds(role: Role, scope: string): boolean {
  switch (role) {
    case "viewer":
      return scope.endsWith(":read");
    case "member":
      return (
        scope.endsWith(":read") ||
        (scope.endsWith(":write") && scope !== "projects:write" && scope !== "org:write") ||
        scope === "export" ||
        scope === "sql.raw"
      );
    case "admin":
      return scope !== "billing.write";
    case "owner":
      return true;
  }
}

/** A scope every role holds and no route below asks for. */
const unrelatedScope = "annotations:read";

type CreatedToken = { secret: string; token: any };
type Created = { project: any; public_keys: any[] };

let service: TestService;
const users = {} as Record<Role, SignedUpUser>;
/** An admin that one test demotes; kept apart so the table never sees a changed role. */
let demotable: SignedUpUser;
let orgId: string;
/** The organisation as its owner sees it (OrgDto). */
let ownerOrg: any;
/** Read-only fixture: never renamed, deleted or rotated. */
let shared: Created;

beforeAll(async () => {
  service = await startTestService();
  users.owner = await signUp(service, "Olivia Owner");
  orgId = users.owner.orgId;
  users.admin = await addMember(service, users.owner, "admin");
  users.member = await addMember(service, users.owner, "member");
  users.viewer = await addMember(service, users.owner, "viewer");
  demotable = await addMember(service, users.owner, "admin");
  shared = await createProject(users.owner, "Shared read fixture");
  const orgs = await users.owner.client.get("/app/orgs");
  expect(orgs.status).toBe(200);
  ownerOrg = orgs.body.orgs.find((org: any) => org.id === orgId);
  expect(ownerOrg).toEqual({ id: orgId, name: expect.any(String), slug: expect.any(String), role: "owner", created_at: expect.stringMatching(isoPattern) });
});
afterAll(async () => {
  await service.close();
});

const owner = () => users.owner;
const orgAs = (role: Role) => ({ ...ownerOrg, role });
const projectAs = (project: any, role: Role) => ({ ...project, role });
const fresh = (label: string) => createProject(owner(), `${label} ${crypto.randomUUID().slice(0, 8)}`);
const tokenFor = (user: SignedUpUser, scopes: string[]): Promise<CreatedToken> => createToken(user, scopes);

const notFoundBody = { error: { code: "not_found", message: expect.any(String) } };
const missingScopeBody = (scope: string) => ({ error: { code: "missing_scope", message: `requires scope \`${scope}\`` } });

/** The same members in any order. */
function expectSameMembers(actual: unknown[], expected: unknown[]) {
  expect(actual).toHaveLength(expected.length);
  expect(actual).toEqual(expect.arrayContaining(expected));
}

const keyPattern = (env: string) => new RegExp(`^svc_pk_eu_${env}_[A-Za-z0-9]{22}$`);

/** What the owner's console sees of a project's keys, by id. */
async function consoleKeys(projectId: string): Promise<Map<string, any>> {
  const reply = await owner().client.get(`/app/projects/${projectId}/keys`);
  expect(reply.status).toBe(200);
  return new Map(reply.body.keys.map((key: any) => [key.id, key]));
}

async function expectKeysUntouched(created: Created) {
  const keys = await consoleKeys(created.project.id);
  expectSameMembers([...keys.values()], created.public_keys);
}

interface Prepared {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  /** Asserts the status, the whole body and the effect of an allowed call. */
  allowed(reply: Reply, call: { role: Role; token: CreatedToken; scopes: string[] }): Promise<void> | void;
  /** Writes only: the audit action a dry run reports, and a check that nothing changed. */
  dryRun?: { action: string; before: unknown; unchanged(): Promise<void> };
}

interface RouteCase {
  route: string;
  /** Scope the spec's /v1 table requires; null = any valid token. */
  scope: string | null;
  /** For "any valid token" routes: the scope the positive case is granted. */
  grant?: string;
  prepare(role: Role): Promise<Prepared>;
}

const routes: RouteCase[] = [
  {
    route: "GET /v1/me",
    scope: null,
    grant: "org:read",
    prepare: async () => ({
      method: "GET",
      path: "/v1/me",
      allowed(reply, { role, token, scopes }) {
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({
          token: { ...token.token, last_used_at: expect.stringMatching(isoPattern) },
          user: {
            id: users[role].userId,
            email: users[role].email,
            name: expect.any(String),
            email_verified: expect.any(Boolean),
            created_at: expect.stringMatching(isoPattern),
          },
          org: orgAs(role),
          scopes,
        });
      },
    }),
  },
  {
    route: "GET /v1/orgs",
    scope: "org:read",
    prepare: async () => ({
      method: "GET",
      path: "/v1/orgs",
      allowed(reply, { role }) {
        // Every invited user also owns a personal org; the token only sees its own org.
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({ orgs: [orgAs(role)] });
      },
    }),
  },
  {
    route: "GET /v1/orgs/{org_id}",
    scope: "org:read",
    prepare: async () => ({
      method: "GET",
      path: `/v1/orgs/${orgId}`,
      allowed(reply, { role }) {
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual(orgAs(role));
      },
    }),
  },
  {
    route: "GET /v1/orgs/{org_id}/projects",
    scope: "projects:read",
    prepare: async () => ({
      method: "GET",
      path: `/v1/orgs/${orgId}/projects`,
      allowed(reply, { role }) {
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({ projects: expect.arrayContaining([projectAs(shared.project, role)]) });
        for (const project of reply.body.projects) expect(project).toMatchObject({ org_id: orgId, role });
      },
    }),
  },
  {
    route: "POST /v1/orgs/{org_id}/projects",
    scope: "projects:write",
    prepare: async (role) => {
      const name = `Created by ${role} ${crypto.randomUUID().slice(0, 8)}`;
      const body = { name, region: "eu", currency: "EUR", timezone: "Europe/Berlin" };
      const absent = async () => {
        const list = await owner().client.get(`/app/orgs/${orgId}/projects`);
        expect(list.status).toBe(200);
        expect(list.body.projects.map((project: any) => project.name)).not.toContain(name);
      };
      return {
        method: "POST",
        path: `/v1/orgs/${orgId}/projects`,
        body,
        async allowed(reply, call) {
          expect(reply.status).toBe(201);
          const projectId = reply.body.project?.id;
          expect(reply.body).toEqual({
            project: {
              id: expect.stringMatching(uuidPattern),
              org_id: orgId,
              name,
              slug: expect.any(String),
              region: "eu",
              currency: "EUR",
              timezone: "Europe/Berlin",
              retention_days: expect.any(Number),
              data_id: expect.any(Number),
              role: call.role,
              environments: expect.any(Array),
              created_at: expect.stringMatching(isoPattern),
            },
            public_keys: expect.any(Array),
          });
          expectSameMembers(
            reply.body.project.environments.map((env: any) => ({ name: env.name, is_default: env.is_default })),
            [
              { name: "production", is_default: true },
              { name: "staging", is_default: false },
              { name: "development", is_default: false },
            ],
          );
          for (const env of reply.body.project.environments) expect(env.id).toMatch(uuidPattern);
          expectSameMembers(
            reply.body.public_keys,
            ["production", "staging", "development"].map((environment) => ({
              id: expect.stringMatching(uuidPattern),
              project_id: projectId,
              environment,
              key: expect.stringMatching(keyPattern(environment)),
              allowed_bundle_ids: [],
              allowed_origins: [],
              registry_synced: true,
              created_at: expect.stringMatching(isoPattern),
              revoked_at: null,
            })),
          );
          const seen = await owner().client.get(`/app/projects/${projectId}`);
          expect(seen.status).toBe(200);
          expect(seen.body).toEqual({ ...reply.body.project, role: "owner" });
        },
        dryRun: { action: "project.create", before: null, unchanged: absent },
      };
    },
  },
  {
    route: "GET /v1/projects",
    scope: "projects:read",
    prepare: async () => ({
      method: "GET",
      path: "/v1/projects",
      allowed(reply, { role }) {
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({ projects: expect.arrayContaining([projectAs(shared.project, role)]) });
        for (const project of reply.body.projects) expect(project).toMatchObject({ org_id: orgId, role });
      },
    }),
  },
  {
    route: "GET /v1/projects/{project_id}",
    scope: "projects:read",
    prepare: async () => ({
      method: "GET",
      path: `/v1/projects/${shared.project.id}`,
      allowed(reply, { role }) {
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual(projectAs(shared.project, role));
      },
    }),
  },
  {
    route: "PATCH /v1/projects/{project_id}",
    scope: "projects:write",
    prepare: async (role) => {
      const target = await fresh("Rename target");
      const name = `Renamed by ${role}`;
      return {
        method: "PATCH",
        path: `/v1/projects/${target.project.id}`,
        body: { name },
        async allowed(reply) {
          expect(reply.status).toBe(200);
          expect(reply.body).toEqual({ ...projectAs(target.project, role), name });
          const seen = await owner().client.get(`/app/projects/${target.project.id}`);
          expect(seen.body).toEqual({ ...target.project, name });
        },
        dryRun: {
          action: "project.rename",
          before: expect.anything(),
          async unchanged() {
            const seen = await owner().client.get(`/app/projects/${target.project.id}`);
            expect(seen.body).toEqual(target.project);
          },
        },
      };
    },
  },
  {
    route: "DELETE /v1/projects/{project_id}",
    scope: "projects:write",
    prepare: async () => {
      const target = await fresh("Delete target");
      return {
        method: "DELETE",
        path: `/v1/projects/${target.project.id}`,
        async allowed(reply) {
          expect(reply.status).toBe(204);
          expect(reply.body).toBeUndefined();
          const seen = await owner().client.get(`/app/projects/${target.project.id}`);
          expect(seen.status).toBe(404);
          expect(seen.body).toEqual(notFoundBody);
        },
        dryRun: {
          action: "project.delete",
          before: expect.anything(),
          async unchanged() {
            const seen = await owner().client.get(`/app/projects/${target.project.id}`);
            expect(seen.status).toBe(200);
            expect(seen.body).toEqual(target.project);
            await expectKeysUntouched(target);
          },
        },
      };
    },
  },
  {
    route: "GET /v1/projects/{project_id}/environments",
    scope: "projects:read",
    prepare: async () => ({
      method: "GET",
      path: `/v1/projects/${shared.project.id}/environments`,
      allowed(reply) {
        expect(reply.status).toBe(200);
        expect(Object.keys(reply.body)).toEqual(["environments"]);
        expectSameMembers(reply.body.environments, shared.project.environments);
      },
    }),
  },
  {
    route: "GET /v1/projects/{project_id}/keys",
    scope: "projects:read",
    prepare: async () => ({
      method: "GET",
      path: `/v1/projects/${shared.project.id}/keys`,
      allowed(reply) {
        expect(reply.status).toBe(200);
        expect(Object.keys(reply.body)).toEqual(["keys"]);
        expectSameMembers(reply.body.keys, shared.public_keys);
      },
    }),
  },
  {
    route: "POST /v1/projects/{project_id}/keys/{key_id}/revoke",
    scope: "projects:write",
    prepare: async () => {
      const target = await fresh("Revoke target");
      const key = target.public_keys[0];
      return {
        method: "POST",
        path: `/v1/projects/${target.project.id}/keys/${key.id}/revoke`,
        async allowed(reply) {
          expect(reply.status).toBe(200);
          expect(reply.body).toEqual({ ...key, revoked_at: expect.stringMatching(isoPattern), registry_synced: true });
          const keys = await consoleKeys(target.project.id);
          expect(keys.get(key.id)).toEqual(reply.body);
          for (const other of target.public_keys.slice(1)) expect(keys.get(other.id)).toEqual(other);
        },
        dryRun: { action: "key.revoke", before: expect.anything(), unchanged: () => expectKeysUntouched(target) },
      };
    },
  },
  {
    route: "POST /v1/projects/{project_id}/keys/{key_id}/rotate",
    scope: "projects:write",
    prepare: async () => {
      const target = await fresh("Rotate target");
      const key = target.public_keys[0];
      return {
        method: "POST",
        path: `/v1/projects/${target.project.id}/keys/${key.id}/rotate`,
        async allowed(reply) {
          expect(reply.status).toBe(200);
          expect(reply.body).toEqual({
            created: {
              id: expect.stringMatching(uuidPattern),
              project_id: target.project.id,
              environment: key.environment,
              key: expect.stringMatching(keyPattern(key.environment)),
              allowed_bundle_ids: key.allowed_bundle_ids,
              allowed_origins: key.allowed_origins,
              registry_synced: true,
              created_at: expect.stringMatching(isoPattern),
              revoked_at: null,
            },
            revoked: { ...key, revoked_at: expect.stringMatching(isoPattern), registry_synced: true },
          });
          expect(reply.body.created.id).not.toBe(key.id);
          expect(reply.body.created.key).not.toBe(key.key);
          const keys = await consoleKeys(target.project.id);
          expect(keys.size).toBe(4);
          expect(keys.get(key.id)).toEqual(reply.body.revoked);
          expect(keys.get(reply.body.created.id)).toEqual(reply.body.created);
        },
        dryRun: { action: "key.rotate", before: expect.anything(), unchanged: () => expectKeysUntouched(target) },
      };
    },
  },
  {
    route: "POST /v1/projects/{project_id}/region-token",
    scope: null,
    grant: "query:read",
    prepare: async () => ({
      method: "POST",
      path: `/v1/projects/${shared.project.id}/region-token`,
      body: {},
      allowed(reply, { scopes }) {
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({
          token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
          region_api_url: expect.stringMatching(/\/region\/eu$/),
          expires_at: expect.stringMatching(isoPattern),
          region: "eu",
          environment: "production",
          // query:read is regional; annotations:read is console-only and never reaches a region.
          scopes: scopes.filter((scope) => scope === "query:read"),
        });
        const life = Date.parse(reply.body.expires_at) - Date.now();
        expect(life).toBeGreaterThan(0);
        expect(life).toBeLessThanOrEqual(15 * 60_000);
      },
    }),
  },
];

const send = (token: CreatedToken, prepared: Prepared, query = "") =>
  v1(service, token.secret, prepared.method, prepared.path + query, prepared.body);

describe.each(roles)("role %s", (role) => {
  for (const route of routes) {
    const granted = route.scope ?? route.grant!;
    const holds = roleHolds(role, granted);

    if (holds) {
      test(`${route.route}: a token holding exactly ${granted} succeeds`, async () => {
        const prepared = await route.prepare(role);
        const token = await tokenFor(users[role], [granted]);
        await prepared.allowed(await send(token, prepared), { role, token, scopes: [granted] });
      });
    } else {
      test(`${route.route}: ${granted} cannot be granted (scope_not_held) and a ${granted.replace(":write", ":read")} token gets 403 missing_scope`, async () => {
        const refused = await users[role].client.post("/app/tokens", { name: "too much", org_id: orgId, scopes: [granted] });
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ error: { code: "scope_not_held", message: expect.stringContaining(granted) } });

        const prepared = await route.prepare(role);
        const token = await tokenFor(users[role], [granted.replace(":write", ":read")]);
        const reply = await send(token, prepared);
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual(missingScopeBody(granted));
        const dry = await send(token, prepared, "?dry_run=true");
        expect(dry.status).toBe(403);
        expect(dry.body).toEqual(missingScopeBody(granted));
        await prepared.dryRun?.unchanged();
      });
    }

    if (route.scope === null) {
      test(`${route.route}: any valid token succeeds, even one holding only ${unrelatedScope}`, async () => {
        const prepared = await route.prepare(role);
        const token = await tokenFor(users[role], [unrelatedScope]);
        await prepared.allowed(await send(token, prepared), { role, token, scopes: [unrelatedScope] });
      });
    } else {
      test(`${route.route}: a token holding only ${unrelatedScope} gets 403 missing_scope naming ${route.scope}`, async () => {
        const prepared = await route.prepare(role);
        const token = await tokenFor(users[role], [unrelatedScope]);
        const reply = await send(token, prepared);
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual(missingScopeBody(route.scope!));
        await prepared.dryRun?.unchanged();
      });
    }

    if (holds && route.scope?.endsWith(":write")) {
      test(`${route.route}: dry_run=true with ${granted} answers 200 DryRun and changes nothing`, async () => {
        const prepared = await route.prepare(role);
        expect(prepared.dryRun).toBeDefined();
        const token = await tokenFor(users[role], [granted]);
        const reply = await send(token, prepared, "?dry_run=true");
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({ action: prepared.dryRun!.action, dry_run: true, before: prepared.dryRun!.before, after: expect.anything() });
        await prepared.dryRun!.unchanged();
      });
    }
  }
});

describe("write implies read", () => {
  for (const role of ["admin", "owner"] as const) {
    test(`${role}: a token granted only projects:write can list, read and inspect projects`, async () => {
      const token = await tokenFor(users[role], ["projects:write"]);
      const list = await v1(service, token.secret, "GET", "/v1/projects");
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ projects: expect.arrayContaining([projectAs(shared.project, role)]) });
      const one = await v1(service, token.secret, "GET", `/v1/projects/${shared.project.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(projectAs(shared.project, role));
      const keys = await v1(service, token.secret, "GET", `/v1/projects/${shared.project.id}/keys`);
      expect(keys.status).toBe(200);
      expectSameMembers(keys.body.keys, shared.public_keys);
      const environments = await v1(service, token.secret, "GET", `/v1/projects/${shared.project.id}/environments`);
      expect(environments.status).toBe(200);
      expectSameMembers(environments.body.environments, shared.project.environments);
    });
  }

  test("a write scope does not imply a different domain's read: projects:write gets 403 on GET /v1/orgs", async () => {
    const token = await tokenFor(users.admin, ["projects:write"]);
    const reply = await v1(service, token.secret, "GET", "/v1/orgs");
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(missingScopeBody("org:read"));
  });
});

describe("real writes beyond the table", () => {
  test("owner: rotate with keep_old leaves the old key active and adds a replacement", async () => {
    const target = await fresh("Keep-old rotate");
    const key = target.public_keys[0];
    const token = await tokenFor(owner(), ["projects:write"]);
    const reply = await v1(service, token.secret, "POST", `/v1/projects/${target.project.id}/keys/${key.id}/rotate`, { keep_old: true });
    expect(reply.status).toBe(200);
    expect(reply.body.revoked).toEqual(key);
    expect(reply.body.created).toMatchObject({ environment: key.environment, revoked_at: null });
    const keys = await consoleKeys(target.project.id);
    expect(keys.get(key.id)).toEqual(key);
    expect(keys.get(reply.body.created.id)).toEqual(reply.body.created);
  });

  test("admin: DELETE without dry_run removes the project from GET /v1/projects", async () => {
    const target = await fresh("Delete and list");
    const token = await tokenFor(users.admin, ["projects:write"]);
    const deleted = await v1(service, token.secret, "DELETE", `/v1/projects/${target.project.id}`);
    expect(deleted.status).toBe(204);
    const list = await v1(service, token.secret, "GET", "/v1/projects");
    expect(list.status).toBe(200);
    expect(list.body.projects.map((project: any) => project.id)).not.toContain(target.project.id);
  });
});

describe("a reduced role reduces the token immediately", () => {
  test("an admin's projects:write token loses the write as soon as the owner demotes the admin to viewer", async () => {
    const target = await fresh("Demotion target");
    const token = await tokenFor(demotable, ["projects:write"]);

    const before = await v1(service, token.secret, "PATCH", `/v1/projects/${target.project.id}`, { name: "Renamed while admin" });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ ...projectAs(target.project, "admin"), name: "Renamed while admin" });

    const members = await owner().client.get(`/app/orgs/${orgId}/members`);
    expect(members.status).toBe(200);
    const membership = members.body.members.find((member: any) => member.user_id === demotable.userId);
    expect(membership).toMatchObject({ role: "admin" });
    const demoted = await owner().client.patch(`/app/orgs/${orgId}/members/${membership.id}`, { role: "viewer" });
    expect(demoted.status).toBe(200);
    expect(demoted.body).toEqual({ ...membership, role: "viewer" });

    const after = await v1(service, token.secret, "PATCH", `/v1/projects/${target.project.id}`, { name: "Renamed while viewer" });
    expect(after.status).toBe(403);
    expect(after.body).toEqual(missingScopeBody("projects:write"));
    const dry = await v1(service, token.secret, "DELETE", `/v1/projects/${target.project.id}?dry_run=true`);
    expect(dry.status).toBe(403);
    expect(dry.body).toEqual(missingScopeBody("projects:write"));

    // The implied read survives: a viewer holds projects:read.
    const read = await v1(service, token.secret, "GET", `/v1/projects/${target.project.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...projectAs(target.project, "viewer"), name: "Renamed while admin" });
    const me = await v1(service, token.secret, "GET", "/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.scopes).toEqual(["projects:read"]);
    expect(me.body.org).toEqual(orgAs("viewer"));
  });
});
