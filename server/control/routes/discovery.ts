import { RouteTable, type AnyElysia } from "../../http/route-table.ts";
// Public documents: the OpenAPI contract, OAuth metadata (RFC 8414, RFC 9728), the JWKS
// that verifies region tokens, the region list and health.
import { sql } from "drizzle-orm";
import { jsonResponse } from "../../http/errors.ts";
import { knownRegions } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import { allScopes } from "../auth/scopes.ts";
import { openApiDocument } from "../v1/openapi.ts";
import type { V1Route } from "../v1/route.ts";
import { ingestUrl, regionApiUrl } from "../services/region-tokens.ts";

export const jwksPath = "/.well-known/jwks.json";

export function discoveryRoutes(app: AnyElysia, ctx: ControlContext, routes: V1Route[]) {
  return new RouteTable(app)
    .get("/openapi.json", () => jsonResponse(200, openApiDocument(routes, ctx.baseUrl())))
    .get(jwksPath, () => jsonResponse(200, ctx.signer.jwks(), { "Cache-Control": "public, max-age=300" }))
    .get("/.well-known/oauth-authorization-server", () =>
      // Only what exists today: personal access tokens are issued in the console, so no
      // OAuth grant, authorization or token endpoint is advertised yet.
      jsonResponse(200, {
        issuer: ctx.baseUrl(),
        jwks_uri: `${ctx.baseUrl()}${jwksPath}`,
        scopes_supported: allScopes,
        response_types_supported: [],
        grant_types_supported: [],
        token_endpoint_auth_methods_supported: [],
        service_documentation: `${ctx.baseUrl()}/openapi.json`,
      }),
    )
    .get("/.well-known/oauth-protected-resource/v1", () =>
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
    .get("/app/regions", () =>
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
    .get("/health", async () => {
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
    });
}
