import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, strongPassword, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { ConsoleClient, call, isoPattern, uuidPattern } from "../helpers/client.ts";

let service: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Owner");
});
afterAll(async () => { await service.close(); });

function auditCount(): number {
  const db = new Database(join(service.dataDir, "control.sqlite"), { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM audit_log").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("Idempotency-Key", () => {
  test("same key and same request replays the stored response without a second write", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const path = `/v1/orgs/${owner.orgId}/projects`;
    const first = await v1(service, secret, "POST", path, { name: "Replay me", region: "us" }, { "Idempotency-Key": "create-1" });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const second = await v1(service, secret, "POST", path, { name: "Replay me", region: "us" }, { "Idempotency-Key": "create-1" });
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    const list = await v1(service, secret, "GET", `/v1/orgs/${owner.orgId}/projects`);
    expect(list.body.projects.filter((project: any) => project.name === "Replay me")).toHaveLength(1);
  });

  test("same key with a different request is 422 idempotency_key_reused", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const path = `/v1/orgs/${owner.orgId}/projects`;
    expect((await v1(service, secret, "POST", path, { name: "A", region: "eu" }, { "Idempotency-Key": "k" })).status).toBe(201);
    const reused = await v1(service, secret, "POST", path, { name: "B", region: "eu" }, { "Idempotency-Key": "k" });
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({
      error: { code: "idempotency_key_reused", message: "Idempotency-Key was already used with a different request" },
    });
  });

  test("keys are per token: another token may use the same key", async () => {
    const one = await createToken(owner, ["projects:write"]);
    const two = await createToken(owner, ["projects:write"]);
    const { project } = await createProject(owner, "Per token");
    const path = `/v1/projects/${project.id}`;
    expect((await v1(service, one.secret, "PATCH", path, { name: "one" }, { "Idempotency-Key": "same" })).body.name).toBe("one");
    const other = await v1(service, two.secret, "PATCH", path, { name: "two" }, { "Idempotency-Key": "same" });
    expect(other.status).toBe(200);
    expect(other.body.name).toBe("two");
  });

  test("error responses below 500 are replayed too", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const path = `/v1/orgs/${owner.orgId}/projects`;
    const first = await v1(service, secret, "POST", path, { name: "X", region: "mars" }, { "Idempotency-Key": "bad-region" });
    const expected = { error: { code: "validation", message: 'region "mars" is not live; live regions: eu, us, me, pk' } };
    expect(first.status).toBe(400);
    expect(first.body).toEqual(expected);
    const again = await v1(service, secret, "POST", path, { name: "X", region: "mars" }, { "Idempotency-Key": "bad-region" });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(expected);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  test("key format: 1-255 visible ASCII characters", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const { project } = await createProject(owner, "Key format");
    const path = `/v1/projects/${project.id}`;
    const invalid = { error: { code: "validation", message: "Idempotency-Key must be 1-255 visible ASCII characters" } };
    expect((await v1(service, secret, "PATCH", path, { name: "n" }, { "Idempotency-Key": "x".repeat(255) })).status).toBe(200);
    const tooLong = await v1(service, secret, "PATCH", path, { name: "n" }, { "Idempotency-Key": "x".repeat(256) });
    expect([tooLong.status, tooLong.body]).toEqual([400, invalid]);
    const withSpace = await v1(service, secret, "PATCH", path, { name: "n" }, { "Idempotency-Key": "has space" });
    expect([withSpace.status, withSpace.body]).toEqual([400, invalid]);
    expect((await v1(service, secret, "PATCH", path, { name: "n" }, { "Idempotency-Key": "a" })).status).toBe(200);
  });
});

describe("dry_run", () => {
  test("rename: returns DryRun with before and after, changes nothing, writes no audit row", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const { project } = await createProject(owner, "Dry");
    const auditBefore = auditCount();
    const reply = await v1(service, secret, "PATCH", `/v1/projects/${project.id}?dry_run=true`, { name: "Wet" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ action: "project.rename", dry_run: true, before: project, after: { ...project, name: "Wet" } });
    expect((await v1(service, secret, "GET", `/v1/projects/${project.id}`)).body).toEqual(project);
    expect(auditCount()).toBe(auditBefore);
  });

  test("delete, revoke, rotate and create: previews only", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const { project, public_keys } = await createProject(owner, "Keep");
    const key = public_keys[0];

    const del = await v1(service, secret, "DELETE", `/v1/projects/${project.id}?dry_run=true`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({
      action: "project.delete",
      dry_run: true,
      before: project,
      after: { deleted: true, revoked_keys: public_keys.map((k: any) => k.id) },
    });

    const revoke = await v1(service, secret, "POST", `/v1/projects/${project.id}/keys/${key.id}/revoke?dry_run=true`);
    expect(revoke.status).toBe(200);
    expect(revoke.body).toEqual({
      action: "key.revoke",
      dry_run: true,
      before: key,
      after: { ...key, revoked_at: expect.stringMatching(isoPattern), registry_synced: false },
    });

    const rotate = await v1(service, secret, "POST", `/v1/projects/${project.id}/keys/${key.id}/rotate?dry_run=1`, { keep_old: true });
    expect(rotate.status).toBe(200);
    expect(rotate.body.action).toBe("key.rotate");
    expect(rotate.body.before).toEqual(key);
    expect(rotate.body.after.revoked).toEqual(key);
    expect(rotate.body.after.created.key).toMatch(/^svc_pk_eu_production_[0-9A-Za-z]{22}$/);

    const create = await v1(service, secret, "POST", `/v1/orgs/${owner.orgId}/projects?dry_run=true`, { name: "Ghost", region: "me", currency: "EUR", timezone: "Europe/Paris" });
    expect(create.status).toBe(200);
    expect(create.body).toEqual({
      action: "project.create",
      dry_run: true,
      before: null,
      after: {
        org_id: owner.orgId, name: "Ghost", region: "me", currency: "EUR", timezone: "Europe/Paris",
        retention_days: 365, environments: ["production", "staging", "development"],
      },
    });

    expect((await v1(service, secret, "GET", `/v1/projects/${project.id}`)).body).toEqual(project);
    expect((await v1(service, secret, "GET", `/v1/projects/${project.id}/keys`)).body).toEqual({ keys: public_keys });
    const names = (await v1(service, secret, "GET", "/v1/projects")).body.projects.map((p: any) => p.name);
    expect(names).not.toContain("Ghost");
  });

  test("dry runs still validate and check scopes", async () => {
    const reader = await createToken(owner, ["projects:read"]);
    const { project } = await createProject(owner, "Checked");
    const denied = await v1(service, reader.secret, "PATCH", `/v1/projects/${project.id}?dry_run=true`, { name: "x" });
    expect([denied.status, denied.body]).toEqual([403, { error: { code: "missing_scope", message: "requires scope `projects:write`" } }]);
    const writer = await createToken(owner, ["projects:write"]);
    const invalid = await v1(service, writer.secret, "PATCH", `/v1/projects/${project.id}?dry_run=true`, { name: "" });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("validation");
  });
});

describe("audit log", () => {
  test("every applied write records actor, action, target and before/after", async () => {
    const { secret, token } = await createToken(owner, ["projects:write"]);
    const { project } = await createProject(owner, "Audited");
    await v1(service, secret, "PATCH", `/v1/projects/${project.id}`, { name: "Audited 2" });
    const db = new Database(join(service.dataDir, "control.sqlite"), { readonly: true });
    const row = db.query("SELECT * FROM audit_log WHERE action = 'project.rename' AND target_id = ? ORDER BY id DESC").get(project.id) as any;
    db.close();
    expect(row.actor_type).toBe("token");
    expect(row.actor_id).toBe(token.id);
    expect(row.org_id).toBe(owner.orgId);
    expect(JSON.parse(row.before).name).toBe("Audited");
    expect(JSON.parse(row.after).name).toBe("Audited 2");
    expect(row.target_id).toMatch(uuidPattern);
  });

  test("account and session writes are audited too", async () => {
    const user = await signUp(service, "Audited user");
    const second = new ConsoleClient(service.url);
    expect((await second.post("/app/auth/login", { email: user.email, password: strongPassword })).status).toBe(200);
    expect((await user.client.post("/app/auth/sessions/revoke-others")).body).toEqual({ revoked: 1 });
    const { token } = service.lastMail(user.email, "verify_email");
    expect((await call(service.url, "POST", "/app/auth/verify-email", { body: { token } })).status).toBe(204);
    expect((await user.client.post("/app/auth/logout")).status).toBe(204);
    const db = new Database(join(service.dataDir, "control.sqlite"), { readonly: true });
    const rows = db
      .query("SELECT action, actor_type, target_type FROM audit_log WHERE actor_id = ? OR target_id = ? ORDER BY id")
      .all(user.userId, user.userId);
    db.close();
    expect(rows).toEqual([
      { action: "user.signup", actor_type: "anonymous", target_type: "user" },
      { action: "session.create", actor_type: "user", target_type: "user" },
      { action: "session.revoke_others", actor_type: "user", target_type: "session" },
      { action: "user.verify_email", actor_type: "anonymous", target_type: "user" },
      { action: "session.revoke", actor_type: "user", target_type: "session" },
    ]);
  });
});
