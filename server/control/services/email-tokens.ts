// Single-use tokens delivered by mail. Only the hash is stored; using one marks it used in
// the same statement that checks it, so a token cannot be redeemed twice.
import { and, eq, gt, isNull } from "drizzle-orm";
import { isoIn, nowIso } from "../../clock.ts";
import { randomBase62, sha256Hex } from "../../crypto.ts";
import type { ControlContext } from "../context.ts";
import { emailTokens } from "../db/schema.ts";
import { newId } from "../ids.ts";

export type EmailTokenKind = "password_reset" | "verify_email" | "invitation";
export type EmailTokenRow = typeof emailTokens.$inferSelect;

const emailTokenLength = 43;

/** The secret goes in the emailed link; the id names the email (never the secret) wherever it is logged or sent. */
export function issueEmailToken(
  ctx: ControlContext,
  kind: EmailTokenKind,
  ttlMs: number,
  owner: { userId?: string; invitationId?: string },
): { id: string; secret: string } {
  const id = newId();
  const secret = randomBase62(emailTokenLength);
  ctx.db
    .insert(emailTokens)
    .values({
      id,
      kind,
      userId: owner.userId ?? null,
      invitationId: owner.invitationId ?? null,
      tokenHash: sha256Hex(secret),
      createdAt: nowIso(),
      expiresAt: isoIn(ttlMs),
      usedAt: null,
    })
    .run();
  return { id, secret };
}

/** Marks the token used and returns it, or null if unknown, expired, used or of another kind. */
export function redeemEmailToken(ctx: ControlContext, kind: EmailTokenKind, secret: string): EmailTokenRow | null {
  const now = nowIso();
  const [row] = ctx.db
    .update(emailTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(emailTokens.tokenHash, sha256Hex(secret)),
        eq(emailTokens.kind, kind),
        isNull(emailTokens.usedAt),
        gt(emailTokens.expiresAt, now),
      ),
    )
    .returning()
    .all();
  return row ?? null;
}
