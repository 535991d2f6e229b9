// The authorization endpoint (RFC 6749 §4.1 with PKCE, RFC 7636; OAuth 2.1) and the decision
// taken on the console's consent page. An unknown client or a redirect URI it did not register
// is refused on a page of ours: redirecting there would make us an open redirector. Every
// other problem found before the person decides is also shown on a page of ours, with a link
// back to the client carrying the error and its `state`: anyone may register a client with any
// https redirect URI, so sending browsers there unasked would make this domain a bouncer to it
// (RFC 9700 §4.11.2). Only the person's own decision on the consent page redirects at once.
import { and, eq, gt, lt } from "drizzle-orm";
import { minuteMs, nowIso } from "../../clock.ts";
import { randomBase62, sha256Hex } from "../../crypto.ts";
import { notFound, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { oauthAuthorizationRequests, oauthGrants } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { isKnownScope, readScopes, sortScopes } from "../auth/scopes.ts";
import { applyWrite } from "../services/audited-write.ts";
import { checkTokenReach, type TokenReachInput } from "../services/access-tokens.ts";
import type { SessionPrincipal } from "../routes/session-auth.ts";
import { findClient, parseScopeText, type ClientRow } from "./clients.ts";
import type { OAuthErrorCode } from "./oauth-errors.ts";
import { knownResources, v1Resource } from "./resources.ts";

/** How long the consent page may take: the person may have to sign in first. */
export const authorizationRequestLifeMs = 10 * minuteMs;
/** OAuth 2.1 §4.1.2: short-lived; the client exchanges it at once. */
export const authorizationCodeLifeMs = minuteMs;
export const stateLengthMax = 1000;
const codeLength = 43;
/** BASE64URL(SHA-256(verifier)) without padding (RFC 7636 §4.2). */
const codeChallengePattern = /^[A-Za-z0-9_-]{43}$/;

/** The console page where the person decides (web/console/pages/oauth/consent.tsx). */
export const consentPagePath = (requestId: string) => `/consent/${encodeURIComponent(requestId)}`;

export type AuthorizeOutcome =
  /** A page of ours (HTTP `status`); `returnTo`, when set, is the client's redirect URI with the error, for the person to follow. */
  | { kind: "refuse"; status: number; message: string; returnTo: string | null }
  | { kind: "redirect"; location: string };

const refuse = (message: string, status = 400): AuthorizeOutcome => ({ kind: "refuse", status, message, returnTo: null });

type RequestRow = typeof oauthAuthorizationRequests.$inferSelect;

/** Adds the answer's parameters to a registered redirect URI, with `iss` (RFC 9207) against mix-up attacks. */
function redirectWith(ctx: ControlContext, redirectUri: string, answer: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) if (value !== null) url.searchParams.append(name, value);
  url.searchParams.append("iss", ctx.baseUrl());
  return url.href;
}

/** A problem with the client's request that the client is told of (RFC 6749 §4.1.2.1 error codes). */
class ClientRequestError extends Error {
  constructor(readonly code: OAuthErrorCode, readonly description: string) {
    super(description);
  }
}

/** The one value of a parameter that may appear once (RFC 6749 §3.1); null when absent. */
function single(params: URLSearchParams, name: string): string | null {
  const values = params.getAll(name);
  if (values.length > 1) throw new ClientRequestError("invalid_request", `${name} appears more than once`);
  return values[0] ?? null;
}

function requestedScopes(client: ClientRow, scopeText: string | null): string[] {
  if (scopeText === null) return readScopes.filter((scope) => client.scopes.includes(scope));
  const scopes = parseScopeText(scopeText);
  const unknown = scopes.filter((scope) => !isKnownScope(scope));
  if (unknown.length) throw new ClientRequestError("invalid_scope", `unknown scopes: ${unknown.join(", ")}`);
  const unregistered = scopes.filter((scope) => !client.scopes.includes(scope));
  if (unregistered.length) throw new ClientRequestError("invalid_scope", `scopes the client did not register: ${unregistered.join(", ")}`);
  return sortScopes(scopes);
}

function requestedResources(ctx: ControlContext, params: URLSearchParams): string[] {
  const resources = [...new Set(params.getAll("resource"))];
  if (resources.length === 0) return [v1Resource(ctx)];
  const known = knownResources(ctx);
  const unknown = resources.filter((resource) => !known.includes(resource));
  if (unknown.length) throw new ClientRequestError("invalid_target", `unknown resource: ${unknown.join(", ")} (known: ${known.join(", ")})`);
  return resources;
}

/** GET /oauth/authorize: checks the request and sends the browser to the consent page. */
export function startAuthorization(ctx: ControlContext, params: URLSearchParams, ip: string | null): AuthorizeOutcome {
  // First, so that refusals cost an address its budget too.
  if (ip && !ctx.limiters.oauthAuthorizationsByIp.take(ip).allowed) return refuse("Too many authorization requests from this address; try again later.", 429);
  const clientIds = params.getAll("client_id");
  const redirectUris = params.getAll("redirect_uri");
  if (clientIds.length !== 1) return refuse("The request must name exactly one client_id.");
  const client = findClient(ctx, clientIds[0]!);
  if (!client) return refuse("This application is not registered here.");
  if (redirectUris.length > 1) return refuse("The request names more than one redirect_uri.");
  const redirectUri = redirectUris[0] ?? (client.redirectUris.length === 1 ? client.redirectUris[0]! : null);
  if (redirectUri === null) return refuse("The request must name a redirect_uri: the application registered several.");
  if (!client.redirectUris.includes(redirectUri)) return refuse("The redirect_uri is not one this application registered.");
  const states = params.getAll("state");
  const state = states.length === 1 && states[0]!.length <= stateLengthMax ? states[0]! : null;
  const fail = (code: OAuthErrorCode, description: string): AuthorizeOutcome => ({
    kind: "refuse",
    status: 400,
    message: `The application's request is not valid (${code}): ${description}.`,
    returnTo: redirectWith(ctx, redirectUri, { error: code, error_description: description, state }),
  });
  try {
    if (states.length > 1) throw new ClientRequestError("invalid_request", "state appears more than once");
    if (states.length === 1 && state === null) throw new ClientRequestError("invalid_request", `state may have at most ${stateLengthMax} characters`);
    if (single(params, "response_type") !== "code") throw new ClientRequestError("unsupported_response_type", "response_type must be code");
    const challenge = single(params, "code_challenge");
    const method = single(params, "code_challenge_method");
    if (challenge === null) throw new ClientRequestError("invalid_request", "code_challenge is required (PKCE with S256)");
    if (method !== "S256") throw new ClientRequestError("invalid_request", "code_challenge_method must be S256");
    if (!codeChallengePattern.test(challenge)) throw new ClientRequestError("invalid_request", "code_challenge must be 43 base64url characters (S256)");
    const scopes = requestedScopes(client, single(params, "scope"));
    const resources = requestedResources(ctx, params);
    const now = Date.now();
    const row: RequestRow = {
      id: newId(),
      clientId: client.id,
      redirectUri,
      state,
      codeChallenge: challenge,
      scopes,
      resources,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + authorizationRequestLifeMs).toISOString(),
    };
    ctx.db.transaction((tx) => {
      tx.delete(oauthAuthorizationRequests).where(lt(oauthAuthorizationRequests.expiresAt, row.createdAt)).run();
      tx.insert(oauthAuthorizationRequests).values(row).run();
    });
    return { kind: "redirect", location: consentPagePath(row.id) };
  } catch (error) {
    if (error instanceof ClientRequestError) return fail(error.code, error.description);
    throw error;
  }
}

function pendingRequest(ctx: ControlContext, requestId: string): { request: RequestRow; client: ClientRow } {
  const request = ctx.db
    .select()
    .from(oauthAuthorizationRequests)
    .where(and(eq(oauthAuthorizationRequests.id, requestId), gt(oauthAuthorizationRequests.expiresAt, nowIso())))
    .get();
  const client = request ? findClient(ctx, request.clientId) : null;
  if (!request || !client) throw notFound("authorization request");
  return { request, client };
}

/** What the consent page shows: who asks, for what, and where the answer goes. */
export function describeAuthorization(ctx: ControlContext, requestId: string) {
  const { request, client } = pendingRequest(ctx, requestId);
  return {
    id: request.id,
    client_id: client.id,
    client_name: client.name,
    client_uri: client.metadata.client_uri ?? null,
    redirect_uri: request.redirectUri,
    scopes: request.scopes,
    client_scopes: client.scopes,
    resources: request.resources,
    expires_at: request.expiresAt,
  };
}

/** Approve: a grant with a single-use code, and where to send the browser with it. */
export function approveAuthorization(ctx: ControlContext, principal: SessionPrincipal, requestId: string, input: TokenReachInput): { redirect_to: string } {
  const { request, client } = pendingRequest(ctx, requestId);
  const { access, scopes, projectIds } = checkTokenReach(ctx, principal, input);
  const unregistered = scopes.filter((scope) => !client.scopes.includes(scope));
  if (unregistered.length) throw validation(`scopes the application did not register: ${unregistered.join(", ")}`);
  const code = randomBase62(codeLength);
  const now = Date.now();
  const grant: typeof oauthGrants.$inferSelect = {
    id: newId(),
    clientId: client.id,
    userId: principal.user.id,
    orgId: access.org.id,
    scopes,
    projectIds,
    resources: request.resources,
    redirectUri: request.redirectUri,
    codeHash: sha256Hex(code),
    codeChallenge: request.codeChallenge,
    codeExpiresAt: new Date(now + authorizationCodeLifeMs).toISOString(),
    codeUsedAt: null,
    createdAt: new Date(now).toISOString(),
    lastUsedAt: null,
    revokedAt: null,
  };
  applyWrite(ctx, principal, {
    action: "oauth.grant.create",
    targetType: "oauth_grant",
    targetId: grant.id,
    orgId: access.org.id,
    before: null,
    after: { id: grant.id, client_id: client.id, client_name: client.name, scopes, project_ids: projectIds, resources: grant.resources },
    apply: () => {
      ctx.db.delete(oauthAuthorizationRequests).where(eq(oauthAuthorizationRequests.id, request.id)).run();
      ctx.db.insert(oauthGrants).values(grant).run();
    },
  });
  return { redirect_to: redirectWith(ctx, request.redirectUri, { code, state: request.state }) };
}

/** Deny: the request is forgotten and the client learns `access_denied`. */
export function denyAuthorization(ctx: ControlContext, requestId: string): { redirect_to: string } {
  const { request } = pendingRequest(ctx, requestId);
  ctx.db.delete(oauthAuthorizationRequests).where(eq(oauthAuthorizationRequests.id, request.id)).run();
  return { redirect_to: redirectWith(ctx, request.redirectUri, { error: "access_denied", error_description: "the person declined", state: request.state }) };
}
