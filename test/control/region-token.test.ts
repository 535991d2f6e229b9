import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { eq } from "drizzle-orm";
import { accessTokens } from "../../server/control/db/schema.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, v1, addMember, type SignedUpUser } from "../helpers/accounts.ts";
import { call, bearer } from "../helpers/client.ts";

let service: TestService;
let owner: SignedUpUser;
let project: any;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Owner");
  ({ project } = await createProject(owner, "Tokens", "eu"));
});
afterAll(async () => { await service.close(); });

const regionCall = (token: string, region = "eu") => call(service.url, "GET", `/region/${region}/token`, { headers: bearer(token) });

describe("POST /v1/projects/{id}/region-token", () => {
  test("issues an EdDSA JWT that verifies against the published JWKS", async () => {
    const { secret, token: pat } = await createToken(owner, ["query:read", "persons:write", "sql.raw", "projects:read"]);
    const before = Date.now();
    const reply = await v1(service, secret, "POST", `/v1/projects/${project.id}/region-token`, {});
    const after = Date.now();
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      token: expect.any(String),
      region_api_url: `${service.url}/region/eu`,
      expires_at: expect.any(String),
      region: "eu",
      environment: "production",
      scopes: ["query:read", "persons:read", "persons:write", "sql.raw"],
    });
    // Ten minutes from the moment of issue, in whole seconds (the JWT's exp is in seconds).
    const expiresAt = Date.parse(reply.body.expires_at);
    expect(expiresAt % 1000).toBe(0);
    expect(expiresAt).toBeGreaterThan(before + 10 * 60_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + 10 * 60_000);

    const jwks = (await call(service.url, "GET", "/.well-known/jwks.json")).body;
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    expect(jwks.keys[0].d).toBeUndefined();
    expect(decodeProtectedHeader(reply.body.token)).toMatchObject({ alg: "EdDSA", kid: jwks.keys[0].kid });
    const { payload } = await jwtVerify(reply.body.token, createLocalJWKSet(jwks), { issuer: service.url, audience: "region:eu" });
    expect(payload).toMatchObject({
      project_id: project.id,
      data_id: project.data_id,
      environment: "production",
      region: "eu",
      scopes: ["query:read", "persons:read", "persons:write", "sql.raw"],
      sub: owner.userId,
      access_token_id: pat.id,
    });
    expect((payload.exp! - payload.iat!) * 1000).toBeLessThanOrEqual(15 * 60_000);
  });

  test("the region reads project, environment and scopes only from the token", async () => {
    const { secret } = await createToken(owner, ["query:read"]);
    const issued = await v1(service, secret, "POST", `/v1/projects/${project.id}/region-token`, { environment: "staging" });
    const reply = await regionCall(issued.body.token);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      project_id: project.id,
      data_id: project.data_id,
      environment: "staging",
      scopes: ["query:read"],
      region: "eu",
      expires_at: issued.body.expires_at,
    });
  });

  test("narrowing: requested scopes must be held; unknown or non-regional scopes are 400", async () => {
    const { secret } = await createToken(owner, ["query:read", "persons:read"]);
    const path = `/v1/projects/${project.id}/region-token`;
    const narrowed = await v1(service, secret, "POST", path, { scopes: ["persons:read"] });
    expect([narrowed.status, narrowed.body.scopes]).toEqual([200, ["persons:read"]]);
    const notHeld = await v1(service, secret, "POST", path, { scopes: ["sql.raw"] });
    expect([notHeld.status, notHeld.body]).toEqual([403, { error: { code: "scope_not_held", message: "scope not held by your role: `sql.raw`" } }]);
    const unknown = await v1(service, secret, "POST", path, { scopes: ["query:everything"] });
    expect([unknown.status, unknown.body]).toEqual([400, { error: { code: "validation", message: "not regional scopes: query:everything" } }]);
    const control = await v1(service, secret, "POST", path, { scopes: ["projects:read"] });
    expect([control.status, control.body]).toEqual([400, { error: { code: "validation", message: "not regional scopes: projects:read" } }]);
  });

  test("scopes are intersected with the owner's current role", async () => {
    const member = await addMember(service, owner, "member");
    const { secret } = await createToken(member, ["query:read", "persons:write"]);
    const issued = await v1(service, secret, "POST", `/v1/projects/${project.id}/region-token`);
    expect(issued.body.scopes).toEqual(["query:read", "persons:read", "persons:write"]);
    const members = (await owner.client.get(`/app/orgs/${owner.orgId}/members`)).body.members;
    const membership = members.find((m: any) => m.user_id === member.userId);
    expect((await owner.client.patch(`/app/orgs/${owner.orgId}/members/${membership.id}`, { role: "viewer" })).status).toBe(200);
    const after = await v1(service, secret, "POST", `/v1/projects/${project.id}/region-token`);
    expect(after.body.scopes).toEqual(["query:read", "persons:read"]);
    const pii = await createToken(owner, ["persons.pii"]);
    expect((await v1(service, pii.secret, "POST", `/v1/projects/${project.id}/region-token`)).body.scopes).toEqual(["persons.pii"]);
  });

  test("never outlives the access token it is issued with", async () => {
    const { secret, token } = await createToken(owner, ["query:read"], { expires_in_days: 1 });
    // Two minutes left of the access token's life (no API shortens it; the clock cannot be moved).
    const patEnd = new Date(Date.now() + 120_000);
    patEnd.setMilliseconds(0);
    service.ctx.db.update(accessTokens).set({ expiresAt: patEnd.toISOString() }).where(eq(accessTokens.id, token.id)).run();
    const reply = await v1(service, secret, "POST", `/v1/projects/${project.id}/region-token`);
    expect([reply.status, reply.body.expires_at]).toEqual([200, patEnd.toISOString()]);
    expect(decodeJwt(reply.body.token).exp).toBe(patEnd.getTime() / 1000);
  });

  test("unknown environment is 400", async () => {
    const { secret } = await createToken(owner, ["query:read"]);
    const reply = await v1(service, secret, "POST", `/v1/projects/${project.id}/region-token`, { environment: "qa" });
    expect([reply.status, reply.body]).toEqual([400, { error: { code: "validation", message: 'unknown environment "qa"' } }]);
  });
});

describe("region side verification", () => {
  test("missing, garbage, wrong-region, expired and foreign-signed tokens are 401", async () => {
    const challenge = 'Bearer realm="svc-analytics"';
    const missing = await call(service.url, "GET", "/region/eu/token");
    expect([missing.status, missing.body, missing.headers.get("www-authenticate")]).toEqual([
      401, { error: { code: "unauthorized", message: "region token required (Authorization: Bearer <token>)" } }, challenge,
    ]);
    const garbage = await regionCall("not.a.jwt");
    expect([garbage.status, garbage.body]).toEqual([401, { error: { code: "unauthorized", message: "invalid region token" } }]);

    const { secret } = await createToken(owner, ["query:read"]);
    const issued = await v1(service, secret, "POST", `/v1/projects/${project.id}/region-token`);
    const wrongRegion = await regionCall(issued.body.token, "us");
    expect([wrongRegion.status, wrongRegion.body]).toEqual([401, { error: { code: "unauthorized", message: "region token is for another region" } }]);

    const claims = { org_id: owner.orgId, project_id: project.id, data_id: project.data_id, environment: "production", scopes: ["query:read"], region: "eu" };
    const expired = await service.ctx.signer.sign(claims, { issuer: service.url, audience: "region:eu", subject: owner.userId, expiresAt: new Date(Date.now() - 60_000) });
    const expiredReply = await regionCall(expired);
    expect([expiredReply.status, expiredReply.body]).toEqual([401, { error: { code: "unauthorized", message: "region token expired" } }]);

    const other = await startTestService();
    try {
      const forged = await other.ctx.signer.sign(claims, { issuer: service.url, audience: "region:eu", subject: owner.userId, expiresAt: new Date(Date.now() + 60_000) });
      const forgedReply = await regionCall(forged);
      expect([forgedReply.status, forgedReply.body]).toEqual([401, { error: { code: "unauthorized", message: "invalid region token" } }]);
    } finally {
      await other.close();
    }
  });
});
