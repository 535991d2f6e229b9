// The token endpoint (RFC 6749 §4.1.3 and §6, OAuth 2.1), revocation (RFC 7009) and how an
// access token is recognised on a call. Access tokens `svc_oat_…` live an hour, refresh
// tokens `svc_ort_…` 30 days and are used once: each refresh returns a new pair, and a used
// refresh token presented again (stolen, or replayed) ends the whole grant. Only SHA-256
// hashes are stored. On a call the token acts as the grant: the Principal's token row has the
// grant's id, org, scopes and projects, so access.ts re-checks the scopes against the role on
// every call exactly as for a personal access token, and rate limits and region-token
// revocations follow the grant across refreshes.
import { and, eq, gt, isNull } from "drizzle-orm";
import { createHash } from "node:crypto";
import { dayMs, hourMs, minuteMs, nowIso } from "../../clock.ts";
import { randomBase62, sha256Hex } from "../../crypto.ts";
import { unauthorized } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { oauthClients, oauthGrants, oauthTokens, users } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { roleIn, type Principal, type TokenRow } from "../access.ts";
import { scopesOfRole, sortScopes } from "../auth/scopes.ts";
import { recordRevocation } from "../services/token-revocations.ts";
import { findClient, parseScopeText, type ClientRow } from "./clients.ts";
import { revokeGrant, type GrantRow } from "./grants.ts";
import { OAuthError, oauthJson } from "./oauth-errors.ts";

export const oatPrefix = "svc_oat_";
export const ortPrefix = "svc_ort_";
export const accessTokenLifeMs = hourMs;
export const refreshTokenLifeMs = 30 * dayMs;
/**
 * No token of a grant outlives this, however often it is refreshed (each rotation would
 * otherwise renew it for ever); as long as the longest personal access token may live.
 */
export const grantLifeMs = 365 * dayMs;
const secretLength = 40;
const displayPrefixLength = oatPrefix.length + 6;
const lastUsedResolutionMs = minuteMs;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const codeVerifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;

type TokenKind = "access" | "refresh";

const invalidGrant = (description: string) => new OAuthError("invalid_grant", description);

function required(form: URLSearchParams, name: string): string {
  const values = form.getAll(name);
  if (values.length > 1) throw new OAuthError("invalid_request", `${name} appears more than once`);
  if (!values[0]) throw new OAuthError("invalid_request", `${name} is required`);
  return values[0];
}

function requireClient(ctx: ControlContext, form: URLSearchParams): ClientRow {
  const client = findClient(ctx, required(form, "client_id"));
  if (!client) throw new OAuthError("invalid_client", "unknown client", 401);
  return client;
}

/** The scopes a new access token carries: the grant's, as far as the person's role holds them now. */
function currentScopes(ctx: ControlContext, grant: GrantRow): string[] {
  const role = roleIn(ctx, grant.orgId, grant.userId);
  if (!role) throw invalidGrant("the person who granted access is no longer a member of the organisation");
  const held = scopesOfRole(role);
  return sortScopes(grant.scopes.filter((scope) => held.has(scope)));
}

function newToken(grant: GrantRow, kind: TokenKind, now: number) {
  const secret = (kind === "access" ? oatPrefix : ortPrefix) + randomBase62(secretLength);
  const lifeMs = kind === "access" ? accessTokenLifeMs : refreshTokenLifeMs;
  const row: typeof oauthTokens.$inferSelect = {
    id: newId(),
    grantId: grant.id,
    kind,
    secretHash: sha256Hex(secret),
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(Math.min(now + lifeMs, Date.parse(grant.createdAt) + grantLifeMs)).toISOString(),
    usedAt: null,
    revokedAt: null,
  };
  return { secret, row };
}

/** Issues an access token (and a refresh token when the client registered that grant type), inside `settle`'s transaction. */
function issueTokens(ctx: ControlContext, client: ClientRow, grant: GrantRow, settle: () => void): Response {
  const scopes = currentScopes(ctx, grant);
  const now = Date.now();
  const access = newToken(grant, "access", now);
  const refresh = client.grantTypes.includes("refresh_token") ? newToken(grant, "refresh", now) : null;
  ctx.db.transaction(() => {
    settle();
    ctx.db.insert(oauthTokens).values(refresh ? [access.row, refresh.row] : [access.row]).run();
  });
  return oauthJson(200, {
    access_token: access.secret,
    token_type: "Bearer",
    expires_in: Math.floor((Date.parse(access.row.expiresAt) - now) / 1000),
    ...(refresh ? { refresh_token: refresh.secret } : {}),
    scope: scopes.join(" "),
  });
}

function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** Optional `resource` at the token endpoint (RFC 8707 §2.2) may only repeat what the grant names. */
function checkResources(form: URLSearchParams, grant: GrantRow): void {
  const unknown = form.getAll("resource").filter((resource) => !grant.resources.includes(resource));
  if (unknown.length) throw new OAuthError("invalid_target", `the authorization was not for: ${unknown.join(", ")}`);
}

function exchangeCode(ctx: ControlContext, form: URLSearchParams): Response {
  const client = requireClient(ctx, form);
  const code = required(form, "code");
  const redirectUri = required(form, "redirect_uri");
  const verifier = required(form, "code_verifier");
  if (!codeVerifierPattern.test(verifier)) throw new OAuthError("invalid_request", "code_verifier must be 43 to 128 unreserved characters");
  const grant = ctx.db.select().from(oauthGrants).where(eq(oauthGrants.codeHash, sha256Hex(code))).get();
  if (!grant || grant.clientId !== client.id) throw invalidGrant("unknown authorization code");
  if (grant.codeUsedAt) {
    // OAuth 2.1 §4.1.3: a code used twice was stolen or replayed; what it bought is withdrawn.
    revokeGrant(ctx, { kind: "anonymous" }, grant, "code_reused");
    throw invalidGrant("the authorization code was already used; the tokens issued with it are revoked");
  }
  if (grant.revokedAt) throw invalidGrant("the authorization was revoked");
  if (Date.parse(grant.codeExpiresAt) <= Date.now()) throw invalidGrant("the authorization code has expired");
  if (redirectUri !== grant.redirectUri) throw invalidGrant("redirect_uri differs from the authorization request's");
  if (s256(verifier) !== grant.codeChallenge) throw invalidGrant("code_verifier does not match the code_challenge");
  checkResources(form, grant);
  return issueTokens(ctx, client, grant, () => {
    const used = ctx.db.update(oauthGrants).set({ codeUsedAt: nowIso() })
      .where(and(eq(oauthGrants.id, grant.id), isNull(oauthGrants.codeUsedAt))).returning({ id: oauthGrants.id }).all();
    if (used.length !== 1) throw invalidGrant("the authorization code was already used");
  });
}

function refresh(ctx: ControlContext, form: URLSearchParams): Response {
  const client = requireClient(ctx, form);
  const secret = required(form, "refresh_token");
  const token = ctx.db.select().from(oauthTokens)
    .where(and(eq(oauthTokens.secretHash, sha256Hex(secret)), eq(oauthTokens.kind, "refresh"))).get();
  const grant = token ? ctx.db.select().from(oauthGrants).where(eq(oauthGrants.id, token.grantId)).get() : undefined;
  if (!token || !grant || grant.clientId !== client.id) throw invalidGrant("unknown refresh token");
  if (grant.revokedAt || token.revokedAt) throw invalidGrant("the refresh token was revoked");
  if (token.usedAt) {
    revokeGrant(ctx, { kind: "anonymous" }, grant, "refresh_token_reused");
    throw invalidGrant("the refresh token was already used; every token of this authorization is revoked");
  }
  if (Date.parse(token.expiresAt) <= Date.now()) throw invalidGrant("the refresh token has expired");
  const scopeText = form.get("scope");
  if (scopeText !== null) {
    const asked = parseScopeText(scopeText);
    if (asked.length !== grant.scopes.length || asked.some((scope) => !grant.scopes.includes(scope))) {
      throw new OAuthError("invalid_scope", "a refresh keeps the authorization's scopes; authorize again for others");
    }
  }
  checkResources(form, grant);
  return issueTokens(ctx, client, grant, () => {
    const used = ctx.db.update(oauthTokens).set({ usedAt: nowIso() })
      .where(and(eq(oauthTokens.id, token.id), isNull(oauthTokens.usedAt))).returning({ id: oauthTokens.id }).all();
    if (used.length !== 1) throw invalidGrant("the refresh token was already used");
  });
}

/** POST /oauth/token (application/x-www-form-urlencoded). */
export function tokenEndpoint(ctx: ControlContext, form: URLSearchParams): Response {
  const grantType = required(form, "grant_type");
  if (grantType === "authorization_code") return exchangeCode(ctx, form);
  if (grantType === "refresh_token") return refresh(ctx, form);
  throw new OAuthError("unsupported_grant_type", `grant_type not supported: ${grantType} (supported: authorization_code, refresh_token)`);
}

/**
 * POST /oauth/revoke (RFC 7009). A refresh token ends its whole grant (§2.1); an access token
 * ends itself, and the region tokens issued under its grant so far. An unknown token, or one
 * of another client, is answered 200 like a revoked one (§2.2): nothing is learned by probing.
 */
export function revocationEndpoint(ctx: ControlContext, form: URLSearchParams): Response {
  const client = requireClient(ctx, form);
  const secret = required(form, "token");
  const token = ctx.db.select().from(oauthTokens).where(eq(oauthTokens.secretHash, sha256Hex(secret))).get();
  const grant = token ? ctx.db.select().from(oauthGrants).where(eq(oauthGrants.id, token.grantId)).get() : undefined;
  if (token && grant && grant.clientId === client.id && !grant.revokedAt) {
    if (token.kind === "refresh") revokeGrant(ctx, { kind: "anonymous" }, grant, "revoked_by_client");
    else if (!token.revokedAt) {
      ctx.db.transaction(() => {
        ctx.db.update(oauthTokens).set({ revokedAt: nowIso() }).where(eq(oauthTokens.id, token.id)).run();
        recordRevocation(ctx, ctx.regions.keys(), { accessTokenId: grant.id }, "access_token_revoked", null);
      });
    }
  }
  return new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } });
}

export interface OAuthBearer {
  principal: Principal & { kind: "token" };
  /** The resources (RFC 8707) the token was issued for: {base}/v1, {base}/mcp. */
  resources: string[];
}

/** Resolves a `svc_oat_…` secret to the principal it acts as, or throws 401. */
export function authenticateOAuthAccessToken(ctx: ControlContext, secret: string): OAuthBearer {
  const now = nowIso();
  const row = ctx.db
    .select()
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .where(
      and(
        eq(oauthTokens.secretHash, sha256Hex(secret)),
        eq(oauthTokens.kind, "access"),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, now),
        isNull(oauthGrants.revokedAt),
      ),
    )
    .get();
  if (!row) throw unauthorized("token is invalid, expired or revoked");
  const grant = row.oauth_grants;
  if (!roleIn(ctx, grant.orgId, grant.userId)) throw unauthorized("token owner is no longer a member of its organisation");
  if (!grant.lastUsedAt || Date.parse(now) - Date.parse(grant.lastUsedAt) >= lastUsedResolutionMs) {
    ctx.db.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, grant.id)).run();
    grant.lastUsedAt = now;
  }
  const token: TokenRow = {
    id: grant.id,
    userId: grant.userId,
    orgId: grant.orgId,
    name: row.oauth_clients.name,
    secretHash: row.oauth_tokens.secretHash,
    prefix: secret.slice(0, displayPrefixLength),
    scopes: grant.scopes,
    projectIds: grant.projectIds,
    createdAt: grant.createdAt,
    expiresAt: row.oauth_tokens.expiresAt,
    lastUsedAt: grant.lastUsedAt,
    revokedAt: null,
  };
  return { principal: { kind: "token", user: row.users, token }, resources: grant.resources };
}
