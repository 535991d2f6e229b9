// The region API of one region, mounted at /region/{code}. Later issues add /query, /sql,
// /persons, ...; every route reads project, environment and scopes only from the token.
import { Elysia } from "elysia";
import type { JWTVerifyGetKey } from "jose";
import { timingSafeEqual } from "node:crypto";
import { ApiError, jsonResponse } from "../http/errors.ts";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import { sha256Hex } from "../crypto.ts";
import { regionSecretHeader } from "./region-link.ts";
import { t } from "elysia";
import { apiErrorHandler } from "../http/elysia-errors.ts";
import type { RegionNode } from "./region-node.ts";
import { verifyRegionToken } from "./region-auth.ts";

export interface RegionAppOptions {
  prefix: string;
  node: RegionNode;
  keys: JWTVerifyGetKey;
  issuer: () => string;
  /** Secret of the internal API the control plane uses (key registry sync); null: not served. */
  regionSecret: string | null;
}

const internalKeysBodyBytesMax = 1024 * 1024;

function checkRegionSecret(request: Request, secret: string | null): void {
  const given = request.headers.get(regionSecretHeader);
  if (secret === null || given === null || !timingSafeEqual(Buffer.from(sha256Hex(given)), Buffer.from(sha256Hex(secret)))) {
    throw new ApiError(401, "unauthorized", "internal API needs the region secret");
  }
}

const KeySyncRequest = t.Object({
  keys: t.Array(
    t.Object({
      key: t.String({ pattern: "^svc_pk_" }),
      keyId: t.String(),
      projectId: t.String(),
      dataId: t.Integer({ minimum: 1 }),
      environment: t.String({ minLength: 1 }),
      allowedOrigins: t.Array(t.String()),
      allowedBundleIds: t.Array(t.String()),
      revokedAt: t.Union([t.String(), t.Null()]),
      retentionDays: t.Integer({ minimum: 1 }),
    }),
  ),
});

/** Billing sets this past a spend cap; 1 keeps every event. */
const IngestPolicyRequest = t.Object({ keep_ratio: t.Number({ exclusiveMinimum: 0, maximum: 1 }) }, { additionalProperties: false });

export function regionApp({ prefix, node, keys, issuer, regionSecret }: RegionAppOptions) {
  return new Elysia({ name: `region-${node.code}`, prefix })
    .onError(apiErrorHandler)
    .get("/health", () => {
      const { status, body } = node.healthReply();
      return jsonResponse(status, body);
    })
    .post("/internal/keys", async ({ request }) => {
      checkRegionSecret(request, regionSecret);
      const body = validateBody<typeof KeySyncRequest.static>(KeySyncRequest, await readJsonBody(request, internalKeysBodyBytesMax));
      node.store.upsertKeys(body.keys);
      return new Response(null, { status: 204 });
    }, { parse: "none" })
    .put("/internal/ingest-policy/:project_id", async ({ request, params }) => {
      checkRegionSecret(request, regionSecret);
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(params.project_id)) {
        throw new ApiError(404, "not_found", "project not found");
      }
      const body = validateBody<typeof IngestPolicyRequest.static>(IngestPolicyRequest, await readJsonBody(request, internalKeysBodyBytesMax));
      const policy = node.setKeepRatio(params.project_id, body.keep_ratio);
      return jsonResponse(200, { project_id: policy.projectId, keep_ratio: policy.keepRatio, updated_at: policy.updatedAt });
    }, { parse: "none" })
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
