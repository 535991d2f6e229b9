// Public documents: the OpenAPI contract, OAuth metadata (RFC 8414, RFC 9728), the JWKS
// that verifies region tokens, the region list and health.
import { sql } from "drizzle-orm";
import { jsonResponse } from "../../http/errors.ts";
import { knownRegions } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import { allScopes } from "../auth/scopes.ts";
import { openApiDocument } from "../contract/openapi.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer } from "../contract/operation.ts";
import { supportedAuthMethods, supportedGrantTypes, supportedResponseTypes } from "../oauth/clients.ts";
import { oauthPaths } from "./oauth.ts";
import { ingestUrl, regionApiUrl } from "../services/region-tokens.ts";
import {
  AuthorizationServerMetadata, HealthResponse, JsonWebKeySet, OpenApiDocument, ProtectedResourceMetadata, RegionList,
} from "../schemas-discovery.ts";

export const jwksPath = "/.well-known/jwks.json";

export function discoveryRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  return routes
    .get("/openapi.json", { operationId: "getOpenApi", summary: "This document", security: "none", responses: answer(200, "The contract", OpenApiDocument) }, () =>
      jsonResponse(200, openApiDocument(routes.operations, ctx.baseUrl())),
    )
    .get(jwksPath, { operationId: "getJwks", summary: "The keys that verify region tokens", security: "none", responses: answer(200, "JWKS", JsonWebKeySet) }, () =>
      jsonResponse(200, ctx.signer.jwks(), { "Cache-Control": "public, max-age=300" }),
    )
    .get(
      "/.well-known/oauth-authorization-server",
      { operationId: "getAuthorizationServerMetadata", summary: "RFC 8414 authorization-server metadata", security: "none", responses: answer(200, "Metadata", AuthorizationServerMetadata) },
      () =>
        // Exactly what the server does (docs/oauth.md): public clients, code with PKCE S256,
        // refresh rotation, RFC 7591 registration and RFC 7009 revocation.
        jsonResponse(200, {
          issuer: ctx.baseUrl(),
          authorization_endpoint: `${ctx.baseUrl()}${oauthPaths.authorize}`,
          token_endpoint: `${ctx.baseUrl()}${oauthPaths.token}`,
          registration_endpoint: `${ctx.baseUrl()}${oauthPaths.register}`,
          revocation_endpoint: `${ctx.baseUrl()}${oauthPaths.revoke}`,
          jwks_uri: `${ctx.baseUrl()}${jwksPath}`,
          scopes_supported: allScopes,
          response_types_supported: supportedResponseTypes,
          response_modes_supported: ["query"],
          grant_types_supported: supportedGrantTypes,
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: supportedAuthMethods,
          revocation_endpoint_auth_methods_supported: supportedAuthMethods,
          authorization_response_iss_parameter_supported: true,
          service_documentation: `${ctx.baseUrl()}/openapi.json`,
        }),
    )
    .get(
      "/.well-known/oauth-protected-resource/v1",
      { operationId: "getProtectedResourceMetadata", summary: "RFC 9728 protected-resource metadata of /v1", security: "none", responses: answer(200, "Metadata", ProtectedResourceMetadata) },
      () =>
        jsonResponse(200, {
          resource: `${ctx.baseUrl()}/v1`,
          authorization_servers: [ctx.baseUrl()],
          jwks_uri: `${ctx.baseUrl()}${jwksPath}`,
          scopes_supported: allScopes,
          bearer_methods_supported: ["header"],
          resource_name: "svc-analytics programmatic API",
          resource_documentation: `${ctx.baseUrl()}/openapi.json`,
        }),
    )
    .get("/app/regions", { operationId: "listRegions", summary: "Live regions and their URLs", security: "none", responses: answer(200, "Regions", RegionList) }, () =>
      jsonResponse(200, {
        regions: [...ctx.regions.keys()].map((code) => ({
          code,
          name: knownRegions[code],
          status: "live",
          api_host: regionApiUrl(ctx, code),
          ingest_host: ingestUrl(ctx, code),
        })),
      }),
    )
    .get(
      "/health",
      {
        operationId: "getHealth",
        summary: "The control plane's store and every region",
        security: "none",
        responses: { ...answer(200, "Every check is ok", HealthResponse), ...answer(503, "A check failed", HealthResponse) },
      },
      async () => {
        const checks: Record<string, string> = {};
        try {
          ctx.db.run(sql`SELECT 1`);
          checks.global = "ok";
        } catch (error) {
          checks.global = `error: ${(error as Error).message}`;
        }
        for (const [code, link] of ctx.regions) {
          checks[`region:${code}`] = await link.health().catch((error: Error) => `error: ${error.message}`);
        }
        const healthy = Object.values(checks).every((value) => value === "ok");
        return jsonResponse(healthy ? 200 : 503, { status: healthy ? "ok" : "degraded", checks, caches: ctx.cacheStats() });
      },
    );
}
