// The OAuth 2.1 authorization server (docs/oauth.md): registration, authorization, token and
// revocation endpoints under /oauth (paths spec 1 leaves "not shown", so they are out of the
// contract and listed in the RFC 8414 metadata instead), the consent page's session routes,
// and the person's connections (/app/oauth/connections, in the contract).
import { t } from "elysia";
import { forbidden, jsonResponse } from "../../http/errors.ts";
import { requestMeta } from "../../http/client-meta.ts";
import { validateBody } from "../../http/validate.ts";
import { securityHeaders } from "../../console/security-headers.ts";
import type { ControlContext } from "../context.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors, unlisted } from "../contract/operation.ts";
import { ConnectionList } from "../schemas-accounts.ts";
import { pushRevocations } from "../services/token-revocations.ts";
import { registerClient } from "../oauth/clients.ts";
import { approveAuthorization, denyAuthorization, describeAuthorization, startAuthorization } from "../oauth/authorization.ts";
import { disconnect, listConnections } from "../oauth/grants.ts";
import { revocationEndpoint, tokenEndpoint } from "../oauth/tokens.ts";
import { answerOAuth, OAuthError, oauthJson } from "../oauth/oauth-errors.ts";
import { withCors } from "../oauth/cors.ts";
import { requireSession } from "./session-auth.ts";

export const oauthPaths = {
  register: "/oauth/register",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  revoke: "/oauth/revoke",
} as const;

/** Called by browser-based clients from any origin (oauth/cors.ts): the metadata and the endpoints without a session. */
export const oauthCorsPaths = [
  "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/v1", oauthPaths.register, oauthPaths.token, oauthPaths.revoke,
] as const;

/** Bodies that are forms (RFC 6749 §4.1.3, RFC 7009 §2.1), parsed by the control app as such. */
export const formBodyPaths: ReadonlySet<string> = new Set([oauthPaths.token, oauthPaths.revoke]);

const ApproveRequest = t.Object(
  {
    org_id: t.String(),
    scopes: t.Array(t.String(), { maxItems: 100 }),
    project_ids: t.Optional(t.Union([t.Array(t.String()), t.Null()])),
  },
  { additionalProperties: false },
);

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * A refused authorization request, on a page of ours (see oauth/authorization.ts). With
 * `returnTo`, a link takes the person back to the application with the error, if they choose.
 */
function refusalPage(ctx: ControlContext, status: number, message: string, returnTo: string | null): Response {
  const back = returnTo
    ? `<p><a href="${escapeHtml(returnTo)}">Return to ${escapeHtml(new URL(returnTo).host)}</a> (the application is told the request failed).</p>`
    : `<p>Nothing was shared. Go back to the application and try again, or tell its makers.</p>`;
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization refused</title></head>` +
    `<body><main><h1>This authorization request cannot be completed</h1><p>${escapeHtml(message)}</p>${back}</main></body></html>`;
  return new Response(body, {
    status,
    headers: { ...securityHeaders(new URL(ctx.baseUrl()).origin), "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/** The token and revocation endpoints share one budget per address (oauthTokenRequestsPerIpMax). */
function limitTokenRequests(ctx: ControlContext, request: Request): void {
  const ip = requestMeta(request, ctx.config.trustProxy).ip;
  if (!ip) return;
  const verdict = ctx.limiters.oauthTokenRequestsByIp.take(ip);
  if (!verdict.allowed) {
    throw new OAuthError("temporarily_unavailable", `too many token requests from this address; retry after ${verdict.retryAfterSeconds} s`, 429, { "Retry-After": String(verdict.retryAfterSeconds) });
  }
}

/**
 * The consent decision is taken on the console's own page. Browsers send Origin with every
 * cross-origin POST (forms and fetch alike), so a decision posted from any other site, a
 * sibling subdomain sharing the Lax session cookie included, is refused.
 */
function requireConsolePage(ctx: ControlContext, request: Request): void {
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(ctx.baseUrl()).origin) throw forbidden("the decision must come from the consent page");
}

function form(body: unknown): URLSearchParams {
  if (!(body instanceof URLSearchParams)) throw new OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded");
  return body;
}

const oauthDoc = "docs/oauth.md";

export function oauthRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  return routes
    .post(oauthPaths.register, unlisted("registerOAuthClient", "Dynamic client registration (RFC 7591)", "none", oauthDoc), async (c) =>
      withCors(await answerOAuth(() => oauthJson(201, registerClient(ctx, c.body, requestMeta(c.request, ctx.config.trustProxy).ip)))),
    )
    .get(oauthPaths.authorize, unlisted("authorizeOAuth", "Authorization endpoint: code with PKCE (S256)", "none", oauthDoc), (c) => {
      const outcome = startAuthorization(ctx, new URL(c.request.url).searchParams, requestMeta(c.request, ctx.config.trustProxy).ip);
      if (outcome.kind === "refuse") return refusalPage(ctx, outcome.status, outcome.message, outcome.returnTo);
      return new Response(null, { status: 302, headers: { Location: outcome.location, "Cache-Control": "no-store" } });
    })
    .post(oauthPaths.token, unlisted("oauthToken", "Token endpoint: authorization_code and refresh_token", "none", oauthDoc), async (c) => {
      const response = await answerOAuth(() => {
        limitTokenRequests(ctx, c.request);
        return tokenEndpoint(ctx, form(c.body));
      });
      // A reused code or refresh token has just revoked a grant: tell the regions now.
      if (response.status !== 200) await pushRevocations(ctx);
      return withCors(response);
    })
    .post(oauthPaths.revoke, unlisted("revokeOAuthToken", "Token revocation (RFC 7009)", "none", oauthDoc), async (c) => {
      const response = await answerOAuth(() => {
        limitTokenRequests(ctx, c.request);
        return revocationEndpoint(ctx, form(c.body));
      });
      if (response.status === 200) await pushRevocations(ctx);
      return withCors(response);
    })
    .get("/app/oauth/authorizations/{request_id}", unlisted("getOAuthAuthorization", "What the consent page shows", "session", oauthDoc), (c) => {
      requireSession(ctx, c.request);
      return jsonResponse(200, describeAuthorization(ctx, c.params.request_id!));
    })
    .post("/app/oauth/authorizations/{request_id}/approve", unlisted("approveOAuthAuthorization", "Approve: a grant and its code", "session", oauthDoc), (c) => {
      const principal = requireSession(ctx, c.request);
      requireConsolePage(ctx, c.request);
      const input = validateBody<typeof ApproveRequest.static>(ApproveRequest, c.body);
      return jsonResponse(200, approveAuthorization(ctx, principal, c.params.request_id!, input));
    })
    .post("/app/oauth/authorizations/{request_id}/deny", unlisted("denyOAuthAuthorization", "Deny: access_denied to the client", "session", oauthDoc), (c) => {
      requireSession(ctx, c.request);
      requireConsolePage(ctx, c.request);
      return jsonResponse(200, denyAuthorization(ctx, c.params.request_id!));
    })
    .get("/app/oauth/connections", {
      operationId: "listOAuthConnections", summary: "Applications the caller connected through OAuth", security: "session",
      responses: { ...answer(200, "Connections", ConnectionList), ...errors(401) },
    }, (c) => jsonResponse(200, listConnections(ctx, requireSession(ctx, c.request).user.id)))
    .delete("/app/oauth/connections/{grant_id}", {
      operationId: "revokeOAuthConnection", summary: "Revoke a grant and every token cut from it", security: "session",
      responses: { ...answer(204, "Revoked"), ...errors(401, 404) },
    }, async (c) => {
      disconnect(ctx, requireSession(ctx, c.request), c.params.grant_id!);
      await pushRevocations(ctx);
      return jsonResponse(204, undefined);
    });
}
