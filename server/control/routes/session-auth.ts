import { unauthorized } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import type { Principal } from "../access.ts";
import { findSession, sessionCookieName } from "../services/sessions.ts";
import { dayMs } from "../../clock.ts";

export type SessionPrincipal = Principal & { kind: "session" };

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return decodeURIComponent(part.slice(index + 1).trim());
  }
  return null;
}

export function requireSession(ctx: ControlContext, request: Request): SessionPrincipal {
  const secret = readCookie(request, sessionCookieName);
  const found = secret ? findSession(ctx, secret) : null;
  if (!found) throw unauthorized("sign in required");
  return { kind: "session", user: found.user, sessionId: found.session.id };
}

export function sessionCookie(ctx: ControlContext, secret: string): string {
  const secure = ctx.config.cookieSecure ? "; Secure" : "";
  const maxAge = Math.floor((ctx.config.sessionTtlDays * dayMs) / 1000);
  return `${sessionCookieName}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

export function clearedSessionCookie(ctx: ControlContext): string {
  const secure = ctx.config.cookieSecure ? "; Secure" : "";
  return `${sessionCookieName}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
}
