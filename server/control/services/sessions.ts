// Console sessions: the cookie holds a random secret, the database only its SHA-256.
import { and, desc, eq, gt, isNull, ne } from "drizzle-orm";
import geoip from "geoip-lite";
import { dayMs, isoIn, minuteMs, nowIso } from "../../clock.ts";
import { randomBase62, sha256Hex } from "../../crypto.ts";
import type { ControlContext } from "../context.ts";
import { sessions, users } from "../db/schema.ts";
import { newId } from "../ids.ts";
import type { UserRow } from "../access.ts";
import { applyWrite } from "./audited-write.ts";

export const sessionCookieName = "svc_session";
const sessionSecretLength = 43;
/** last_seen_at is refreshed at most this often, so reads do not turn into writes. */
const lastSeenResolutionMs = minuteMs;
const userAgentLengthMax = 512;

export interface ClientMeta {
  ip: string | null;
  userAgent: string | null;
}

export type SessionRow = typeof sessions.$inferSelect;

/** Coarse location: "City, CC" or "CC"; the IP itself is never stored. */
export function coarseLocation(ip: string | null): string | null {
  if (!ip) return null;
  const found = geoip.lookup(ip);
  if (!found || !found.country) return null;
  return found.city ? `${found.city}, ${found.country}` : found.country;
}

export function createSession(ctx: ControlContext, userId: string, meta: ClientMeta): { secret: string; session: SessionRow } {
  const secret = randomBase62(sessionSecretLength);
  const now = nowIso();
  const session: SessionRow = {
    id: newId(),
    userId,
    tokenHash: sha256Hex(secret),
    createdAt: now,
    expiresAt: isoIn(ctx.config.sessionTtlDays * dayMs),
    lastSeenAt: now,
    revokedAt: null,
    location: coarseLocation(meta.ip),
    userAgent: meta.userAgent?.slice(0, userAgentLengthMax) ?? null,
  };
  ctx.db.insert(sessions).values(session).run();
  return { secret, session };
}

/** The live session and its user for a cookie value, or null. */
export function findSession(ctx: ControlContext, secret: string): { session: SessionRow; user: UserRow } | null {
  const now = nowIso();
  const row = ctx.db
    .select()
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256Hex(secret)), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .get();
  if (!row) return null;
  if (Date.parse(now) - Date.parse(row.sessions.lastSeenAt) >= lastSeenResolutionMs) {
    ctx.db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.sessions.id)).run();
    row.sessions.lastSeenAt = now;
  }
  return { session: row.sessions, user: row.users };
}

export function liveSessions(ctx: ControlContext, userId: string): SessionRow[] {
  return ctx.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, nowIso())))
    .orderBy(desc(sessions.createdAt))
    .all();
}

/** Revokes the user's live sessions, except `keepSessionId`; returns how many. */
export function revokeSessions(ctx: ControlContext, userId: string, keepSessionId: string | null): number {
  const conditions = [eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, nowIso())];
  if (keepSessionId) conditions.push(ne(sessions.id, keepSessionId));
  return ctx.db.update(sessions).set({ revokedAt: nowIso() }).where(and(...conditions)).returning({ id: sessions.id }).all().length;
}

export function revokeSession(ctx: ControlContext, sessionId: string): void {
  ctx.db.update(sessions).set({ revokedAt: nowIso() }).where(eq(sessions.id, sessionId)).run();
}

export const sessionDto = (session: SessionRow, currentSessionId: string) => ({
  id: session.id,
  current: session.id === currentSessionId,
  created_at: session.createdAt,
  expires_at: session.expiresAt,
  last_seen_at: session.lastSeenAt,
  location: session.location,
  user_agent: session.userAgent,
});

/** Audited session revocation: one session (logout, delete) or every other one. */
export function auditedRevoke(
  ctx: ControlContext,
  principal: { kind: "session"; user: UserRow; sessionId: string },
  target: { sessionId: string } | "others",
): number {
  const others = target === "others";
  return applyWrite(ctx, principal, {
    action: others ? "session.revoke_others" : "session.revoke",
    targetType: "session",
    targetId: others ? null : target.sessionId,
    orgId: null,
    before: null,
    after: null,
    apply: () => {
      if (others) return revokeSessions(ctx, principal.user.id, principal.sessionId);
      revokeSession(ctx, target.sessionId);
      return 1;
    },
  });
}
