// Sign-up, login, passwords and email verification.
import { eq } from "drizzle-orm";
import { dayMs, hourMs, nowIso } from "../../clock.ts";
import { ApiError, invalidCredentials, notFound, rateLimited, validation, conflict } from "../../http/errors.ts";
import type { SlidingWindowLimiter } from "../../http/sliding-window.ts";
import type { ControlContext } from "../context.ts";
import { users } from "../db/schema.ts";
import { newId } from "../ids.ts";
import type { UserRow } from "../access.ts";
import { checkPasswordPolicy, hashPassword, verifyPassword } from "../auth/passwords.ts";
import { applyWrite } from "./audited-write.ts";
import { issueEmailToken, redeemEmailToken } from "./email-tokens.ts";
import { insertOrg } from "./orgs.ts";
import { coarseLocation, createSession, revokeSessions, type ClientMeta } from "./sessions.ts";
import { endGrantsOfUser } from "../oauth/grants.ts";
import { emailLengthMax } from "../schemas.ts";
import { passwordResetMail, verifyEmailMail } from "../mail/messages.ts";

export const passwordResetTtlMs = hourMs;
export const verifyEmailTtlMs = dayMs;

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > emailLengthMax || !emailPattern.test(email)) throw validation("email is not a valid address");
  return email;
}

function enforce(limiter: SlidingWindowLimiter, key: string | null, message: string): void {
  if (key === null) return;
  const verdict = limiter.check(key);
  if (!verdict.allowed) throw rateLimited(verdict.retryAfterSeconds, message);
}

function userByEmail(ctx: ControlContext, email: string): UserRow | undefined {
  return ctx.db.select().from(users).where(eq(users.email, email)).get();
}

function sendVerification(ctx: ControlContext, user: UserRow): void {
  const { id, secret } = issueEmailToken(ctx, "verify_email", verifyEmailTtlMs, { userId: user.id });
  ctx.mail.send(verifyEmailMail(user, { id, secret, link: `${ctx.baseUrl()}/verify-email?token=${secret}`, ttlMs: verifyEmailTtlMs }));
}

export async function signup(ctx: ControlContext, input: { email: string; name: string; password: string }, meta: ClientMeta) {
  enforce(ctx.limiters.signupsByIp, meta.ip, "too many sign-ups from this address");
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  if (!name) throw validation("name must not be empty");
  checkPasswordPolicy(input.password);
  if (userByEmail(ctx, email)) throw conflict("an account with this email already exists");
  const passwordHash = await hashPassword(input.password);
  if (meta.ip) ctx.limiters.signupsByIp.record(meta.ip);
  const user: UserRow = { id: newId(), email, name, passwordHash, emailVerifiedAt: null, createdAt: nowIso() };
  const session = applyWrite(ctx, { kind: "anonymous" }, {
    action: "user.signup",
    targetType: "user",
    targetId: user.id,
    orgId: null,
    before: null,
    after: { id: user.id, email, name },
    apply: () => {
      ctx.db.insert(users).values(user).run();
      insertOrg(ctx, `${name}'s organisation`, user.id);
      return createSession(ctx, user.id, meta);
    },
  });
  sendVerification(ctx, user);
  return { user, ...session };
}

export async function login(ctx: ControlContext, input: { email: string; password: string }, meta: ClientMeta) {
  const email = input.email.trim().toLowerCase();
  enforce(ctx.limiters.loginByAccount, email, "too many failed logins for this account");
  enforce(ctx.limiters.loginByIp, meta.ip, "too many failed logins from this address");
  const user = userByEmail(ctx, email);
  const valid = user ? await verifyPassword(input.password, user.passwordHash) : false;
  if (!user || !valid) {
    ctx.limiters.loginByAccount.record(email);
    if (meta.ip) ctx.limiters.loginByIp.record(meta.ip);
    throw invalidCredentials();
  }
  ctx.limiters.loginByAccount.clear(email);
  const session = applyWrite(ctx, { kind: "session", user, sessionId: "" }, {
    action: "session.create",
    targetType: "user",
    targetId: user.id,
    orgId: null,
    before: null,
    after: { location: coarseLocation(meta.ip), user_agent: meta.userAgent },
    apply: () => createSession(ctx, user.id, meta),
  });
  return { user, ...session };
}

export async function changePassword(
  ctx: ControlContext,
  user: UserRow,
  sessionId: string,
  input: { current_password: string; new_password: string },
  meta: ClientMeta,
): Promise<void> {
  enforce(ctx.limiters.loginByAccount, user.email, "too many failed password checks for this account");
  if (!(await verifyPassword(input.current_password, user.passwordHash))) {
    ctx.limiters.loginByAccount.record(user.email);
    if (meta.ip) ctx.limiters.loginByIp.record(meta.ip);
    throw invalidCredentials("current password is incorrect");
  }
  checkPasswordPolicy(input.new_password, "new_password");
  const passwordHash = await hashPassword(input.new_password);
  applyWrite(ctx, { kind: "session", user, sessionId }, {
    action: "user.password_change",
    targetType: "user",
    targetId: user.id,
    orgId: null,
    before: null,
    after: null,
    apply: () => {
      ctx.db.update(users).set({ passwordHash }).where(eq(users.id, user.id)).run();
      endGrantsOfUser(ctx, user.id, null);
      return revokeSessions(ctx, user.id, sessionId);
    },
  });
}

/** Always the same answer whether or not the address has an account. */
export function requestPasswordReset(ctx: ControlContext, rawEmail: string, meta: ClientMeta): void {
  const email = normalizeEmail(rawEmail);
  enforce(ctx.limiters.mailByAddress, `reset:${email}`, "too many reset requests for this address");
  enforce(ctx.limiters.mailByIp, meta.ip, "too many reset requests from this address");
  ctx.limiters.mailByAddress.record(`reset:${email}`);
  if (meta.ip) ctx.limiters.mailByIp.record(meta.ip);
  const user = userByEmail(ctx, email);
  if (!user) return;
  const { id, secret } = issueEmailToken(ctx, "password_reset", passwordResetTtlMs, { userId: user.id });
  ctx.mail.send(passwordResetMail(user, { id, secret, link: `${ctx.baseUrl()}/reset-password?token=${secret}`, ttlMs: passwordResetTtlMs }));
}

function redeemOrCount(ctx: ControlContext, kind: "password_reset" | "verify_email", token: string, meta: ClientMeta, onInvalid: ApiError) {
  enforce(ctx.limiters.redeemFailuresByIp, meta.ip, "too many invalid tokens from this address");
  const row = redeemEmailToken(ctx, kind, token);
  if (!row) {
    if (meta.ip) ctx.limiters.redeemFailuresByIp.record(meta.ip);
    throw onInvalid;
  }
  return row;
}

export async function confirmPasswordReset(ctx: ControlContext, input: { token: string; new_password: string }, meta: ClientMeta) {
  checkPasswordPolicy(input.new_password, "new_password");
  const passwordHash = await hashPassword(input.new_password);
  const row = redeemOrCount(ctx, "password_reset", input.token, meta, validation("reset token is invalid, expired or already used"));
  applyWrite(ctx, { kind: "anonymous" }, {
    action: "user.password_reset",
    targetType: "user",
    targetId: row.userId,
    orgId: null,
    before: null,
    after: null,
    apply: () => {
      ctx.db.update(users).set({ passwordHash }).where(eq(users.id, row.userId!)).run();
      endGrantsOfUser(ctx, row.userId!, null);
      return revokeSessions(ctx, row.userId!, null);
    },
  });
}

export function resendVerification(ctx: ControlContext, user: UserRow, meta: ClientMeta): void {
  if (user.emailVerifiedAt) return;
  enforce(ctx.limiters.mailByAddress, `verify:${user.id}`, "too many verification emails requested");
  enforce(ctx.limiters.mailByIp, meta.ip, "too many verification emails requested from this address");
  ctx.limiters.mailByAddress.record(`verify:${user.id}`);
  if (meta.ip) ctx.limiters.mailByIp.record(meta.ip);
  sendVerification(ctx, user);
}

export function confirmEmail(ctx: ControlContext, token: string, meta: ClientMeta): void {
  const row = redeemOrCount(ctx, "verify_email", token, meta, notFound("verification token"));
  applyWrite(ctx, { kind: "anonymous" }, {
    action: "user.verify_email",
    targetType: "user",
    targetId: row.userId,
    orgId: null,
    before: null,
    after: null,
    apply: () => ctx.db.update(users).set({ emailVerifiedAt: nowIso() }).where(eq(users.id, row.userId!)).run(),
  });
}
