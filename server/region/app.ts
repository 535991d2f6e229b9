// The region API of one region, mounted at /region/{code}: /query, /sql, the event and
// property schema, persons, groups, cohorts, live events, the catalog's discovery and Ask; every route
// reads project, environment and scopes only from the token. Errors use the region's codes (a body
// that fails validation is `bad_request`).
import { Elysia } from "elysia";
import type { JWTVerifyGetKey } from "jose";
import { timingSafeEqual } from "node:crypto";
import { ApiError, jsonResponse } from "../http/errors.ts";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import { sha256Hex } from "../crypto.ts";
import { regionSecretHeader } from "./region-link.ts";
import { t } from "elysia";
import { toApiError } from "../http/elysia-errors.ts";
import { errorResponse, internalErrorResponse } from "../http/errors.ts";
import { integrationInternalRoutes } from "./integration-internal-routes.ts";
import { findingsInternalRoutes } from "./findings-internal-routes.ts";
import { flagInternalRoutes } from "./flag-internal-routes.ts";
import { usageRoutes } from "./usage-routes.ts";
import { personsRoutes } from "./persons-routes.ts";
import { groupsRoutes } from "./groups-routes.ts";
import { queryRoutes } from "./query-routes.ts";
import { experimentStatsRoutes } from "./experiments/stats-routes.ts";
import { sqlRoutes } from "./sql-routes.ts";
import { SqlService } from "./sql-service.ts";
import { schemaRoutes } from "./schema-routes.ts";
import { ingestionWarningsRoutes } from "./ingestion-warnings-routes.ts";
import { findingsRoutes } from "./findings-routes.ts";
import { cohortRoutes } from "./cohort-routes.ts";
import type { CohortService } from "./cohort-service.ts";
import { liveEventsRoutes } from "./live-events-routes.ts";
import { catalogRoutes } from "./catalog-routes.ts";
import { replayRoutes } from "./replays/replay-routes.ts";
import { sessionEvents, sessionsWithEvent } from "./replays/session-events.ts";
import type { CatalogDiscovery } from "./catalog-discovery.ts";
import { SchemaService } from "./schema-service.ts";
import { ChunkSummaries } from "../../engine/chunk-summary.ts";
import type { QueryService } from "./query-service.ts";
import type { RegionNode } from "./region-node.ts";
import { badRequest, regionClaims } from "./region-access.ts";
import { revocationReasons, subjectKeys } from "../../storage/token-revocations.ts";
import { isTimeZone } from "../../engine/time-zone.ts";
import { erasureRoutes } from "./erasure/erasure-routes.ts";
import type { RegionErasures } from "./erasure/region-erasures.ts";
import { join } from "node:path";
import { askRoutes } from "./ask/ask-routes.ts";
import { AskAgent } from "./ask/ask-agent.ts";
import { AskTools } from "./ask/ask-tools.ts";
import { OpenAiChatModel } from "./ask/model-client.ts";
import type { AskSettings } from "./ask/ask-settings.ts";

export interface RegionAppOptions {
  prefix: string;
  node: RegionNode;
  queries: QueryService;
  cohorts: CohortService;
  /** The same the control plane's local region link uses. */
  discovery: CatalogDiscovery;
  /** The same the control plane's local region link uses. */
  erasures: RegionErasures;
  keys: JWTVerifyGetKey;
  issuer: () => string;
  /** Secret of the internal API the control plane uses (key registry sync); null: not served. */
  regionSecret: string | null;
  /** Ask's language model; null: POST /ask answers 503 saying how to configure one. */
  ask: AskSettings | null;
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
      timeZone: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    }),
  ),
});

/** The control plane sends at most 1,000 per request (revocationsPerPushMax); each takes under 600 bytes, so they fit the 1 MiB body limit. */
const tokenRevocationsPerRequestMax = 1000;
const nullableId = t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()]);
/** Region-token revocations (storage/token-revocations.ts); each names at least one subject. */
const TokenRevocationRequest = t.Object({
  revocations: t.Array(
    t.Object({
      id: t.String({ minLength: 1, maxLength: 64 }),
      orgId: nullableId,
      userId: nullableId,
      projectId: nullableId,
      accessTokenId: nullableId,
      issuedUpTo: t.Integer({ minimum: 0 }),
      keepUntil: t.Integer({ minimum: 0 }),
      scopes: t.Union([t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 }), t.Null()]),
      reason: t.Union(revocationReasons.map((reason) => t.Literal(reason))),
    }),
    { maxItems: tokenRevocationsPerRequestMax },
  ),
});

/** The catalog's personal-data property names of a project (the control plane pushes them). */
const PiiPropertiesRequest = t.Object({ names: t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 10_000 }) }, { additionalProperties: false });

// Takes its fields destructured: Elysia reads from a hook's source which context fields it
// uses, and a hook taking the whole context makes every route parse cookies and rebuild each
// answer around a stream of its body (measured on the ingest app's flag requests).
function regionErrorHandler({ code, error: thrown }: { code: string | number; error: unknown }): Response {
  const error = toApiError({ code, error: thrown });
  if (!error) return internalErrorResponse(thrown);
  return errorResponse(error.code === "validation" ? new ApiError(400, "bad_request", error.message) : error);
}

const projectIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Billing sets this past a spend cap; 1 keeps every event. */
const IngestPolicyRequest = t.Object({ keep_ratio: t.Number({ exclusiveMinimum: 0, maximum: 1 }) }, { additionalProperties: false });

export function regionApp({ prefix, node, queries, cohorts, discovery, erasures, keys, issuer, regionSecret, ask }: RegionAppOptions) {
  const check = { keys, issuer, region: node.code, revocations: node.store.tokenRevocations };
  const sql = new SqlService(node, queries.columns, queries.gate, { scratchDir: join(node.dataDir, "sql-scratch"), timeoutMs: queries.timeoutMs });
  const schema = new SchemaService(node, new ChunkSummaries(queries.columns), queries.gate, queries.timeoutMs);
  const storedEvents = { node, columns: queries.columns, gate: queries.gate };
  // Ask's tools run through these same services, with the caller's token claims.
  const askAgent = ask === null ? null : new AskAgent(new OpenAiChatModel(ask), new AskTools(queries, sql, schema), ask.timeoutMs);
  return new Elysia({ name: `region-${node.code}`, prefix })
    .onError(regionErrorHandler)
    .get("/health", () => {
      const { status, body } = node.healthReply();
      return jsonResponse(status, body);
    })
    .post("/internal/keys", async ({ request }) => {
      checkRegionSecret(request, regionSecret);
      const body = validateBody<typeof KeySyncRequest.static>(KeySyncRequest, await readJsonBody(request, internalKeysBodyBytesMax));
      const unknownZone = body.keys.find((key) => key.timeZone !== undefined && !isTimeZone(key.timeZone));
      if (unknownZone) throw badRequest(`timeZone ${unknownZone.timeZone} is not an IANA time zone`);
      node.store.upsertKeys(body.keys.map((key) => ({ ...key, timeZone: key.timeZone ?? "UTC" })));
      return new Response(null, { status: 204 });
    }, { parse: "none" })
    .post("/internal/token-revocations", async ({ request }) => {
      checkRegionSecret(request, regionSecret);
      const body = validateBody<typeof TokenRevocationRequest.static>(TokenRevocationRequest, await readJsonBody(request, internalKeysBodyBytesMax));
      if (body.revocations.some((revocation) => subjectKeys(revocation).length === 0)) throw badRequest("a revocation must name a project, a member (orgId and userId) or an access token");
      node.store.tokenRevocations.add(body.revocations);
      return new Response(null, { status: 204 });
    }, { parse: "none" })
    .put("/internal/ingest-policy/:project_id", async ({ request, params }) => {
      checkRegionSecret(request, regionSecret);
      if (!projectIdPattern.test(params.project_id)) throw new ApiError(404, "not_found", "project not found");
      const body = validateBody<typeof IngestPolicyRequest.static>(IngestPolicyRequest, await readJsonBody(request, internalKeysBodyBytesMax));
      const policy = node.setKeepRatio(params.project_id, body.keep_ratio);
      return jsonResponse(200, { project_id: policy.projectId, keep_ratio: policy.keepRatio, updated_at: policy.updatedAt });
    }, { parse: "none" })
    .put("/internal/pii-properties/:project_id", async ({ request, params }) => {
      checkRegionSecret(request, regionSecret);
      if (!projectIdPattern.test(params.project_id)) throw new ApiError(404, "not_found", "project not found");
      const body = validateBody<typeof PiiPropertiesRequest.static>(PiiPropertiesRequest, await readJsonBody(request, internalKeysBodyBytesMax));
      const names = [...new Set(body.names)].sort();
      node.store.directory.setPiiProperties(params.project_id, names);
      return jsonResponse(200, { project_id: params.project_id, names });
    }, { parse: "none" })
    .use(flagInternalRoutes(node, (request) => checkRegionSecret(request, regionSecret)))
    .use(integrationInternalRoutes(node, (request) => checkRegionSecret(request, regionSecret)))
    .use(findingsInternalRoutes(node, (request) => checkRegionSecret(request, regionSecret)))
    .use(usageRoutes(node, (request) => checkRegionSecret(request, regionSecret)))
    .use(erasureRoutes(erasures, (request) => checkRegionSecret(request, regionSecret)))
    .use(queryRoutes(queries, check))
    .use(experimentStatsRoutes(node, queries, check))
    .use(sqlRoutes(sql, check))
    .use(schemaRoutes(schema, node.store.directory, check))
    .use(personsRoutes(node, check, queries.columns, queries.gate))
    .use(groupsRoutes(node, check))
    .use(ingestionWarningsRoutes(node, check))
    .use(findingsRoutes(node, check))
    .use(cohortRoutes(node, cohorts, check, (request) => checkRegionSecret(request, regionSecret)))
    .use(liveEventsRoutes(node, check))
    .use(askRoutes({ agent: askAgent, conversations: node.store.askConversations, check }))
    .use(catalogRoutes(node, discovery, check, (request) => checkRegionSecret(request, regionSecret)))
    .use(replayRoutes(node, check, {
      sessionsWithEvent: (claims, event, fromMs, toMs) => sessionsWithEvent(storedEvents, claims, event, fromMs, toMs),
      sessionEvents: (claims, sessionId, fromMs, toMs, limit) => sessionEvents(storedEvents, claims, sessionId, fromMs, toMs, limit),
    }))
    .get("/token", async ({ request }) => {
      const claims = await regionClaims(request, check);
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
