// Dynamic client registration (RFC 7591). Every client is public (token_endpoint_auth_method
// "none"): it proves itself with PKCE and its exact redirect URI, never with a secret. The
// request is validated field by field so a refusal names the field, in RFC 7591's error body.
import { eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import type { ControlContext } from "../context.ts";
import { oauthClients } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { allScopes, isKnownScope, sortScopes } from "../auth/scopes.ts";
import { applyWrite } from "../services/audited-write.ts";
import { OAuthError } from "./oauth-errors.ts";
import { redirectUriProblem, redirectUrisMax } from "./redirect-uris.ts";

export type ClientRow = typeof oauthClients.$inferSelect;

export const clientNameLengthMax = 200;
/** client_uri, logo_uri, policy_uri, tos_uri, software_id, software_version and scope. */
export const clientFieldLengthMax = 2000;
export const defaultClientName = "Unnamed application";

export const supportedGrantTypes = ["authorization_code", "refresh_token"] as const;
export const supportedResponseTypes = ["code"] as const;
export const supportedAuthMethods = ["none"] as const;

const uriFields = ["client_uri", "logo_uri", "policy_uri", "tos_uri"] as const;
const textFields = ["software_id", "software_version"] as const;

const invalidMetadata = (description: string) => new OAuthError("invalid_client_metadata", description);

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalidMetadata(`${field} must be a string`);
  if (value.length > clientFieldLengthMax) throw invalidMetadata(`${field} may have at most ${clientFieldLengthMax} characters`);
  return value;
}

function optionalList(body: Record<string, unknown>, field: string, supported: readonly string[], fallback: readonly string[]): string[] {
  const value = body[field];
  if (value === undefined || value === null) return [...fallback];
  if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== "string")) throw invalidMetadata(`${field} must be a non-empty array of strings`);
  const unsupported = value.filter((item) => !supported.includes(item));
  if (unsupported.length) throw invalidMetadata(`${field} not supported: ${unsupported.join(", ")} (supported: ${supported.join(", ")})`);
  return [...new Set(value as string[])];
}

function redirectUris(body: Record<string, unknown>): string[] {
  const value = body.redirect_uris;
  if (!Array.isArray(value) || value.length === 0) throw new OAuthError("invalid_redirect_uri", "redirect_uris must be a non-empty array");
  if (value.length > redirectUrisMax) throw new OAuthError("invalid_redirect_uri", `at most ${redirectUrisMax} redirect URIs`);
  for (const uri of value) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", problem);
  }
  return [...new Set(value as string[])];
}

function httpUri(field: string, value: string | undefined): void {
  if (value === undefined) return;
  const protocol = URL.parse(value)?.protocol;
  if (protocol !== "https:" && protocol !== "http:") throw invalidMetadata(`${field} must be an http or https URI`);
}

/** Spaces separate scopes in the protocol (RFC 6749 §3.3). */
export const parseScopeText = (text: string): string[] => [...new Set(text.split(" ").filter(Boolean))];

export function registerClient(ctx: ControlContext, body: unknown, ip: string | null) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalidMetadata("the body must be a JSON object");
  const fields = body as Record<string, unknown>;
  const uris = redirectUris(fields);
  const grantTypes = optionalList(fields, "grant_types", supportedGrantTypes, supportedGrantTypes);
  if (!grantTypes.includes("authorization_code")) throw invalidMetadata("grant_types must include authorization_code");
  const responseTypes = optionalList(fields, "response_types", supportedResponseTypes, supportedResponseTypes);
  const authMethod = optionalString(fields, "token_endpoint_auth_method") ?? "none";
  if (authMethod !== "none") throw invalidMetadata(`token_endpoint_auth_method not supported: ${authMethod} (only public clients: none)`);
  const name = (optionalString(fields, "client_name") ?? "").trim() || defaultClientName;
  if (name.length > clientNameLengthMax) throw invalidMetadata(`client_name may have at most ${clientNameLengthMax} characters`);
  const scopeText = optionalString(fields, "scope");
  const scopes = scopeText === undefined ? [...allScopes] : parseScopeText(scopeText);
  const unknown = scopes.filter((scope) => !isKnownScope(scope));
  if (unknown.length) throw invalidMetadata(`unknown scopes: ${unknown.join(", ")}`);
  if (scopes.length === 0) throw invalidMetadata("scope must name at least one scope");
  const metadata: Record<string, string> = {};
  for (const field of [...uriFields, ...textFields]) {
    const value = optionalString(fields, field);
    if (field !== "software_id" && field !== "software_version") httpUri(field, value);
    if (value !== undefined) metadata[field] = value;
  }
  if (ip) {
    const verdict = ctx.limiters.oauthRegistrationsByIp.take(ip);
    if (!verdict.allowed) {
      throw new OAuthError("temporarily_unavailable", `too many registrations from this address; retry after ${verdict.retryAfterSeconds} s`, 429, { "Retry-After": String(verdict.retryAfterSeconds) });
    }
  }
  const client: ClientRow = { id: newId(), name, redirectUris: uris, grantTypes, scopes: sortScopes(scopes), metadata, createdAt: nowIso() };
  applyWrite(ctx, { kind: "anonymous" }, {
    action: "oauth.client.register",
    targetType: "oauth_client",
    targetId: client.id,
    orgId: null,
    before: null,
    after: { client_id: client.id, client_name: name, redirect_uris: uris },
    apply: () => ctx.db.insert(oauthClients).values(client).run(),
  });
  return registerResponse(client, responseTypes);
}

function registerResponse(client: ClientRow, responseTypes: string[]) {
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
    client_name: client.name,
    grant_types: client.grantTypes,
    redirect_uris: client.redirectUris,
    response_types: responseTypes,
    scope: client.scopes.join(" "),
    token_endpoint_auth_method: "none",
    ...client.metadata,
  };
}

export function findClient(ctx: ControlContext, clientId: string | null): ClientRow | null {
  if (!clientId) return null;
  return ctx.db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).get() ?? null;
}
