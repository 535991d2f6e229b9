// A real OAuth client (oauth4webapi) against a running service: discovery from the metadata,
// dynamic registration, PKCE, and the consent step taken through the console's session
// routes as the consent page takes it.
import { expect } from "bun:test";
import * as oauth from "oauth4webapi";
import type { TestService } from "../../helpers/service.ts";
import type { SignedUpUser } from "../../helpers/accounts.ts";

/** The service runs on http://127.0.0.1: oauth4webapi refuses plain http unless told. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export const callbackUri = "http://127.0.0.1:53682/callback";

export interface OAuthApp {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
}

export async function discover(service: TestService): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(service.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
}

export async function registerApp(service: TestService, metadata: Partial<oauth.Client> = {}): Promise<OAuthApp> {
  const as = await discover(service);
  const response = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [callbackUri], client_name: "Agent CLI", ...metadata }, insecure);
  const client = await oauth.processDynamicClientRegistrationResponse(response);
  return { as, client: client as oauth.Client };
}

export interface Pkce {
  verifier: string;
  challenge: string;
  state: string;
}

export async function newPkce(): Promise<Pkce> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier), state: oauth.generateRandomState() };
}

export function authorizeUrl(app: OAuthApp, pkce: Pkce, extra: Record<string, string | string[]> = {}): URL {
  const url = new URL(app.as.authorization_endpoint!);
  const params: Record<string, string | string[]> = {
    response_type: "code",
    client_id: app.client.client_id,
    redirect_uri: callbackUri,
    code_challenge: pkce.challenge,
    code_challenge_method: "S256",
    state: pkce.state,
    ...extra,
  };
  for (const [name, value] of Object.entries(params)) for (const one of [value].flat()) url.searchParams.append(name, one);
  return url;
}

/** GET /oauth/authorize without following: the status and where it sends the browser. */
export async function startAuthorize(url: URL): Promise<{ status: number; location: string | null; text: string }> {
  const response = await fetch(url, { redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), text: await response.text() };
}

/** The link back to the client on a refusal page of ours (HTML-escaped in the page). */
export function returnLink(page: string): URL {
  const href = page.match(/<a href="([^"]+)">Return to /)?.[1];
  expect(href).toBeString();
  return new URL(href!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))));
}

/** The consent page's request id from the authorization endpoint's redirect. */
export async function consentRequestId(url: URL): Promise<string> {
  const started = await startAuthorize(url);
  expect([started.status, started.location?.startsWith("/consent/")]).toEqual([302, true]);
  return decodeURIComponent(started.location!.slice("/consent/".length));
}

export interface Approval {
  org_id?: string;
  scopes: string[];
  project_ids?: string[];
}

/** The whole front channel: authorize, approve as `user`, and the callback's validated parameters. */
export async function authorize(app: OAuthApp, user: SignedUpUser, approval: Approval, extra: Record<string, string | string[]> = {}) {
  const pkce = await newPkce();
  const requestId = await consentRequestId(authorizeUrl(app, pkce, extra));
  const approved = await user.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: user.orgId, ...approval });
  expect(approved.status).toBe(200);
  const callback = new URL(approved.body.redirect_to);
  return { pkce, callback, params: oauth.validateAuthResponse(app.as, app.client, callback, pkce.state) };
}

export async function exchange(app: OAuthApp, params: URLSearchParams, verifier: string): Promise<Response> {
  return oauth.authorizationCodeGrantRequest(app.as, app.client, oauth.None(), params, callbackUri, verifier, insecure);
}

/** authorize + exchange: a token response. */
export async function connect(app: OAuthApp, user: SignedUpUser, approval: Approval, extra: Record<string, string | string[]> = {}) {
  const { pkce, params } = await authorize(app, user, approval, extra);
  return oauth.processAuthorizationCodeResponse(app.as, app.client, await exchange(app, params, pkce.verifier));
}

export async function refresh(app: OAuthApp, refreshToken: string): Promise<Response> {
  return oauth.refreshTokenGrantRequest(app.as, app.client, oauth.None(), refreshToken, insecure);
}

/** A form POST to an OAuth endpoint, for requests a well-behaved client would never send. */
export async function postForm(url: string, fields: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}
