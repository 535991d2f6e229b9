import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { call, isoPattern, uuidPattern } from "../helpers/client.ts";

let service: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Owner");
});
afterAll(async () => { await service.close(); });

function registryRow(region: string, key: string): any {
  const db = new Database(join(service.dataDir, region, "region.sqlite"), { readonly: true });
  try {
    return db.query("SELECT project_id, data_id, environment, revoked_at FROM key_registry WHERE key = ?").get(key);
  } finally {
    db.close();
  }
}

describe("signup -> project -> keys -> PAT -> /v1", () => {
  test("the whole path, with keys mirrored into the region's key registry", async () => {
    const created = await owner.client.post(`/app/orgs/${owner.orgId}/projects`, { name: "Shop", region: "pk", currency: "PKR", timezone: "Asia/Karachi" });
    expect(created.status).toBe(201);
    const { project, public_keys } = created.body;
    expect(project).toEqual({
      id: expect.stringMatching(uuidPattern),
      org_id: owner.orgId,
      name: "Shop",
      slug: "shop",
      region: "pk",
      currency: "PKR",
      timezone: "Asia/Karachi",
      retention_days: 365,
      data_id: expect.any(Number),
      role: "owner",
      environments: [
        { id: expect.stringMatching(uuidPattern), name: "production", is_default: true },
        { id: expect.stringMatching(uuidPattern), name: "staging", is_default: false },
        { id: expect.stringMatching(uuidPattern), name: "development", is_default: false },
      ],
      created_at: expect.stringMatching(isoPattern),
    });
    expect(public_keys.map((key: any) => key.environment)).toEqual(["production", "staging", "development"]);
    for (const key of public_keys) {
      expect(key).toEqual({
        id: expect.stringMatching(uuidPattern),
        project_id: project.id,
        environment: key.environment,
        key: expect.stringMatching(new RegExp(`^svc_pk_pk_${key.environment}_[0-9A-Za-z]{22}$`)),
        allowed_bundle_ids: [],
        allowed_origins: [],
        registry_synced: true,
        created_at: expect.stringMatching(isoPattern),
        revoked_at: null,
      });
      expect(registryRow("pk", key.key)).toEqual({ project_id: project.id, data_id: project.data_id, environment: key.environment, revoked_at: null });
      expect(registryRow("eu", key.key)).toBeNull();
    }

    const { secret, token } = await createToken(owner, ["projects:write", "org:read"]);
    expect(secret).toMatch(/^svc_pat_[0-9A-Za-z]{40}$/);
    const me = await v1(service, secret, "GET", "/v1/me");
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      token: { ...token, last_used_at: expect.stringMatching(isoPattern) },
      user: { id: owner.userId, email: owner.email, name: "Owner", email_verified: false, created_at: expect.stringMatching(isoPattern) },
      org: { id: owner.orgId, name: "Owner's organisation", slug: expect.any(String), role: "owner", created_at: expect.stringMatching(isoPattern) },
      scopes: ["projects:read", "org:read", "projects:write"],
    });
    const list = await v1(service, secret, "GET", "/v1/projects");
    expect(list.body.projects).toContainEqual(project);
    expect((await v1(service, secret, "GET", `/v1/projects/${project.id}/environments`)).body).toEqual({ environments: project.environments });
    expect((await v1(service, secret, "GET", `/v1/orgs/${owner.orgId}`)).body.id).toBe(owner.orgId);
  });

  test("data ids are unique across projects", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const ids = new Set<number>();
    for (const region of ["eu", "us", "me"]) {
      const reply = await v1(service, secret, "POST", `/v1/orgs/${owner.orgId}/projects`, { name: `P ${region}`, region });
      expect(reply.status).toBe(201);
      ids.add(reply.body.project.data_id);
    }
    expect(ids.size).toBe(3);
  });

  test("create validation: region must be live, currency ISO 4217, timezone IANA", async () => {
    const only = await startTestService({ REGIONS: "eu" });
    try {
      const user = await signUp(only, "Solo");
      const expectError = async (body: unknown, message: string) => {
        const reply = await user.client.post(`/app/orgs/${user.orgId}/projects`, body);
        expect([reply.status, reply.body]).toEqual([400, { error: { code: "validation", message } }]);
      };
      await expectError({ name: "x", region: "us" }, 'region "us" is not live; live regions: eu');
      await expectError({ name: "x", region: "eu", currency: "XYZ" }, 'currency "XYZ" is not an ISO 4217 code');
      await expectError({ name: "x", region: "eu", timezone: "Mars/Olympus" }, 'timezone "Mars/Olympus" is not an IANA time zone');
      const regions = await call(only.url, "GET", "/app/regions");
      expect(regions.body).toEqual({
        regions: [{ code: "eu", name: "Europe", status: "live", api_host: `${only.url}/region/eu`, ingest_host: `${only.url}/ingest/eu` }],
      });
    } finally {
      await only.close();
    }
  });
});

describe("key rotate and revoke", () => {
  test("rotate revokes the old key now; keep_old leaves it active; both reach the registry", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const { project, public_keys } = (await v1(service, secret, "POST", `/v1/orgs/${owner.orgId}/projects`, { name: "Rotating", region: "eu" })).body;
    const [production, staging] = public_keys;

    const rotated = await v1(service, secret, "POST", `/v1/projects/${project.id}/keys/${production.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.revoked).toEqual({ ...production, revoked_at: expect.stringMatching(isoPattern) });
    expect(rotated.body.created).toMatchObject({ project_id: project.id, environment: "production", revoked_at: null, registry_synced: true });
    expect(registryRow("eu", production.key).revoked_at).toBe(rotated.body.revoked.revoked_at);
    expect(registryRow("eu", rotated.body.created.key).revoked_at).toBeNull();

    const kept = await v1(service, secret, "POST", `/v1/projects/${project.id}/keys/${staging.id}/rotate`, { keep_old: true });
    expect(kept.status).toBe(200);
    expect(kept.body.revoked).toEqual(staging);
    expect(registryRow("eu", staging.key).revoked_at).toBeNull();

    const again = await v1(service, secret, "POST", `/v1/projects/${project.id}/keys/${production.id}/rotate`);
    expect([again.status, again.body]).toEqual([409, { error: { code: "conflict", message: "key is already revoked; rotate an active key" } }]);

    const revoked = await v1(service, secret, "POST", `/v1/projects/${project.id}/keys/${staging.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ ...staging, revoked_at: expect.stringMatching(isoPattern) });
    expect(registryRow("eu", staging.key).revoked_at).toBe(revoked.body.revoked_at);
    const revokedTwice = await v1(service, secret, "POST", `/v1/projects/${project.id}/keys/${staging.id}/revoke`);
    expect([revokedTwice.status, revokedTwice.body]).toEqual([200, revoked.body]);

    const keys = (await v1(service, secret, "GET", `/v1/projects/${project.id}/keys`)).body.keys;
    expect(keys).toHaveLength(5);
    expect(keys.filter((key: any) => key.revoked_at === null).map((key: any) => key.environment).sort()).toEqual(["development", "production", "staging"]);
  });

  test("soft-delete hides the project and revokes every key", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const { project, public_keys } = (await v1(service, secret, "POST", `/v1/orgs/${owner.orgId}/projects`, { name: "Doomed", region: "us" })).body;
    const deleted = await v1(service, secret, "DELETE", `/v1/projects/${project.id}`);
    expect([deleted.status, deleted.body]).toEqual([204, undefined]);
    for (const key of public_keys) expect(registryRow("us", key.key).revoked_at).toMatch(isoPattern);
    expect((await v1(service, secret, "GET", `/v1/projects/${project.id}`)).status).toBe(404);
    expect((await v1(service, secret, "GET", "/v1/projects")).body.projects.map((p: any) => p.id)).not.toContain(project.id);
    expect((await owner.client.get(`/app/projects/${project.id}`)).status).toBe(404);
  });
});

describe("bearer tokens", () => {
  const challenge = 'Bearer realm="svc-analytics"';

  test("missing, unknown, revoked and expired tokens are 401 with WWW-Authenticate", async () => {
    const missing = await call(service.url, "GET", "/v1/me");
    expect([missing.status, missing.body, missing.headers.get("www-authenticate")]).toEqual([
      401, { error: { code: "unauthorized", message: "bearer token required" } }, challenge,
    ]);
    const unknown = await v1(service, "svc_pat_doesnotexist", "GET", "/v1/me");
    expect([unknown.status, unknown.body, unknown.headers.get("www-authenticate")]).toEqual([
      401, { error: { code: "unauthorized", message: "token is invalid, expired or revoked" } }, challenge,
    ]);

    const revoked = await createToken(owner, ["projects:read"]);
    expect((await v1(service, revoked.secret, "GET", "/v1/me")).status).toBe(200);
    expect((await owner.client.delete(`/app/tokens/${revoked.token.id}`)).status).toBe(204);
    const afterRevoke = await v1(service, revoked.secret, "GET", "/v1/me");
    expect([afterRevoke.status, afterRevoke.headers.get("www-authenticate")]).toEqual([401, challenge]);
    expect((await owner.client.delete(`/app/tokens/${revoked.token.id}`)).status).toBe(404);

    const expiring = await createToken(owner, ["projects:read"], { expires_in_days: 1 });
    expect(Date.parse(expiring.token.expires_at) - Date.parse(expiring.token.created_at)).toBe(86_400_000);
    expect((await v1(service, expiring.secret, "GET", "/v1/me")).status).toBe(200);
    // Move the expiry into the past, as a day passing would.
    const db = new Database(join(service.dataDir, "control.sqlite"));
    db.query("UPDATE access_tokens SET expires_at = ? WHERE id = ?").run(new Date(Date.now() - 1000).toISOString(), expiring.token.id);
    db.close();
    const expired = await v1(service, expiring.secret, "GET", "/v1/me");
    expect([expired.status, expired.body, expired.headers.get("www-authenticate")]).toEqual([
      401, { error: { code: "unauthorized", message: "token is invalid, expired or revoked" } }, challenge,
    ]);
  });

  test("token creation limits: scopes, wildcards, 1-365 days, up to 100 projects", async () => {
    const post = (body: Record<string, unknown>) => owner.client.post("/app/tokens", { name: "t", org_id: owner.orgId, ...body });
    const error = (code: string, message: string) => ({ error: { code, message } });
    expect((await post({ scopes: ["projects:*"] })).body).toEqual(error("validation", 'wildcard scopes are not allowed: "projects:*"'));
    expect((await post({ scopes: ["projects:admin"] })).body).toEqual(error("validation", "unknown scopes: projects:admin"));
    expect((await post({ scopes: [] })).body).toEqual(error("validation", "scopes must list at least one scope"));
    const days = error("validation", "expires_in_days must be an integer from 1 to 365");
    expect((await post({ scopes: ["org:read"], expires_in_days: 0 })).body).toEqual(days);
    expect((await post({ scopes: ["org:read"], expires_in_days: 366 })).body).toEqual(days);
    expect((await post({ scopes: ["org:read"], expires_in_days: 365 })).status).toBe(201);
    expect((await post({ scopes: ["org:read"], expires_in_days: 1 })).status).toBe(201);
    const tooMany = Array.from({ length: 101 }, () => crypto.randomUUID());
    expect((await post({ scopes: ["org:read"], project_ids: tooMany })).body).toEqual(error("validation", "project_ids may list at most 100 projects"));
    const unknownProjects = await post({ scopes: ["org:read"], project_ids: tooMany.slice(0, 100) });
    expect([unknownProjects.status, unknownProjects.body]).toEqual([404, error("not_found", "project not found")]);
  });

  test("tokens cannot create tokens", async () => {
    const { secret } = await createToken(owner, ["org:read"]);
    const reply = await call(service.url, "POST", "/app/tokens", {
      body: { name: "t", org_id: owner.orgId, scopes: ["org:read"] },
      headers: { authorization: `Bearer ${secret}` },
    });
    expect([reply.status, reply.body.error.code]).toEqual([401, "unauthorized"]);
  });
});

describe("request limits", () => {
  test("a body over 64 KB is 413; exactly 64 KB is read", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const path = `/v1/orgs/${owner.orgId}/projects`;
    const envelope = JSON.stringify({ name: "", region: "eu" });
    const atLimit = JSON.stringify({ name: "x".repeat(65536 - envelope.length), region: "eu" });
    expect(atLimit.length).toBe(65536);
    const ok = await call(service.url, "POST", path, { rawBody: atLimit, headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } });
    expect([ok.status, ok.body]).toEqual([400, { error: { code: "validation", message: "body /name: Expected string length less or equal to 200" } }]);
    const over = await call(service.url, "POST", path, { rawBody: atLimit + " ", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } });
    expect([over.status, over.body]).toEqual([413, { error: { code: "payload_too_large", message: "request body exceeds 65536 bytes" } }]);
  });

  test("malformed JSON is 400", async () => {
    const { secret } = await createToken(owner, ["projects:write"]);
    const reply = await call(service.url, "POST", `/v1/orgs/${owner.orgId}/projects`, { rawBody: "{nope", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } });
    expect([reply.status, reply.body]).toEqual([400, { error: { code: "validation", message: "request body is not valid JSON" } }]);
  });
});
