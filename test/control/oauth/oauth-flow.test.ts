// The OAuth 2.1 flow end to end with a real client (oauth4webapi): discovery, dynamic
// registration, code + PKCE, the token used on /v1 like a personal access token, refresh
// rotation with reuse detection, revocation (RFC 7009), connections, and a role change
// narrowing a token at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as oauth from "oauth4webapi";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { addMember, createProject, signUp, strongPassword, v1, type SignedUpUser } from "../../helpers/accounts.ts";
import { bearer, call, isoPattern, uuidPattern } from "../../helpers/client.ts";
import { and, eq, isNull } from "drizzle-orm";
import { auditLog, oauthGrants, oauthTokens } from "../../../server/control/db/schema.ts";
import { grantLifeMs } from "../../../server/control/oauth/tokens.ts";
import { dayMs } from "../../../server/clock.ts";
import { callbackUri, connect, insecure, refresh, registerApp, type OAuthApp } from "./oauth-client.ts";

let service: TestService;
let owner: SignedUpUser;
let app: OAuthApp;
beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Olive Owner");
  app = await registerApp(service);
});
afterAll(async () => { await service.close(); });

const tokenPattern = (prefix: string) => new RegExp(`^${prefix}[0-9A-Za-z]{40}$`);

describe("discovery and registration", () => {
  test("the metadata leads a client to every endpoint, and registration answers RegisterResponse", async () => {
    expect(app.as.issuer).toBe(service.url);
    expect([app.as.authorization_endpoint, app.as.token_endpoint, app.as.registration_endpoint, app.as.revocation_endpoint]).toEqual([
      `${service.url}/oauth/authorize`, `${service.url}/oauth/token`, `${service.url}/oauth/register`, `${service.url}/oauth/revoke`,
    ]);
    const { client_id, client_id_issued_at, ...rest } = app.client as Record<string, unknown>;
    expect(client_id).toMatch(uuidPattern);
    expect(Math.abs((client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(60);
    expect(rest).toEqual({
      client_name: "Agent CLI",
      grant_types: ["authorization_code", "refresh_token"],
      redirect_uris: [callbackUri],
      response_types: ["code"],
      scope: expect.stringMatching(/^projects:read org:read .* members\.write$/),
      token_endpoint_auth_method: "none",
    });
  });

  test("a browser-based client of any origin may read the metadata, register, exchange and revoke", async () => {
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/v1", "/oauth/register", "/oauth/token", "/oauth/revoke"]) {
      const preflight = await fetch(`${service.url}${path}`, {
        method: "OPTIONS",
        headers: { origin: "https://inspector.example.com", "access-control-request-method": "POST", "access-control-request-headers": "content-type, mcp-protocol-version" },
      });
      expect([path, preflight.status, preflight.headers.get("access-control-allow-origin"), preflight.headers.get("access-control-allow-headers"), preflight.headers.get("access-control-allow-credentials")])
        .toEqual([path, 204, "*", "content-type, mcp-protocol-version", null]);
    }
    const metadata = await fetch(`${service.url}/.well-known/oauth-authorization-server`, { headers: { origin: "https://inspector.example.com" } });
    expect(metadata.headers.get("access-control-allow-origin")).toBe("*");
    const token = await fetch(`${service.url}/oauth/token`, { method: "POST", headers: { origin: "https://inspector.example.com", "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=password" });
    expect([token.status, token.headers.get("access-control-allow-origin")]).toEqual([400, "*"]);
  });

  test("the protected-resource metadata of /v1 names this authorization server", async () => {
    const resource = new URL(`${service.url}/v1`);
    const metadata = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
    expect([metadata.resource, metadata.authorization_servers]).toEqual([`${service.url}/v1`, [service.url]]);
  });
});

describe("code, tokens and /v1", () => {
  test("the access token works on /v1 as its grant, with the approved scopes, and cuts region tokens", async () => {
    const { project } = await createProject(owner, "Agent project");
    const tokens = await connect(app, owner, { scopes: ["projects:read", "query:read"] });
    expect({ ...tokens, access_token: "…", refresh_token: "…" }).toEqual({
      access_token: "…", token_type: "bearer", expires_in: 3600, refresh_token: "…", scope: "projects:read query:read",
    });
    expect([tokens.access_token, tokens.refresh_token]).toEqual([expect.stringMatching(tokenPattern("svc_oat_")), expect.stringMatching(tokenPattern("svc_ort_"))]);

    const me = await v1(service, tokens.access_token, "GET", "/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.scopes).toEqual(["projects:read", "query:read"]);
    expect(me.body.token).toEqual({
      id: expect.stringMatching(uuidPattern), name: "Agent CLI", prefix: tokens.access_token.slice(0, 14), org_id: owner.orgId,
      scopes: ["projects:read", "query:read"], project_ids: null, created_at: expect.stringMatching(isoPattern),
      expires_at: expect.stringMatching(isoPattern), last_used_at: expect.stringMatching(isoPattern), revoked_at: null,
    });
    const projects = await v1(service, tokens.access_token, "GET", "/v1/projects");
    expect([projects.status, projects.body.projects.map((p: any) => p.id)]).toEqual([200, [project.id]]);
    const write = await v1(service, tokens.access_token, "PATCH", `/v1/projects/${project.id}`, { name: "Renamed" });
    expect([write.status, write.body]).toEqual([403, { error: { code: "missing_scope", message: "requires scope `projects:write`" } }]);
    const region = await v1(service, tokens.access_token, "POST", `/v1/projects/${project.id}/region-token`, {});
    expect([region.status, region.body.scopes]).toEqual([200, ["query:read"]]);
  });

  test("projects chosen on the consent page limit the token", async () => {
    const { project: shown } = await createProject(owner, "Shown");
    const { project: hidden } = await createProject(owner, "Hidden");
    const tokens = await connect(app, owner, { scopes: ["projects:read"], project_ids: [shown.id] });
    expect((await v1(service, tokens.access_token, "GET", "/v1/projects")).body.projects.map((p: any) => p.id)).toEqual([shown.id]);
    expect((await v1(service, tokens.access_token, "GET", `/v1/projects/${hidden.id}`)).status).toBe(404);
  });

  test("a token issued for the MCP resource also works on /v1 (spec 1), with its scopes", async () => {
    const { project } = await createProject(owner, "Reached from an MCP token");
    const mcpOnly = await connect(app, owner, { scopes: ["projects:read"] }, { resource: `${service.url}/mcp` });
    const read = await v1(service, mcpOnly.access_token, "GET", `/v1/projects/${project.id}`);
    expect([read.status, read.body.id]).toEqual([200, project.id]);
    const refused = await v1(service, mcpOnly.access_token, "PATCH", `/v1/projects/${project.id}`, { name: "Renamed" });
    expect([refused.status, refused.body]).toEqual([403, { error: { code: "missing_scope", message: "requires scope `projects:write`" } }]);
  });
});

describe("refresh rotation and reuse detection", () => {
  test("each refresh returns a new pair; the old refresh token presented again revokes the whole grant", async () => {
    const first = await connect(app, owner, { scopes: ["projects:read"] });
    const second = await oauth.processRefreshTokenResponse(app.as, app.client, await refresh(app, first.refresh_token!));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe("projects:read");
    expect((await v1(service, second.access_token, "GET", "/v1/me")).status).toBe(200);
    // The first access token stays good until it expires or the grant ends.
    expect((await v1(service, first.access_token, "GET", "/v1/me")).status).toBe(200);

    const replay = await refresh(app, first.refresh_token!);
    expect([replay.status, (await replay.json()) as unknown]).toEqual([400, {
      error: "invalid_grant", error_description: "the refresh token was already used; every token of this authorization is revoked",
    }]);
    for (const access of [first.access_token, second.access_token]) expect((await v1(service, access, "GET", "/v1/me")).status).toBe(401);
    const afterRevocation = await refresh(app, second.refresh_token!);
    expect([afterRevocation.status, ((await afterRevocation.json()) as any).error_description]).toEqual([400, "the refresh token was revoked"]);
    const audit = service.ctx.db.select().from(auditLog).all().filter((row) => row.action === "oauth.grant.revoke").at(-1);
    expect([audit?.actorType, (audit?.after as any).reason]).toEqual(["anonymous", "refresh_token_reused"]);
  });

  test("a refresh may repeat the grant's scopes, not change them", async () => {
    const tokens = await connect(app, owner, { scopes: ["projects:read", "org:read"] });
    const wider = await oauth.refreshTokenGrantRequest(app.as, app.client, oauth.None(), tokens.refresh_token!, { ...insecure, additionalParameters: { scope: "projects:read org:read flags:read" } });
    expect([wider.status, (await wider.json()) as unknown]).toEqual([400, { error: "invalid_scope", error_description: "a refresh keeps the authorization's scopes; authorize again for others" }]);
    const same = await oauth.refreshTokenGrantRequest(app.as, app.client, oauth.None(), tokens.refresh_token!, { ...insecure, additionalParameters: { scope: "org:read projects:read" } });
    expect(same.status).toBe(200);
  });

  test("a client registered without refresh_token gets no refresh token", async () => {
    const noRefresh = await registerApp(service, { grant_types: ["authorization_code"] });
    const tokens = await connect(noRefresh, owner, { scopes: ["projects:read"] });
    expect([tokens.refresh_token, tokens.scope]).toEqual([undefined, "projects:read"]);
  });
});

describe("revocation (RFC 7009)", () => {
  test("revoking an access token ends it only; revoking a refresh token ends the grant", async () => {
    const tokens = await connect(app, owner, { scopes: ["projects:read"] });
    await oauth.processRevocationResponse(await oauth.revocationRequest(app.as, app.client, oauth.None(), tokens.access_token, insecure));
    expect((await v1(service, tokens.access_token, "GET", "/v1/me")).status).toBe(401);
    const renewed = await oauth.processRefreshTokenResponse(app.as, app.client, await refresh(app, tokens.refresh_token!));
    expect((await v1(service, renewed.access_token, "GET", "/v1/me")).status).toBe(200);

    await oauth.processRevocationResponse(await oauth.revocationRequest(app.as, app.client, oauth.None(), renewed.refresh_token!, insecure));
    expect((await v1(service, renewed.access_token, "GET", "/v1/me")).status).toBe(401);
    expect((await refresh(app, renewed.refresh_token!)).status).toBe(400);
  });

  test("an unknown token, or another client's, is answered 200 and changes nothing", async () => {
    const tokens = await connect(app, owner, { scopes: ["projects:read"] });
    const other = await registerApp(service, { client_name: "Other" });
    for (const token of ["svc_oat_nonsense", tokens.access_token, tokens.refresh_token!]) {
      const response = await oauth.revocationRequest(other.as, other.client, oauth.None(), token, insecure);
      expect([response.status, await response.text()]).toEqual([200, ""]);
    }
    expect((await v1(service, tokens.access_token, "GET", "/v1/me")).status).toBe(200);
  });
});

describe("roles and connections", () => {
  test("a downgraded role narrows the token at once; leaving the organisation ends it", async () => {
    const admin = await addMember(service, owner, "admin");
    const tokens = await connect(app, admin, { scopes: ["projects:read", "projects:write"] });
    const { project } = await createProject(owner, "Role test");
    expect((await v1(service, tokens.access_token, "PATCH", `/v1/projects/${project.id}`, { name: "By admin" })).status).toBe(200);

    const members = await owner.client.get(`/app/orgs/${owner.orgId}/members`);
    const memberId = members.body.members.find((m: any) => m.user_id === admin.userId).id;
    expect((await owner.client.patch(`/app/orgs/${owner.orgId}/members/${memberId}`, { role: "viewer" })).status).toBe(200);
    const narrowed = await v1(service, tokens.access_token, "PATCH", `/v1/projects/${project.id}`, { name: "By viewer" });
    expect([narrowed.status, narrowed.body.error.code]).toEqual([403, "missing_scope"]);
    expect((await v1(service, tokens.access_token, "GET", "/v1/me")).body.scopes).toEqual(["projects:read"]);
    const refreshed = await oauth.processRefreshTokenResponse(app.as, app.client, await refresh(app, tokens.refresh_token!));
    expect(refreshed.scope).toBe("projects:read");

    expect((await owner.client.delete(`/app/orgs/${owner.orgId}/members/${memberId}`)).status).toBe(204);
    expect((await v1(service, refreshed.access_token, "GET", "/v1/me")).status).toBe(401);
    const afterLeaving = await refresh(app, refreshed.refresh_token!);
    // Leaving ended the grant itself: joining again later does not bring it back.
    expect([afterLeaving.status, ((await afterLeaving.json()) as any).error_description]).toEqual([400, "the refresh token was revoked"]);
    expect((await admin.client.get("/app/oauth/connections")).body).toEqual({ connections: [] });
  });

  test("a password change ends every grant of the person, in every organisation (a reset goes through the same step)", async () => {
    const person = await signUp(service, "Pat Password");
    const first = await connect(app, person, { scopes: ["org:read"] });
    const second = await connect(app, person, { scopes: ["projects:read"] });
    expect((await person.client.get("/app/oauth/connections")).body.connections.length).toBe(2);
    const changed = await person.client.post("/app/auth/change-password", { current_password: strongPassword, new_password: "another long passphrase 42" });
    expect(changed.status).toBe(204);
    for (const tokens of [first, second]) {
      expect((await v1(service, tokens.access_token, "GET", "/v1/me")).status).toBe(401);
      const refused = await refresh(app, tokens.refresh_token!);
      expect([refused.status, ((await refused.json()) as any).error_description]).toEqual([400, "the refresh token was revoked"]);
    }
    expect((await person.client.get("/app/oauth/connections")).body).toEqual({ connections: [] });
  });

  test(`no token of a grant outlives ${grantLifeMs / dayMs} days from the consent, however often it is refreshed`, async () => {
    const tokens = await connect(app, owner, { scopes: ["org:read"] });
    const grantId = ((await v1(service, tokens.access_token, "GET", "/v1/me")).body.token.id) as string;
    const endsInMs = 10 * 60_000;
    service.ctx.db.update(oauthGrants).set({ createdAt: new Date(Date.now() - grantLifeMs + endsInMs).toISOString() }).where(eq(oauthGrants.id, grantId)).run();
    const renewed = await oauth.processRefreshTokenResponse(app.as, app.client, await refresh(app, tokens.refresh_token!));
    expect(renewed.expires_in).toBeGreaterThan(endsInMs / 1000 - 60);
    expect(renewed.expires_in).toBeLessThanOrEqual(endsInMs / 1000);
    // The refresh token it cut ends with the grant too (it would otherwise last 30 days).
    const live = service.ctx.db.select().from(oauthTokens)
      .where(and(eq(oauthTokens.grantId, grantId), eq(oauthTokens.kind, "refresh"), isNull(oauthTokens.usedAt))).all();
    expect(live.length).toBe(1);
    expect(Date.parse(live[0]!.expiresAt)).toBeLessThanOrEqual(Date.now() + endsInMs);
    expect(Date.parse(live[0]!.expiresAt)).toBeGreaterThan(Date.now() + endsInMs - 60_000);
  });

  test("connections list the person's grants; DELETE revokes every token cut from one; another's is 404", async () => {
    const person = await signUp(service, "Connie");
    const named = await registerApp(service, { client_name: "Connections app" });
    const tokens = await connect(named, person, { scopes: ["org:read"] });
    const renewed = await oauth.processRefreshTokenResponse(named.as, named.client, await refresh(named, tokens.refresh_token!));
    await v1(service, renewed.access_token, "GET", "/v1/me");
    const listed = await person.client.get("/app/oauth/connections");
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      connections: [{
        id: expect.stringMatching(uuidPattern), client_id: named.client.client_id, client_name: "Connections app", org_id: person.orgId,
        scopes: ["org:read"], created_at: expect.stringMatching(isoPattern), last_used_at: expect.stringMatching(isoPattern),
      }],
    });
    const grantId = listed.body.connections[0].id;
    expect((await owner.client.delete(`/app/oauth/connections/${grantId}`)).status).toBe(404);
    expect((await person.client.delete("/app/oauth/connections/not-a-uuid")).status).toBe(404);
    const deleted = await person.client.delete(`/app/oauth/connections/${grantId}`);
    expect([deleted.status, deleted.body]).toEqual([204, undefined]);
    for (const access of [tokens.access_token, renewed.access_token]) expect((await v1(service, access, "GET", "/v1/me")).status).toBe(401);
    expect((await refresh(named, renewed.refresh_token!)).status).toBe(400);
    expect((await person.client.get("/app/oauth/connections")).body).toEqual({ connections: [] });
    expect((await person.client.delete(`/app/oauth/connections/${grantId}`)).status).toBe(404);
    const audit = service.ctx.db.select().from(auditLog).all().filter((row) => row.targetId === grantId).map((row) => [row.action, row.actorType, row.actorId]);
    expect(audit).toEqual([["oauth.grant.create", "user", person.userId], ["oauth.grant.revoke", "user", person.userId]]);
  });

  test("ending a grant also ends the region tokens cut with its access tokens; another grant's keep working", async () => {
    const { project } = await createProject(owner, "Region revocation");
    const ended = await connect(app, owner, { scopes: ["persons:read"] });
    const kept = await connect(app, owner, { scopes: ["persons:read"] });
    const regionToken = async (access: string) => (await v1(service, access, "POST", `/v1/projects/${project.id}/region-token`, { scopes: ["persons:read"] })).body.token as string;
    const [endedRegion, keptRegion] = [await regionToken(ended.access_token), await regionToken(kept.access_token)];
    const persons = (token: string) => call(service.url, "GET", "/region/eu/persons", { headers: bearer(token) });
    expect((await persons(endedRegion)).status).toBe(200);

    // Revoking the refresh token ends the grant (RFC 7009 §2.1), in the regions too.
    await oauth.processRevocationResponse(await oauth.revocationRequest(app.as, app.client, oauth.None(), ended.refresh_token!, insecure));
    const refused = await persons(endedRegion);
    expect([refused.status, refused.body]).toEqual([401, { error: { code: "unauthorized", message: "region token revoked: the access token it was issued with was revoked" } }]);
    expect((await persons(keptRegion)).status).toBe(200);
  });

  test("connections need a session", async () => {
    const reply = await fetch(`${service.url}/app/oauth/connections`);
    expect([reply.status, await reply.json()]).toEqual([401, { error: { code: "unauthorized", message: "sign in required" } }]);
  });
});
