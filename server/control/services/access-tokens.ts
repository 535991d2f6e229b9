// Personal access tokens (`svc_pat_...`): created in the console only (tokens cannot
// create tokens), secret shown once, SHA-256 stored, scopes re-checked against the
// owner's current role on every call (see access.ts).
import { and, desc, eq, gt, inArray, isNull, or } from "drizzle-orm";
import { dayMs, minuteMs, nowIso } from "../../clock.ts";
import { randomBase62, sha256Hex } from "../../crypto.ts";
import { notFound, scopeNotHeld, unauthorized, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { accessTokens, projects, users } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { tokenDto } from "../dto.ts";
import { orgAccess, roleIn, type OrgAccess, type Principal, type TokenRow } from "../access.ts";
import { isKnownScope, scopesOfRole, sortScopes } from "../auth/scopes.ts";
import { applyWrite } from "./audited-write.ts";
import { recordRevocation } from "./token-revocations.ts";
import { authenticateOAuthAccessToken, oatPrefix } from "../oauth/tokens.ts";
import { v1Resource } from "../oauth/resources.ts";

export const patPrefix = "svc_pat_";
const patSecretLength = 40;
const patDisplayPrefixLength = patPrefix.length + 6;
export const tokenProjectIdsMax = 100;
export const tokenExpiryDaysMin = 1;
export const tokenExpiryDaysMax = 365;
const lastUsedResolutionMs = minuteMs;

export interface CreateTokenInput {
  name: string;
  org_id: string;
  scopes: string[];
  project_ids?: string[] | null;
  expires_in_days?: number | null;
}

export interface TokenReachInput {
  org_id: string;
  scopes: string[];
  project_ids?: string[] | null;
}

export interface TokenReach {
  access: OrgAccess;
  scopes: string[];
  projectIds: string[] | null;
}

/**
 * What a token may be granted, checked as a person grants it (a personal access token, or an
 * OAuth client on the consent page): an organisation they belong to, known scopes their role
 * there holds (no wildcard), and optionally up to 100 of its live projects.
 */
export function checkTokenReach(ctx: ControlContext, principal: Principal & { kind: "session" }, input: TokenReachInput): TokenReach {
  const access = orgAccess(ctx, principal, input.org_id);
  if (input.scopes.length === 0) throw validation("scopes must list at least one scope");
  const wildcard = input.scopes.find((scope) => scope.includes("*"));
  if (wildcard) throw validation(`wildcard scopes are not allowed: "${wildcard}"`);
  const unknown = input.scopes.filter((scope) => !isKnownScope(scope));
  if (unknown.length) throw validation(`unknown scopes: ${unknown.join(", ")}`);
  const held = scopesOfRole(access.role);
  const notHeld = input.scopes.filter((scope) => !held.has(scope));
  if (notHeld.length) throw scopeNotHeld(notHeld);
  let projectIds: string[] | null = null;
  if (input.project_ids != null) {
    if (input.project_ids.length === 0) throw validation("project_ids must not be empty; omit it for every project");
    if (input.project_ids.length > tokenProjectIdsMax) throw validation(`project_ids may list at most ${tokenProjectIdsMax} projects`);
    projectIds = [...new Set(input.project_ids.map((id) => requireUuid(id, "project")))];
    const found = ctx.db
      .select({ id: projects.id })
      .from(projects)
      .where(and(inArray(projects.id, projectIds), eq(projects.orgId, access.org.id), isNull(projects.deletedAt)))
      .all();
    if (found.length !== projectIds.length) throw notFound("project");
  }
  return { access, scopes: sortScopes(new Set(input.scopes)), projectIds };
}

export function createAccessToken(ctx: ControlContext, principal: Principal & { kind: "session" }, input: CreateTokenInput) {
  const name = input.name.trim();
  if (!name) throw validation("name must not be empty");
  const { access, scopes, projectIds } = checkTokenReach(ctx, principal, input);
  const days = input.expires_in_days;
  if (days != null && (!Number.isInteger(days) || days < tokenExpiryDaysMin || days > tokenExpiryDaysMax)) {
    throw validation(`expires_in_days must be an integer from ${tokenExpiryDaysMin} to ${tokenExpiryDaysMax}`);
  }
  const secret = patPrefix + randomBase62(patSecretLength);
  const createdMs = Date.now();
  const token: TokenRow = {
    id: newId(),
    userId: principal.user.id,
    orgId: access.org.id,
    name,
    secretHash: sha256Hex(secret),
    prefix: secret.slice(0, patDisplayPrefixLength),
    scopes,
    projectIds,
    createdAt: new Date(createdMs).toISOString(),
    expiresAt: days != null ? new Date(createdMs + days * dayMs).toISOString() : null,
    lastUsedAt: null,
    revokedAt: null,
  };
  applyWrite(ctx, principal, {
    action: "token.create",
    targetType: "token",
    targetId: token.id,
    orgId: access.org.id,
    before: null,
    after: tokenDto(token),
    apply: () => ctx.db.insert(accessTokens).values(token).run(),
  });
  return { secret, token: tokenDto(token) };
}

export function listAccessTokens(ctx: ControlContext, userId: string) {
  const rows = ctx.db
    .select()
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt)))
    .orderBy(desc(accessTokens.createdAt))
    .all();
  return { tokens: rows.map(tokenDto) };
}

export function revokeAccessToken(ctx: ControlContext, principal: Principal & { kind: "session" }, tokenId: string): void {
  const id = requireUuid(tokenId, "token");
  const token = ctx.db
    .select()
    .from(accessTokens)
    .where(and(eq(accessTokens.id, id), eq(accessTokens.userId, principal.user.id), isNull(accessTokens.revokedAt)))
    .get();
  if (!token) throw notFound("token");
  applyWrite(ctx, principal, {
    action: "token.revoke",
    targetType: "token",
    targetId: token.id,
    orgId: token.orgId,
    before: tokenDto(token),
    after: { ...tokenDto(token), revoked_at: nowIso() },
    apply: () => {
      ctx.db.update(accessTokens).set({ revokedAt: nowIso() }).where(eq(accessTokens.id, token.id)).run();
      recordRevocation(ctx, ctx.regions.keys(), { accessTokenId: token.id }, "access_token_revoked", null);
    },
  });
}

export interface BearerIdentity {
  principal: Principal & { kind: "token" };
  /** The resources an OAuth access token was issued for (RFC 8707); null for a personal access token, which is good on every one. */
  resources: string[] | null;
}

/** Resolves `Authorization: Bearer svc_pat_…` or `svc_oat_…` to the principal it acts as, or throws 401. */
export function identifyBearer(ctx: ControlContext, authorization: string | null): BearerIdentity {
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  if (!match) throw unauthorized("bearer token required");
  const secret = match[1]!;
  if (secret.startsWith(oatPrefix)) return authenticateOAuthAccessToken(ctx, secret);
  if (!secret.startsWith(patPrefix)) throw unauthorized("unknown token");
  return { principal: authenticatePat(ctx, secret), resources: null };
}

/**
 * The principal of a bearer token presented to `resource` (default: the /v1 API), or 401. Every
 * OAuth access token is good on /v1, the authorization server's own API (spec 1: a token from
 * the MCP/OAuth flow "also works on /v1"); any other resource server, such as /mcp, accepts only
 * tokens issued for it (RFC 8707), so a token issued for /v1 alone is not good there. A personal
 * access token is good on every resource. The MCP server calls it with mcpResource(ctx).
 */
export function authenticateBearer(ctx: ControlContext, authorization: string | null, resource = v1Resource(ctx)): Principal & { kind: "token" } {
  const { principal, resources } = identifyBearer(ctx, authorization);
  if (resources !== null && resource !== v1Resource(ctx) && !resources.includes(resource)) throw unauthorized(`token was not issued for ${resource}`);
  return principal;
}

function authenticatePat(ctx: ControlContext, secret: string): Principal & { kind: "token" } {
  const now = nowIso();
  const row = ctx.db
    .select()
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .where(
      and(
        eq(accessTokens.secretHash, sha256Hex(secret)),
        isNull(accessTokens.revokedAt),
        or(isNull(accessTokens.expiresAt), gt(accessTokens.expiresAt, now)),
      ),
    )
    .get();
  if (!row) throw unauthorized("token is invalid, expired or revoked");
  if (!roleIn(ctx, row.access_tokens.orgId, row.users.id)) throw unauthorized("token owner is no longer a member of its organisation");
  const token = row.access_tokens;
  if (!token.lastUsedAt || Date.parse(now) - Date.parse(token.lastUsedAt) >= lastUsedResolutionMs) {
    ctx.db.update(accessTokens).set({ lastUsedAt: now }).where(eq(accessTokens.id, token.id)).run();
    token.lastUsedAt = now;
  }
  return { kind: "token", user: row.users, token };
}
