// A region served by a second process-like service, reached through the internal API over
// loopback. A gate between them holds the control plane's calls, which lets the tests
// observe a write that is still running (409 idempotency_in_progress) and an unreachable
// region, deterministically.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { Gate } from "../helpers/region-gate.ts";
import { addMember, createToken, regionTokenFor, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, type Reply } from "../helpers/client.ts";
import { pushUnpublished } from "../../server/control/flags/flag-publications.ts";
import { pushRevocations, recordRevocation, revocationsPerPushMax } from "../../server/control/services/token-revocations.ts";
import { regionTokenRevocations } from "../../server/control/db/schema.ts";

const secret = "internal-secret-for-tests";

let gate: Gate;
let control: TestService;
let regionNode: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  gate = new Gate();
  control = await startTestService({ REGIONS: "eu,us", REMOTE_REGIONS: `us=${gate.url}/region/us`, REGION_SECRET: secret });
  regionNode = await startTestService({ REGIONS: "us", REGION_SECRET: secret, CONTROL_PLANE_URL: control.url });
  gate.target = regionNode.url;
  owner = await signUp(control, "Owner");
});
afterAll(async () => {
  gate.open();
  await control.close();
  await regionNode.close();
  gate.server.stop(true);
});

function nodeRegistry(key: string): any {
  const db = new Database(join(regionNode.dataDir, "us", "region.sqlite"), { readonly: true });
  try {
    return db.query("SELECT project_id, environment, revoked_at FROM key_registry WHERE key = ?").get(key);
  } finally {
    db.close();
  }
}

describe("remote region node", () => {
  test("keys reach the remote registry and region tokens verify there against the control plane's JWKS", async () => {
    const { secret: pat } = await createToken(owner, ["projects:write", "query:read"]);
    const created = await v1(control, pat, "POST", `/v1/orgs/${owner.orgId}/projects`, { name: "Remote", region: "us" });
    expect(created.status).toBe(201);
    for (const key of created.body.public_keys) {
      expect(key.registry_synced).toBe(true);
      expect(nodeRegistry(key.key)).toEqual({ project_id: created.body.project.id, environment: key.environment, revoked_at: null });
    }
    expect(control.nodes.has("us")).toBe(false);
    const health = await call(control.url, "GET", "/health");
    expect([health.status, health.body.checks]).toEqual([200, { global: "ok", "region:eu": "ok", "region:us": "ok" }]);

    const issued = await v1(control, pat, "POST", `/v1/projects/${created.body.project.id}/region-token`);
    expect(issued.body.region_api_url).toBe(`${control.url}/region/us`);
    const verified = await call(regionNode.url, "GET", "/region/us/token", { headers: { authorization: `Bearer ${issued.body.token}` } });
    expect([verified.status, verified.body.project_id, verified.body.scopes]).toEqual([200, created.body.project.id, ["query:read"]]);
    const ownToken = await v1(regionNode, (await createToken(await signUp(regionNode), ["query:read", "projects:write"])).secret, "GET", "/v1/me");
    expect(ownToken.status).toBe(200);
  });

  test("the internal API refuses calls without the region secret", async () => {
    const reply = await call(regionNode.url, "POST", "/region/us/internal/keys", { body: { keys: [] } });
    expect([reply.status, reply.body]).toEqual([401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }]);
    const wrong = await call(regionNode.url, "POST", "/region/us/internal/keys", { body: { keys: [] }, headers: { "x-region-secret": "guess" } });
    expect(wrong.status).toBe(401);
  });

  test("the internal API takes region-token revocations only with the secret, and only ones that name a subject", async () => {
    const revocation = { id: crypto.randomUUID(), orgId: null, userId: null, projectId: null, accessTokenId: null, issuedUpTo: 1, keepUntil: 4102444800, scopes: null, reason: "project_deleted" };
    const path = "/region/us/internal/token-revocations";
    const anonymous = await call(regionNode.url, "POST", path, { body: { revocations: [{ ...revocation, projectId: crypto.randomUUID() }] } });
    expect([anonymous.status, anonymous.body]).toEqual([401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }]);
    const everyone = await call(regionNode.url, "POST", path, { body: { revocations: [revocation] }, headers: { "x-region-secret": secret } });
    expect([everyone.status, everyone.body]).toEqual([
      400, { error: { code: "bad_request", message: "a revocation must name a project, a member (orgId and userId) or an access token" } },
    ]);
    const badReason = await call(regionNode.url, "POST", path, { body: { revocations: [{ ...revocation, projectId: crypto.randomUUID(), reason: "whim" }] }, headers: { "x-region-secret": secret } });
    expect(badReason.status).toBe(400);
  });

  test("Idempotency-Key: a first request still running is 409; once done, the same key replays it", async () => {
    const { secret: pat } = await createToken(owner, ["projects:write"]);
    const path = `/v1/orgs/${owner.orgId}/projects`;
    const body = { name: "Slow region", region: "us" };
    gate.close();
    const arrival = gate.nextArrival();
    const first = v1(control, pat, "POST", path, body, { "Idempotency-Key": "slow-1" });
    expect(await arrival).toBe("/region/us/internal/keys");

    const concurrent = await v1(control, pat, "POST", path, body, { "Idempotency-Key": "slow-1" });
    expect([concurrent.status, concurrent.body]).toEqual([
      409, { error: { code: "idempotency_in_progress", message: "a request with this Idempotency-Key is still running" } },
    ]);
    const different = await v1(control, pat, "POST", path, { ...body, name: "Other" }, { "Idempotency-Key": "slow-1" });
    expect(different.status).toBe(422);

    gate.open();
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await v1(control, pat, "POST", path, body, { "Idempotency-Key": "slow-1" });
    expect([replay.status, replay.body, replay.headers.get("idempotent-replayed")]).toEqual([201, done.body, "true"]);
    const projects = (await v1(control, pat, "GET", path)).body.projects.filter((p: any) => p.name === "Slow region");
    expect(projects).toHaveLength(1);
  });

  test("an unreachable region: the project is created with registry_synced false and health is 503", async () => {
    const { secret: pat } = await createToken(owner, ["projects:write"]);
    gate.down = true;
    try {
      const created = await v1(control, pat, "POST", `/v1/orgs/${owner.orgId}/projects`, { name: "Offline", region: "us" });
      expect(created.status).toBe(201);
      expect(created.body.public_keys.map((key: any) => key.registry_synced)).toEqual([false, false, false]);
      for (const key of created.body.public_keys) expect(nodeRegistry(key.key)).toBeNull();
      const health = await call(control.url, "GET", "/health");
      expect(health.status).toBe(503);
      expect(health.body.checks["region:us"]).toMatch(/^error: /);
    } finally {
      gate.down = false;
    }
  });
});

describe("region-token revocations in a remote region", () => {
  const atNode = (token: string) => call(regionNode.url, "GET", "/region/us/schema/events", { headers: bearer(token) });
  const expectRevoked = (reply: Reply, why: string) =>
    expect([reply.status, reply.body]).toEqual([401, { error: { code: "unauthorized", message: `region token revoked: ${why}` } }]);
  const membershipId = async (user: SignedUpUser) =>
    (await owner.client.get(`/app/orgs/${owner.orgId}/members`)).body.members.find((member: any) => member.user_id === user.userId).id;

  async function remoteProject(name: string) {
    const { secret: pat } = await createToken(owner, ["projects:write", "query:read"]);
    const created = await v1(control, pat, "POST", `/v1/orgs/${owner.orgId}/projects`, { name, region: "us" });
    expect(created.status).toBe(201);
    return { pat, project: created.body.project };
  }

  test("reach the node at once: a removed member's, a downgraded member's and a deleted project's tokens are refused there", async () => {
    const { pat: ownerPat, project } = await remoteProject("Remote revocations");
    const leaving = await addMember(control, owner, "member");
    const leavingToken = await regionTokenFor(control, (await createToken(leaving, ["query:read"])).secret, project.id, ["query:read"]);
    const demoted = await addMember(control, owner, "admin");
    const demotedToken = await regionTokenFor(control, (await createToken(demoted, ["query:read", "sql.raw"])).secret, project.id, ["query:read", "sql.raw"]);
    const ownerToken = await regionTokenFor(control, ownerPat, project.id, ["query:read"]);
    for (const token of [leavingToken, demotedToken, ownerToken]) expect([(await atNode(token)).status, (await atNode(token)).body]).toEqual([200, { events: [] }]);

    expect((await owner.client.delete(`/app/orgs/${owner.orgId}/members/${await membershipId(leaving)}`)).status).toBe(204);
    expectRevoked(await atNode(leavingToken), "its owner is no longer a member of the organisation");

    expect((await owner.client.patch(`/app/orgs/${owner.orgId}/members/${await membershipId(demoted)}`, { role: "viewer" })).status).toBe(200);
    const sql = await call(regionNode.url, "POST", "/region/us/sql", { headers: bearer(demotedToken), body: { sql: "SELECT 1 AS one" } });
    expect([sql.status, sql.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope sql.raw: its owner's role no longer holds it" } }]);
    expect((await atNode(demotedToken)).status).toBe(200);

    expect((await atNode(ownerToken)).status).toBe(200);
    expect((await v1(control, ownerPat, "DELETE", `/v1/projects/${project.id}`)).status).toBe(204);
    expectRevoked(await atNode(ownerToken), "its project was deleted");
  });

  test("a node unreachable at the time honours the token until it learns the revocation at the next sync", async () => {
    const { project } = await remoteProject("Partitioned");
    const member = await addMember(control, owner, "member");
    const token = await regionTokenFor(control, (await createToken(member, ["query:read"])).secret, project.id, ["query:read"]);
    gate.down = true;
    try {
      expect((await owner.client.delete(`/app/orgs/${owner.orgId}/members/${await membershipId(member)}`)).status).toBe(204);
    } finally {
      gate.down = false;
    }
    // Meanwhile (README, Region token revocation): the node has not heard, so the token still works there.
    expect([(await atNode(token)).status, (await atNode(token)).body]).toEqual([200, { events: [] }]);
    // What the periodic sync does (every 30 s and at start-up): push what a region has not taken.
    await pushRevocations(control.ctx);
    expectRevoked(await atNode(token), "its owner is no longer a member of the organisation");
  });

  test("a backlog larger than one request reaches the node in batches", async () => {
    const projectIds = Array.from({ length: revocationsPerPushMax + 1 }, () => crypto.randomUUID());
    control.ctx.db.transaction(() => {
      for (const projectId of projectIds) recordRevocation(control.ctx, ["us"], { projectId }, "project_deleted", null);
    });
    await pushRevocations(control.ctx);
    expect(control.ctx.db.select().from(regionTokenRevocations).all().filter((row) => !row.synced)).toEqual([]);
    const revocations = regionNode.nodes.get("us")!.store.tokenRevocations;
    const covered = (projectId: string) => revocations.covering({ orgId: owner.orgId, userId: owner.userId, projectId, accessTokenId: null, issuedAt: 0 }).length;
    expect([covered(projectIds[0]!), covered(projectIds.at(-1)!)]).toEqual([1, 1]);
  });
});

describe("flags in a remote region", () => {
  test("publications and flag secret keys reach the node over the internal API; a push while it is down is failed, then the newest is pushed again", async () => {
    const { secret: pat } = await createToken(owner, ["projects:write", "flags:write", "flags.production"]);
    const project = (await v1(control, pat, "POST", `/v1/orgs/${owner.orgId}/projects`, { name: "Remote flags", region: "us" })).body.project;
    const snapshot = (environment: string) => regionNode.nodes.get("us")!.store.flags.snapshot(project.id, environment);
    const flag = await v1(control, pat, "POST", `/v1/projects/${project.id}/flags`, { key: "remote-flag", name: "Remote" });
    expect(flag.status).toBe(201);
    expect([snapshot("production")!.version, snapshot("production")!.flags.map((f) => [f.key, f.enabled])]).toEqual([1, [["remote-flag", false]]]);
    const secretKey = await v1(control, pat, "POST", `/v1/projects/${project.id}/flag-secret-keys`, { environment: "production", name: "node" });
    const hash = new Bun.CryptoHasher("sha256").update(secretKey.body.secret).digest("hex");
    expect(regionNode.nodes.get("us")!.store.flags.findSecretKey(hash)).toMatchObject({ projectId: project.id, environment: "production", revokedAt: null });

    gate.down = true;
    try {
      const live = await v1(control, pat, "PATCH", `/v1/projects/${project.id}/flags/${flag.body.id}/environments/production`, { enabled: true });
      expect([live.status, live.body.environments.production.enabled]).toEqual([200, true]);
    } finally {
      gate.down = false;
    }
    const publications = (await v1(control, pat, "GET", `/v1/projects/${project.id}/flags/publications?environment=production`)).body.publications;
    expect(publications.map((p: any) => [p.version, p.status, p.error, p.published_at === null])).toEqual([
      [2, "failed", "region us answered 502 to a flag publication", true], [1, "published", null, false],
    ]);
    expect(snapshot("production")!.version).toBe(1);
    // What the periodic sync does: push each environment's newest unpublished snapshot.
    await pushUnpublished(control.ctx);
    expect(snapshot("production")!.flags.map((f) => [f.key, f.enabled])).toEqual([["remote-flag", true]]);
    const after = (await v1(control, pat, "GET", `/v1/projects/${project.id}/flags/publications?environment=production`)).body.publications;
    expect(after.map((p: any) => [p.version, p.status, p.error])).toEqual([[2, "published", null], [1, "published", null]]);
  });
});

describe("cohorts in a remote region", () => {
  test("a calculation reaches the node; while the node is down it is 503 and nothing is recorded", async () => {
    const created = await owner.client.post(`/app/orgs/${owner.orgId}/projects`, { name: "Remote cohorts", region: "us" });
    expect(created.status).toBe(201);
    const url = `/app/projects/${created.body.project.id}/cohorts`;
    const cohort = (await owner.client.post(url, { kind: "dynamic", name: "Anyone", definition: { type: "and", values: [{ type: "not_performed", event: "left", days: 7 }] } })).body;
    gate.down = true;
    try {
      const refused = await owner.client.post(`${url}/${cohort.id}/calculate`);
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 503, body: { error: { code: "unavailable", message: "region us could not calculate the cohort: region us answered 502 to a cohort calculation" } },
      });
      expect((await owner.client.get(`${url}/${cohort.id}`)).body.calculations).toEqual([]);
    } finally {
      gate.down = false;
    }
    const calculated = await owner.client.post(`${url}/${cohort.id}/calculate`);
    expect([calculated.status, calculated.body.calculation.status, calculated.body.calculation.size]).toEqual([200, "ok", 0]);
    expect(regionNode.nodes.get("us")!.store.cohorts.summary(created.body.project.id, "production", cohort.id)).toMatchObject({ kind: "dynamic", version: 1 });
  });
});

