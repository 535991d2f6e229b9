import { RouteTable, type AnyElysia, type RouteContext as Ctx } from "../../http/route-table.ts";
// /app/auth/* and /app/me: accounts and sessions.
import { t } from "elysia";
import { jsonResponse, notFound } from "../../http/errors.ts";
import { requestMeta } from "../../http/client-meta.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { userDto } from "../dto.ts";
import type { UserRow } from "../access.ts";
import { requireUuid } from "../ids.ts";
import { listOrgs } from "../services/orgs.ts";
import {
  changePassword, confirmEmail, confirmPasswordReset, login, requestPasswordReset, resendVerification, signup,
} from "../services/accounts.ts";
import { auditedRevoke, liveSessions, sessionDto } from "../services/sessions.ts";
import { acceptInvitation } from "../services/members.ts";
import { Name, emailLengthMax } from "../schemas.ts";
import { passwordLengthMax } from "../auth/passwords.ts";
import { clearedSessionCookie, requireSession, sessionCookie } from "./session-auth.ts";

const Email = t.String({ minLength: 1, maxLength: emailLengthMax });
const Password = t.String({ minLength: 1, maxLength: passwordLengthMax });
const SecretToken = t.String({ minLength: 1, maxLength: 200 });
const SignupRequest = t.Object({ email: Email, name: Name, password: Password }, { additionalProperties: false });
const LoginRequest = t.Object({ email: Email, password: Password }, { additionalProperties: false });
const ChangePasswordRequest = t.Object({ current_password: Password, new_password: Password }, { additionalProperties: false });
const ResetRequest = t.Object({ email: Email }, { additionalProperties: false });
const ResetConfirmRequest = t.Object({ token: SecretToken, new_password: Password }, { additionalProperties: false });
const TokenRequest = t.Object({ token: SecretToken }, { additionalProperties: false });


export function meResponse(ctx: ControlContext, user: UserRow) {
  return { user: userDto(user), orgs: listOrgs(ctx, { kind: "session", user, sessionId: "" }).orgs };
}

export function authRoutes(app: AnyElysia, ctx: ControlContext) {
  const meta = (c: Ctx) => requestMeta(c.request, ctx.config.trustProxy);
  return new RouteTable(app)
    .post("/app/auth/signup", async (c: Ctx) => {
      const input = validateBody<typeof SignupRequest.static>(SignupRequest, c.body);
      const { user, secret } = await signup(ctx, input, meta(c));
      return jsonResponse(201, meResponse(ctx, user), { "Set-Cookie": sessionCookie(ctx, secret) });
    })
    .post("/app/auth/login", async (c: Ctx) => {
      const input = validateBody<typeof LoginRequest.static>(LoginRequest, c.body);
      const { user, secret } = await login(ctx, input, meta(c));
      return jsonResponse(200, meResponse(ctx, user), { "Set-Cookie": sessionCookie(ctx, secret) });
    })
    .post("/app/auth/logout", (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      auditedRevoke(ctx, principal, { sessionId: principal.sessionId });
      return jsonResponse(204, undefined, { "Set-Cookie": clearedSessionCookie(ctx) });
    })
    .post("/app/auth/change-password", async (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      const input = validateBody<typeof ChangePasswordRequest.static>(ChangePasswordRequest, c.body);
      await changePassword(ctx, principal.user, principal.sessionId, input, meta(c));
      return jsonResponse(204, undefined);
    })
    .post("/app/auth/password-reset", (c: Ctx) => {
      const input = validateBody<typeof ResetRequest.static>(ResetRequest, c.body);
      requestPasswordReset(ctx, input.email, meta(c));
      return jsonResponse(202, { status: "accepted" });
    })
    .post("/app/auth/password-reset/confirm", async (c: Ctx) => {
      const input = validateBody<typeof ResetConfirmRequest.static>(ResetConfirmRequest, c.body);
      await confirmPasswordReset(ctx, input, meta(c));
      return jsonResponse(204, undefined);
    })
    .get("/app/auth/sessions", (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      const sessions = liveSessions(ctx, principal.user.id).map((session) => sessionDto(session, principal.sessionId));
      return jsonResponse(200, { sessions });
    })
    .delete("/app/auth/sessions/:session_id", (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      const id = requireUuid(c.params.session_id!, "session");
      const own = liveSessions(ctx, principal.user.id).find((session) => session.id === id);
      if (!own) throw notFound("session");
      auditedRevoke(ctx, principal, { sessionId: own.id });
      const headers: Record<string, string> = own.id === principal.sessionId ? { "Set-Cookie": clearedSessionCookie(ctx) } : {};
      return jsonResponse(204, undefined, headers);
    })
    .post("/app/auth/sessions/revoke-others", (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      return jsonResponse(200, { revoked: auditedRevoke(ctx, principal, "others") });
    })
    .post("/app/auth/verify-email", (c: Ctx) => {
      const input = validateBody<typeof TokenRequest.static>(TokenRequest, c.body);
      confirmEmail(ctx, input.token, meta(c));
      return jsonResponse(204, undefined);
    })
    .post("/app/auth/verify-email/send", (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      resendVerification(ctx, principal.user, meta(c));
      return jsonResponse(204, undefined);
    })
    .post("/app/invitations/accept", (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      const input = validateBody<typeof TokenRequest.static>(TokenRequest, c.body);
      return jsonResponse(200, acceptInvitation(ctx, principal, input.token));
    })
    .get("/app/me", (c: Ctx) => jsonResponse(200, meResponse(ctx, requireSession(ctx, c.request).user)));
}
