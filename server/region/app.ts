// The region API of one region, mounted at /region/{code}. Later issues add /query, /sql,
// /persons, ...; every route reads project, environment and scopes only from the token.
import { Elysia } from "elysia";
import type { JWTVerifyGetKey } from "jose";
import { jsonResponse } from "../http/errors.ts";
import { apiErrorHandler } from "../http/elysia-errors.ts";
import type { RegionNode } from "./region-node.ts";
import { verifyRegionToken } from "./region-auth.ts";

export interface RegionAppOptions {
  prefix: string;
  node: RegionNode;
  keys: JWTVerifyGetKey;
  issuer: () => string;
}

export function regionApp({ prefix, node, keys, issuer }: RegionAppOptions) {
  return new Elysia({ name: `region-${node.code}`, prefix })
    .onError(apiErrorHandler)
    .get("/health", () => {
      const check = node.health();
      return jsonResponse(check === "ok" ? 200 : 503, { status: check === "ok" ? "ok" : "degraded", checks: { [`region:${node.code}`]: check } });
    })
    .get("/token", async ({ request }) => {
      const claims = await verifyRegionToken(request.headers.get("authorization"), keys, issuer(), node.code);
      return jsonResponse(200, {
        project_id: claims.projectId,
        data_id: claims.dataId,
        environment: claims.environment,
        scopes: claims.scopes,
        region: claims.region,
        expires_at: claims.expiresAt,
      });
    });
}
