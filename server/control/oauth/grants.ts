// Grants as the person sees them (ConnectionDto: an application they connected) and their
// revocation, which ends every token cut from the grant and the region tokens issued with them.
import { and, desc, eq, isNotNull, isNull } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { notFound } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { oauthClients, oauthGrants, oauthTokens } from "../db/schema.ts";
import { requireUuid } from "../ids.ts";
import { applyWrite, type Actor } from "../services/audited-write.ts";
import { recordRevocation } from "../services/token-revocations.ts";
import type { SessionPrincipal } from "../routes/session-auth.ts";

export type GrantRow = typeof oauthGrants.$inferSelect;

/** Why a grant ended, as the audit log records it. */
export type GrantRevocationReason = "revoked_by_user" | "revoked_by_client" | "code_reused" | "refresh_token_reused";

const connectionDto = (grant: GrantRow, clientName: string) => ({
  id: grant.id,
  client_id: grant.clientId,
  client_name: clientName,
  org_id: grant.orgId,
  scopes: grant.scopes,
  created_at: grant.createdAt,
  last_used_at: grant.lastUsedAt,
});

/** Connected applications: grants whose code was exchanged and that are not revoked. */
export function listConnections(ctx: ControlContext, userId: string) {
  const rows = ctx.db
    .select()
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(and(eq(oauthGrants.userId, userId), isNotNull(oauthGrants.codeUsedAt), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt))
    .all();
  return { connections: rows.map((row) => connectionDto(row.oauth_grants, row.oauth_clients.name)) };
}

/** Ends the tokens cut from a grant that has just ended, and the region tokens issued with them. */
function endTokensOf(ctx: ControlContext, grantId: string, revokedAt: string): void {
  ctx.db.update(oauthTokens).set({ revokedAt }).where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt))).run();
  // Region tokens carry the grant's id as their access_token_id (see tokens.ts).
  recordRevocation(ctx, ctx.regions.keys(), { accessTokenId: grantId }, "access_token_revoked", null);
}

/** Ends a grant and every token cut from it, audited; call pushRevocations afterwards. */
export function revokeGrant(ctx: ControlContext, actor: Actor, grant: GrantRow, reason: GrantRevocationReason): void {
  if (grant.revokedAt) return;
  const revokedAt = nowIso();
  applyWrite(ctx, actor, {
    action: "oauth.grant.revoke",
    targetType: "oauth_grant",
    targetId: grant.id,
    orgId: grant.orgId,
    before: { id: grant.id, client_id: grant.clientId, revoked_at: null },
    after: { id: grant.id, client_id: grant.clientId, revoked_at: revokedAt, reason },
    apply: () => {
      ctx.db.update(oauthGrants).set({ revokedAt }).where(eq(oauthGrants.id, grant.id)).run();
      endTokensOf(ctx, grant.id, revokedAt);
    },
  });
}

/**
 * Ends every live grant of a person (in one organisation, or all of them) and the tokens cut
 * from them, inside the caller's audited write: a password reset or change (whoever approved
 * an application with a stolen session loses it with the session) and leaving an organisation
 * (re-joining later does not bring old grants back). Call pushRevocations afterwards.
 */
export function endGrantsOfUser(ctx: ControlContext, userId: string, orgId: string | null): number {
  const revokedAt = nowIso();
  const ended = ctx.db
    .update(oauthGrants)
    .set({ revokedAt })
    .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt), orgId === null ? undefined : eq(oauthGrants.orgId, orgId)))
    .returning({ id: oauthGrants.id })
    .all();
  for (const { id } of ended) endTokensOf(ctx, id, revokedAt);
  return ended.length;
}

/** DELETE /app/oauth/connections/{grant_id}: the person's own live grants only; anything else is 404. */
export function disconnect(ctx: ControlContext, principal: SessionPrincipal, grantId: string): void {
  const id = requireUuid(grantId, "connection");
  const grant = ctx.db
    .select()
    .from(oauthGrants)
    .where(and(eq(oauthGrants.id, id), eq(oauthGrants.userId, principal.user.id), isNotNull(oauthGrants.codeUsedAt), isNull(oauthGrants.revokedAt)))
    .get();
  if (!grant) throw notFound("connection");
  revokeGrant(ctx, principal, grant, "revoked_by_user");
}
