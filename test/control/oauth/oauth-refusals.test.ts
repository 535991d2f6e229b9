// Bad inputs at every step of the OAuth flow: registration (RFC 7591 errors), the
// authorization endpoint (a page of ours for an unknown client or redirect URI, never a
// redirect; error redirects with `state` otherwise), the consent routes, and the token
// endpoint (RFC 6749 §5.2 errors), including a reused or expired code.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import * as oauth from "oauth4webapi";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { addMember, signUp, v1, type SignedUpUser } from "../../helpers/accounts.ts";
import { call } from "../../helpers/client.ts";
import { oauthAuthorizationRequests, oauthGrants } from "../../../server/control/db/schema.ts";
import { redirectUriLengthMax, redirectUrisMax } from "../../../server/control/oauth/redirect-uris.ts";
import { clientFieldLengthMax, clientNameLengthMax } from "../../../server/control/oauth/clients.ts";
import { stateLengthMax } from "../../../server/control/oauth/authorization.ts";
import { oauthAuthorizationsPerIpMax, oauthRegistrationsPerIpMax, oauthTokenRequestsPerIpMax } from "../../../server/control/limits.ts";
import {
  authorize, authorizeUrl, callbackUri, consentRequestId, exchange, newPkce, postForm, registerApp, returnLink, startAuthorize, type OAuthApp,
} from "./oauth-client.ts";

let service: TestService;
let owner: SignedUpUser;
let app: OAuthApp;
beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Olive Owner");
  app = await registerApp(service);
});
afterAll(async () => { await service.close(); });

const register = (body: unknown) => call(service.url, "POST", "/oauth/register", { body });
const badUri = (description: string) => ({ error: "invalid_redirect_uri", error_description: description });
const badMetadata = (description: string) => ({ error: "invalid_client_metadata", error_description: description });

describe("registration", () => {
  test("redirect URIs: https, or http on a loopback host; no fragment, no user info; bounded in count and length", async () => {
    const cases: [unknown, unknown][] = [
      [undefined, badUri("redirect_uris must be a non-empty array")],
      [[], badUri("redirect_uris must be a non-empty array")],
      [["http://example.com/cb"], badUri("a redirect URI must use https, or http on a loopback host (127.0.0.1, localhost, [::1])")],
      [["http://127.0.0.2/cb"], badUri("a redirect URI must use https, or http on a loopback host (127.0.0.1, localhost, [::1])")],
      [["javascript:alert(1)"], badUri("a redirect URI must use https, or http on a loopback host (127.0.0.1, localhost, [::1])")],
      [["https://app.example.com/cb#frag"], badUri("a redirect URI must not have a fragment")],
      [["https://user:pw@app.example.com/cb"], badUri("a redirect URI must not carry user information")],
      [["/relative"], badUri("not an absolute URI: /relative")],
      [[42], badUri("each redirect URI must be a non-empty string")],
      [[`https://app.example.com/${"a".repeat(redirectUriLengthMax)}`], badUri(`a redirect URI may have at most ${redirectUriLengthMax} characters`)],
      [Array.from({ length: redirectUrisMax + 1 }, (_, i) => `https://app.example.com/${i}`), badUri(`at most ${redirectUrisMax} redirect URIs`)],
    ];
    for (const [redirect_uris, expected] of cases) {
      const reply = await register({ redirect_uris });
      expect([redirect_uris, reply.status, reply.body]).toEqual([redirect_uris, 400, expected]);
    }
    const longest = `https://app.example.com/${"a".repeat(redirectUriLengthMax - "https://app.example.com/".length)}`;
    const edge = [longest, "http://localhost:8080/cb", "http://[::1]/cb", ...Array.from({ length: redirectUrisMax - 3 }, (_, i) => `https://app.example.com/${i}?x=1`)];
    const accepted = await register({ redirect_uris: edge });
    expect([accepted.status, accepted.body.redirect_uris]).toEqual([201, edge]);
    expect(accepted.headers.get("cache-control")).toBe("no-store");
  });

  test("unsupported grant types, response types and auth methods, unknown scopes and oversized fields are refused", async () => {
    const uris = { redirect_uris: [callbackUri] };
    const cases: [Record<string, unknown>, unknown][] = [
      [{ grant_types: ["client_credentials"] }, badMetadata("grant_types not supported: client_credentials (supported: authorization_code, refresh_token)")],
      [{ grant_types: ["refresh_token"] }, badMetadata("grant_types must include authorization_code")],
      [{ grant_types: "authorization_code" }, badMetadata("grant_types must be a non-empty array of strings")],
      [{ response_types: ["token"] }, badMetadata("response_types not supported: token (supported: code)")],
      [{ token_endpoint_auth_method: "client_secret_basic" }, badMetadata("token_endpoint_auth_method not supported: client_secret_basic (only public clients: none)")],
      [{ scope: "projects:read projects:*" }, badMetadata("unknown scopes: projects:*")],
      [{ scope: " " }, badMetadata("scope must name at least one scope")],
      [{ client_name: "n".repeat(clientNameLengthMax + 1) }, badMetadata(`client_name may have at most ${clientNameLengthMax} characters`)],
      [{ client_uri: "u".repeat(clientFieldLengthMax + 1) }, badMetadata(`client_uri may have at most ${clientFieldLengthMax} characters`)],
      [{ logo_uri: "javascript:alert(1)" }, badMetadata("logo_uri must be an http or https URI")],
      [{ client_name: 7 }, badMetadata("client_name must be a string")],
    ];
    for (const [extra, expected] of cases) {
      const reply = await register({ ...uris, ...extra });
      expect([extra, reply.status, reply.body]).toEqual([extra, 400, expected]);
    }
    expect((await register([1, 2])).body).toEqual(badMetadata("the body must be a JSON object"));
    const named = await register({ ...uris, client_name: "n".repeat(clientNameLengthMax), scope: "projects:read org:read", software_id: "agent", client_uri: "https://agent.example.com" });
    expect([named.status, named.body.scope, named.body.software_id, named.body.client_uri]).toEqual([201, "projects:read org:read", "agent", "https://agent.example.com"]);
    expect((await register(uris)).body.client_name).toBe("Unnamed application");
  });

  test(`registrations are limited to ${oauthRegistrationsPerIpMax} an hour per address`, async () => {
    const fresh = await startTestService({ REGIONS: "eu" });
    try {
      for (let i = 0; i < oauthRegistrationsPerIpMax; i++) {
        expect((await call(fresh.url, "POST", "/oauth/register", { body: { redirect_uris: [callbackUri] } })).status).toBe(201);
      }
      const refused = await call(fresh.url, "POST", "/oauth/register", { body: { redirect_uris: [callbackUri] } });
      expect([refused.status, refused.body.error, refused.headers.get("retry-after")]).toEqual([429, "temporarily_unavailable", expect.stringMatching(/^\d+$/)]);
    } finally {
      await fresh.close();
    }
  });
});

describe("token and revocation endpoints", () => {
  test(`share ${oauthTokenRequestsPerIpMax} requests a minute per address; the next is 429 with Retry-After`, async () => {
    const fresh = await startTestService({ REGIONS: "eu" });
    try {
      const clientId = (await registerApp(fresh)).client.client_id;
      const bad = { grant_type: "refresh_token", client_id: clientId, refresh_token: "svc_ort_nothing" };
      for (let i = 0; i < oauthTokenRequestsPerIpMax; i++) {
        const answer = i % 2 === 0 ? await postForm(`${fresh.url}/oauth/token`, bad) : await postForm(`${fresh.url}/oauth/revoke`, { client_id: clientId, token: "svc_oat_nothing" });
        expect(answer.status).toBe(i % 2 === 0 ? 400 : 200);
      }
      for (const path of ["/oauth/token", "/oauth/revoke"]) {
        const refused = await postForm(`${fresh.url}${path}`, bad);
        expect([refused.status, refused.body.error, refused.headers.get("retry-after")]).toEqual([429, "temporarily_unavailable", expect.stringMatching(/^\d+$/)]);
      }
    } finally {
      await fresh.close();
    }
  });
});

describe("authorization endpoint", () => {
  test("an unknown client, or a redirect URI it did not register, gets a page of ours and no redirect", async () => {
    const pkce = await newPkce();
    const cases: [Record<string, string | string[]>, string][] = [
      [{ client_id: crypto.randomUUID() }, "This application is not registered here."],
      [{ client_id: [app.client.client_id, app.client.client_id] }, "The request must name exactly one client_id."],
      [{ redirect_uri: "https://attacker.example.com/cb" }, "The redirect_uri is not one this application registered."],
      [{ redirect_uri: `${callbackUri}/` }, "The redirect_uri is not one this application registered."],
      [{ redirect_uri: `${callbackUri}?x=1` }, "The redirect_uri is not one this application registered."],
      [{ redirect_uri: [callbackUri, "https://attacker.example.com/cb"] }, "The request names more than one redirect_uri."],
    ];
    for (const [extra, message] of cases) {
      const answer = await startAuthorize(authorizeUrl(app, pkce, extra));
      expect([extra, answer.status, answer.location, answer.text.includes(message)]).toEqual([extra, 400, null, true]);
    }
    const several = await registerApp(service, { redirect_uris: [callbackUri, "https://app.example.com/cb"] });
    const url = authorizeUrl(several, pkce);
    url.searchParams.delete("redirect_uri");
    const missing = await startAuthorize(url);
    expect([missing.status, missing.location, missing.text.includes("The request must name a redirect_uri")]).toEqual([400, null, true]);
  });

  test("the redirect URI may be left out when the client registered only one", async () => {
    const url = authorizeUrl(app, await newPkce());
    url.searchParams.delete("redirect_uri");
    expect((await startAuthorize(url)).location).toStartWith("/consent/");
  });

  test("other problems are shown on a page of ours with a link back to the client carrying the error and its state; nothing redirects unasked", async () => {
    const pkce = await newPkce();
    const cases: [Record<string, string | string[]>, string, string][] = [
      [{ response_type: "token" }, "unsupported_response_type", "response_type must be code"],
      [{ code_challenge: "" }, "invalid_request", "code_challenge is required (PKCE with S256)"],
      [{ code_challenge_method: "plain" }, "invalid_request", "code_challenge_method must be S256"],
      [{ code_challenge_method: "" }, "invalid_request", "code_challenge_method must be S256"],
      [{ code_challenge: "short" }, "invalid_request", "code_challenge must be 43 base64url characters (S256)"],
      [{ scope: "projects:read nonsense" }, "invalid_scope", "unknown scopes: nonsense"],
      [{ resource: "https://elsewhere.example.com/api" }, "invalid_target", `unknown resource: https://elsewhere.example.com/api (known: ${service.url}/v1, ${service.url}/mcp)`],
      [{ response_type: ["code", "code"] }, "invalid_request", "response_type appears more than once"],
    ];
    for (const [extra, error, description] of cases) {
      const url = authorizeUrl(app, pkce, extra);
      if (extra.code_challenge === "") url.searchParams.delete("code_challenge");
      if (extra.code_challenge_method === "") url.searchParams.delete("code_challenge_method");
      const answer = await startAuthorize(url);
      expect([answer.status, answer.location]).toEqual([400, null]);
      const location = returnLink(answer.text);
      expect([extra, location.origin + location.pathname, Object.fromEntries(location.searchParams)]).toEqual([
        extra, callbackUri, { error, error_description: description, state: pkce.state, iss: service.url },
      ]);
      expect(() => oauth.validateAuthResponse(app.as, app.client, location, pkce.state)).toThrow(oauth.AuthorizationResponseError);
    }
    const narrow = await registerApp(service, { scope: "projects:read" });
    const unregistered = returnLink((await startAuthorize(authorizeUrl(narrow, pkce, { scope: "projects:read org:read" }))).text);
    expect(unregistered.searchParams.get("error_description")).toBe("scopes the client did not register: org:read");
  });

  test(`state round-trips up to ${stateLengthMax} characters; a longer one is refused without echoing it`, async () => {
    const pkce = await newPkce();
    const state = "s".repeat(stateLengthMax);
    const requestId = await consentRequestId(authorizeUrl(app, pkce, { state }));
    const approved = await owner.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: owner.orgId, scopes: ["projects:read"] });
    const params = oauth.validateAuthResponse(app.as, app.client, new URL(approved.body.redirect_to), state);
    expect([params.get("state"), params.get("code")]).toEqual([state, expect.stringMatching(/^[0-9A-Za-z]{43}$/)]);
    const longerPage = await startAuthorize(authorizeUrl(app, pkce, { state: `${state}s` }));
    expect([longerPage.status, longerPage.text.includes(state)]).toEqual([400, false]);
    const longer = returnLink(longerPage.text);
    expect(Object.fromEntries(longer.searchParams)).toEqual({ error: "invalid_request", error_description: `state may have at most ${stateLengthMax} characters`, iss: service.url });
  });

  test("deny sends access_denied with the state; the request cannot be decided twice", async () => {
    const pkce = await newPkce();
    const requestId = await consentRequestId(authorizeUrl(app, pkce));
    const denied = await owner.client.post(`/app/oauth/authorizations/${requestId}/deny`);
    expect(denied.status).toBe(200);
    const callback = new URL(denied.body.redirect_to);
    expect(Object.fromEntries(callback.searchParams)).toEqual({ error: "access_denied", error_description: "the person declined", state: pkce.state, iss: service.url });
    expect(() => oauth.validateAuthResponse(app.as, app.client, callback, pkce.state)).toThrow("authorization response from the server is an error");
    const again = await owner.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: owner.orgId, scopes: ["projects:read"] });
    expect([again.status, again.body]).toEqual([404, { error: { code: "not_found", message: "authorization request not found" } }]);
  });

  test("a decision posted from another site is refused, even with the person's session cookie", async () => {
    const requestId = await consentRequestId(authorizeUrl(app, await newPkce()));
    const forged = { error: { code: "forbidden", message: "the decision must come from the consent page" } };
    const cookie = { cookie: owner.client.cookie!, origin: "https://evil.example.com" };
    for (const [path, body] of [["approve", { org_id: owner.orgId, scopes: ["projects:read"] }], ["deny", undefined]] as const) {
      const refused = await call(service.url, "POST", `/app/oauth/authorizations/${requestId}/${path}`, { body, headers: cookie });
      expect([path, refused.status, refused.body]).toEqual([path, 403, forged]);
    }
    // Still pending: the page itself (same origin) decides.
    const approved = await call(service.url, "POST", `/app/oauth/authorizations/${requestId}/approve`, {
      body: { org_id: owner.orgId, scopes: ["projects:read"] }, headers: { cookie: owner.client.cookie!, origin: service.url },
    });
    expect(approved.status).toBe(200);
  });
});

describe("consent routes", () => {
  test("the page learns who asks for what; deciding needs a session, a role that holds the scopes, and a live request", async () => {
    const pkce = await newPkce();
    const requestId = await consentRequestId(authorizeUrl(app, pkce, { scope: "projects:read flags:write", resource: `${service.url}/mcp` }));
    expect((await call(service.url, "GET", `/app/oauth/authorizations/${requestId}`)).status).toBe(401);
    const shown = await owner.client.get(`/app/oauth/authorizations/${requestId}`);
    expect([shown.status, { ...shown.body, client_scopes: shown.body.client_scopes.length }]).toEqual([200, {
      id: requestId, client_id: app.client.client_id, client_name: "Agent CLI", client_uri: null, redirect_uri: callbackUri,
      scopes: ["projects:read", "flags:write"], client_scopes: 38, resources: [`${service.url}/mcp`], expires_at: expect.any(String),
    }]);
    const viewer = await addMember(service, owner, "viewer");
    const notHeld = await viewer.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: owner.orgId, scopes: ["projects:read", "flags:write"] });
    expect([notHeld.status, notHeld.body]).toEqual([403, { error: { code: "scope_not_held", message: "scope not held by your role: `flags:write`" } }]);
    const foreignOrg = await viewer.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: (await signUp(service)).orgId, scopes: ["projects:read"] });
    expect(foreignOrg.status).toBe(404);
    const empty = await viewer.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: owner.orgId, scopes: [] });
    expect([empty.status, empty.body.error.message]).toEqual([400, "scopes must list at least one scope"]);
    const unknownProject = await viewer.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: owner.orgId, scopes: ["projects:read"], project_ids: [crypto.randomUUID()] });
    expect(unknownProject.status).toBe(404);

    service.ctx.db.update(oauthAuthorizationRequests).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where(eq(oauthAuthorizationRequests.id, requestId)).run();
    expect((await owner.client.get(`/app/oauth/authorizations/${requestId}`)).status).toBe(404);
    expect((await owner.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: owner.orgId, scopes: ["projects:read"] })).status).toBe(404);
  });

  test("a scope the client did not register cannot be approved", async () => {
    const narrow = await registerApp(service, { scope: "projects:read" });
    const requestId = await consentRequestId(authorizeUrl(narrow, await newPkce()));
    const wider = await owner.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: owner.orgId, scopes: ["projects:read", "org:read"] });
    expect([wider.status, wider.body.error.message]).toEqual([400, "scopes the application did not register: org:read"]);
  });

  test(`authorization requests are limited to ${oauthAuthorizationsPerIpMax} per window per address`, async () => {
    const fresh = await startTestService({ REGIONS: "eu" });
    try {
      const freshApp = await registerApp(fresh);
      const pkce = await newPkce();
      for (let i = 0; i < oauthAuthorizationsPerIpMax; i++) expect((await startAuthorize(authorizeUrl(freshApp, pkce))).location).toStartWith("/consent/");
      const limited = await startAuthorize(authorizeUrl(freshApp, pkce));
      expect([limited.status, limited.location, limited.text.includes("Too many authorization requests from this address; try again later.")]).toEqual([429, null, true]);
      // Refusals spend the budget too: an unknown client is refused by the limit first.
      const unknown = await startAuthorize(new URL(`${fresh.url}/oauth/authorize?client_id=nobody`));
      expect([unknown.status, unknown.text.includes("This application is not registered here.")]).toEqual([429, false]);
    } finally {
      await fresh.close();
    }
  });
});

describe("token endpoint", () => {
  const tokenUrl = () => `${service.url}/oauth/token`;
  const invalid = (error: string, error_description: string) => ({ error, error_description });

  test("a wrong verifier, redirect URI or client is refused; the code still works once afterwards", async () => {
    const { pkce, params } = await authorize(app, owner, { scopes: ["projects:read"] });
    const code = params.get("code")!;
    const base = { grant_type: "authorization_code", code, redirect_uri: callbackUri, client_id: app.client.client_id, code_verifier: pkce.verifier };
    const other = await registerApp(service, { client_name: "Other" });
    const cases: [Record<string, string>, number, unknown][] = [
      [{ code_verifier: (await newPkce()).verifier }, 400, invalid("invalid_grant", "code_verifier does not match the code_challenge")],
      [{ code_verifier: "short" }, 400, invalid("invalid_request", "code_verifier must be 43 to 128 unreserved characters")],
      [{ redirect_uri: "http://127.0.0.1:53682/other" }, 400, invalid("invalid_grant", "redirect_uri differs from the authorization request's")],
      [{ client_id: other.client.client_id }, 400, invalid("invalid_grant", "unknown authorization code")],
      [{ client_id: crypto.randomUUID() }, 401, invalid("invalid_client", "unknown client")],
      [{ code: "nonsense" }, 400, invalid("invalid_grant", "unknown authorization code")],
      [{ resource: "https://elsewhere.example.com" }, 400, invalid("invalid_target", "the authorization was not for: https://elsewhere.example.com")],
      [{ grant_type: "password" }, 400, invalid("unsupported_grant_type", "grant_type not supported: password (supported: authorization_code, refresh_token)")],
      [{ grant_type: "" }, 400, invalid("invalid_request", "grant_type is required")],
      [{ code_verifier: "" }, 400, invalid("invalid_request", "code_verifier is required")],
      [{ client_id: "" }, 400, invalid("invalid_request", "client_id is required")],
    ];
    for (const [change, status, body] of cases) {
      const reply = await postForm(tokenUrl(), { ...base, ...change });
      expect([change, reply.status, reply.body, reply.headers.get("cache-control")]).toEqual([change, status, body, "no-store"]);
    }
    const json = await call(service.url, "POST", "/oauth/token", { body: base });
    expect([json.status, json.body]).toEqual([400, invalid("invalid_request", "the body must be application/x-www-form-urlencoded")]);
    const good = await exchange(app, params, pkce.verifier);
    expect(good.status).toBe(200);
  });

  test("a reused code is refused and revokes the tokens it bought", async () => {
    const { pkce, params } = await authorize(app, owner, { scopes: ["projects:read"] });
    const tokens = await oauth.processAuthorizationCodeResponse(app.as, app.client, await exchange(app, params, pkce.verifier));
    expect((await v1(service, tokens.access_token, "GET", "/v1/me")).status).toBe(200);
    const again = await exchange(app, params, pkce.verifier);
    expect([again.status, await again.json()]).toEqual([400, invalid("invalid_grant", "the authorization code was already used; the tokens issued with it are revoked")] as unknown[]);
    expect((await v1(service, tokens.access_token, "GET", "/v1/me")).status).toBe(401);
    expect((await postForm(tokenUrl(), { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: app.client.client_id })).status).toBe(400);
  });

  test("an expired code is refused", async () => {
    const { pkce, params } = await authorize(app, owner, { scopes: ["projects:read"] });
    const hash = new Bun.CryptoHasher("sha256").update(params.get("code")!).digest("hex");
    service.ctx.db.update(oauthGrants).set({ codeExpiresAt: new Date(Date.now() - 1).toISOString() }).where(eq(oauthGrants.codeHash, hash)).run();
    const expired = await exchange(app, params, pkce.verifier);
    expect([expired.status, await expired.json()]).toEqual([400, invalid("invalid_grant", "the authorization code has expired")] as unknown[]);
  });

  test("refresh: unknown, another client's, or missing tokens are refused", async () => {
    const { pkce, params } = await authorize(app, owner, { scopes: ["projects:read"] });
    const tokens = await oauth.processAuthorizationCodeResponse(app.as, app.client, await exchange(app, params, pkce.verifier));
    const other = await registerApp(service, { client_name: "Other" });
    const cases: [Record<string, string>, unknown][] = [
      [{ refresh_token: "svc_ort_nonsense", client_id: app.client.client_id }, invalid("invalid_grant", "unknown refresh token")],
      [{ refresh_token: tokens.refresh_token!, client_id: other.client.client_id }, invalid("invalid_grant", "unknown refresh token")],
      [{ refresh_token: tokens.access_token, client_id: app.client.client_id }, invalid("invalid_grant", "unknown refresh token")],
      [{ client_id: app.client.client_id }, invalid("invalid_request", "refresh_token is required")],
    ];
    for (const [fields, body] of cases) {
      const reply = await postForm(tokenUrl(), { grant_type: "refresh_token", ...fields });
      expect([fields, reply.status, reply.body]).toEqual([fields, 400, body]);
    }
    expect((await postForm(tokenUrl(), { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: app.client.client_id })).status).toBe(200);
  });

  test("revocation needs the client and the token", async () => {
    const url = `${service.url}/oauth/revoke`;
    expect((await postForm(url, { token: "svc_oat_x" })).body).toEqual(invalid("invalid_request", "client_id is required"));
    expect((await postForm(url, { client_id: app.client.client_id })).body).toEqual(invalid("invalid_request", "token is required"));
    expect((await postForm(url, { client_id: crypto.randomUUID(), token: "svc_oat_x" })).status).toBe(401);
  });
});
