// /app/auth/* and /app/me: accounts and sessions.
import { t } from "elysia";
import { jsonResponse, notFound } from "../../http/errors.ts";
import { requestMeta } from "../../http/client-meta.ts";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
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
import { pushRevocations } from "../services/token-revocations.ts";
import { Name, OrgDto, emailLengthMax } from "../schemas.ts";
import { AcceptedResponse, MeResponse, RevokeOthersResponse, SessionList } from "../schemas-accounts.ts";
import { passwordLengthMax } from "../auth/passwords.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors } from "../contract/operation.ts";
import { clearedSessionCookie, requireSession, sessionCookie } from "./session-auth.ts";

const Email = t.String({ minLength: 1, maxLength: emailLengthMax });
const Password = t.String({ minLength: 1, maxLength: passwordLengthMax });
const SecretToken = t.String({ minLength: 1, maxLength: 200, description: "The single-use token from the emailed link" });
const SignupRequest = t.Object({ email: Email, name: Name, password: Password }, { title: "SignupRequest", additionalProperties: false });
const LoginRequest = t.Object({ email: Email, password: Password }, { title: "LoginRequest", additionalProperties: false });
const ChangePasswordRequest = t.Object({ current_password: Password, new_password: Password }, { title: "ChangePasswordRequest", additionalProperties: false });
const PasswordResetRequest = t.Object({ email: Email }, { title: "PasswordResetRequest", additionalProperties: false });
const PasswordResetConfirmRequest = t.Object({ token: SecretToken, new_password: Password }, { title: "PasswordResetConfirmRequest", additionalProperties: false });
const SingleUseTokenRequest = t.Object({ token: SecretToken }, { title: "SingleUseTokenRequest", additionalProperties: false });

const noContent = (description: string) => answer(204, description);

export function meResponse(ctx: ControlContext, user: UserRow) {
  return { user: userDto(user), orgs: listOrgs(ctx, { kind: "session", user, sessionId: "" }).orgs };
}

export function authRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const meta = (c: Ctx) => requestMeta(c.request, ctx.config.trustProxy);
  return routes
    .post("/app/auth/signup", {
      operationId: "signup", summary: "Create an account, its personal organisation and a session (sets the session cookie)", security: "none",
      body: SignupRequest, responses: { ...answer(201, "Signed up", MeResponse), ...errors(400, 409, 429) },
    }, async (c) => {
      const input = validateBody<typeof SignupRequest.static>(SignupRequest, c.body);
      const { user, secret } = await signup(ctx, input, meta(c));
      return jsonResponse(201, meResponse(ctx, user), { "Set-Cookie": sessionCookie(ctx, secret) });
    })
    .post("/app/auth/login", {
      operationId: "login", summary: "Sign in (sets the session cookie)", security: "none",
      body: LoginRequest, responses: { ...answer(200, "Signed in", MeResponse), ...errors(400, 401, 429) },
    }, async (c) => {
      const input = validateBody<typeof LoginRequest.static>(LoginRequest, c.body);
      const { user, secret } = await login(ctx, input, meta(c));
      return jsonResponse(200, meResponse(ctx, user), { "Set-Cookie": sessionCookie(ctx, secret) });
    })
    .post("/app/auth/logout", {
      operationId: "logout", summary: "Revoke this session and clear the cookie", security: "session",
      responses: { ...noContent("Signed out"), ...errors(401) },
    }, (c) => {
      const principal = requireSession(ctx, c.request);
      auditedRevoke(ctx, principal, { sessionId: principal.sessionId });
      return jsonResponse(204, undefined, { "Set-Cookie": clearedSessionCookie(ctx) });
    })
    .post("/app/auth/change-password", {
      operationId: "changePassword", summary: "Change the password; every other session and every OAuth grant is signed out", security: "session",
      body: ChangePasswordRequest, responses: { ...noContent("Changed"), ...errors(400, 401, 429) },
    }, async (c) => {
      const principal = requireSession(ctx, c.request);
      const input = validateBody<typeof ChangePasswordRequest.static>(ChangePasswordRequest, c.body);
      await changePassword(ctx, principal.user, principal.sessionId, input, meta(c));
      // The person's OAuth grants ended with the password: their region tokens too, now.
      await pushRevocations(ctx);
      return jsonResponse(204, undefined);
    })
    .post("/app/auth/password-reset", {
      operationId: "requestPasswordReset", summary: "Mail a reset link; never reveals whether the address has an account", security: "none",
      body: PasswordResetRequest, responses: { ...answer(202, "Accepted, whatever the address", AcceptedResponse), ...errors(400, 429) },
    }, (c) => {
      const input = validateBody<typeof PasswordResetRequest.static>(PasswordResetRequest, c.body);
      requestPasswordReset(ctx, input.email, meta(c));
      return jsonResponse(202, { status: "accepted" });
    })
    .post("/app/auth/password-reset/confirm", {
      operationId: "confirmPasswordReset", summary: "Set a new password with the mailed token; every session and OAuth grant is signed out", security: "none",
      body: PasswordResetConfirmRequest, responses: { ...noContent("Password set"), ...errors(400, 429) },
    }, async (c) => {
      const input = validateBody<typeof PasswordResetConfirmRequest.static>(PasswordResetConfirmRequest, c.body);
      await confirmPasswordReset(ctx, input, meta(c));
      // The person's OAuth grants ended with the password: their region tokens too, now.
      await pushRevocations(ctx);
      return jsonResponse(204, undefined);
    })
    .get("/app/auth/sessions", {
      operationId: "listSessions", summary: "The caller's live sessions", security: "session",
      responses: { ...answer(200, "Sessions", SessionList), ...errors(401) },
    }, (c) => {
      const principal = requireSession(ctx, c.request);
      const sessions = liveSessions(ctx, principal.user.id).map((session) => sessionDto(session, principal.sessionId));
      return jsonResponse(200, { sessions });
    })
    .delete("/app/auth/sessions/{session_id}", {
      operationId: "revokeSession", summary: "Sign one of the caller's sessions out", security: "session",
      responses: { ...noContent("Signed out"), ...errors(401, 404) },
    }, (c) => {
      const principal = requireSession(ctx, c.request);
      const id = requireUuid(c.params.session_id!, "session");
      const own = liveSessions(ctx, principal.user.id).find((session) => session.id === id);
      if (!own) throw notFound("session");
      auditedRevoke(ctx, principal, { sessionId: own.id });
      const headers: Record<string, string> = own.id === principal.sessionId ? { "Set-Cookie": clearedSessionCookie(ctx) } : {};
      return jsonResponse(204, undefined, headers);
    })
    .post("/app/auth/sessions/revoke-others", {
      operationId: "revokeOtherSessions", summary: "Sign every other session of the caller out", security: "session",
      responses: { ...answer(200, "Sessions signed out", RevokeOthersResponse), ...errors(401, 403) },
    }, (c) => {
      const principal = requireSession(ctx, c.request);
      return jsonResponse(200, { revoked: auditedRevoke(ctx, principal, "others") });
    })
    .post("/app/auth/verify-email", {
      operationId: "verifyEmail", summary: "Confirm the address with the mailed token", security: "none",
      body: SingleUseTokenRequest, responses: { ...noContent("Verified"), ...errors(400, 404, 429) },
    }, (c) => {
      const input = validateBody<typeof SingleUseTokenRequest.static>(SingleUseTokenRequest, c.body);
      confirmEmail(ctx, input.token, meta(c));
      return jsonResponse(204, undefined);
    })
    .post("/app/auth/verify-email/send", {
      operationId: "sendVerificationEmail", summary: "Mail a verification link again (nothing when already verified)", security: "session",
      responses: { ...noContent("Sent, or already verified"), ...errors(401, 429) },
    }, (c) => {
      const principal = requireSession(ctx, c.request);
      resendVerification(ctx, principal.user, meta(c));
      return jsonResponse(204, undefined);
    })
    .post("/app/invitations/accept", {
      operationId: "acceptInvitation", summary: "Join an organisation with an invitation addressed to the caller's email", security: "session",
      body: SingleUseTokenRequest, responses: { ...answer(200, "The organisation joined", OrgDto), ...errors(400, 401, 404) },
    }, (c) => {
      const principal = requireSession(ctx, c.request);
      const input = validateBody<typeof SingleUseTokenRequest.static>(SingleUseTokenRequest, c.body);
      return jsonResponse(200, acceptInvitation(ctx, principal, input.token));
    })
    .get("/app/me", {
      operationId: "getConsoleMe", summary: "The signed-in user and their organisations", security: "session",
      responses: { ...answer(200, "The user", MeResponse), ...errors(401) },
    }, (c) => jsonResponse(200, meResponse(ctx, requireSession(ctx, c.request).user)));
}
