// Flag evaluation on the ingest surface (spec 2): our own POST /flags, PostHog's /flags?v=2 and
// /decide?v=1..4 in the shape each version expects, and GET /flags/definitions (also at
// PostHog's older /api/feature_flag/local_evaluation) for local evaluation with a flag secret
// key, answered 304 when the SDK's ETag is current. A request is PostHog's when it names a
// version or sends `token`; ours sends `api_key` and no version.
import type { Elysia } from "elysia";
import { posthogDecideV1Response, posthogDecideV2Response, posthogLegacyResponse } from "../../../engine/flags/responses.ts";
import { ApiError } from "../../http/errors.ts";
import { sha256Hex } from "../../crypto.ts";
import type { RegionNode } from "../../region/region-node.ts";
import type { RegistryKey } from "../../../storage/region-store.ts";
import type { FlagSnapshot } from "../../../storage/flag-store.ts";
import { authenticate } from "../capture.ts";
import { decodeIngestBody } from "../decode-body.ts";
import { isPlainObject } from "../json-values.ts";
import { CompiledFlagCache, type CompiledFlags } from "./flag-definitions.ts";
import { parseFlagRequest, projectGroupTypes, RequestSubject } from "./flag-request.ts";
import { StoredProperties } from "./stored-properties.ts";
import { FlagCohortMemberships } from "./cohort-memberships.ts";

type Json = (status: number, body: unknown, headers?: Record<string, string>) => Response;

const decideVersions = new Set(["1", "2", "3", "4"]);
const flagsVersions = new Set(["1", "2"]);

/** The flags of a key's environment (none before its first publication), compiled. */
export class EnvironmentFlags {
  private readonly cache = new CompiledFlagCache();
  /** Stand-ins for environments nothing was published to yet (one object each, so the cache holds). */
  private readonly empty = new Map<string, FlagSnapshot>();

  constructor(private readonly node: RegionNode) {}

  of(key: RegistryKey): CompiledFlags {
    const envKey = `${key.projectId}\u0000${key.environment}`;
    let snapshot = this.node.store.flags.snapshot(key.projectId, key.environment) ?? this.empty.get(envKey);
    if (!snapshot) {
      snapshot = { project_id: key.projectId, data_id: key.dataId, environment: key.environment, version: 0, checksum: "", flags: [] };
      this.empty.set(envKey, snapshot);
    }
    return this.cache.get(snapshot, projectGroupTypes(this.node, key.projectId));
  }
}

/** Adds the flag routes to the ingest app (in place, so its error handler answers their errors). */
export function addFlagRoutes(app: Elysia, node: RegionNode, environments: EnvironmentFlags, json: Json, corsHeaders: Record<string, string>): void {
  const stored = new StoredProperties(node.store);
  const memberships = new FlagCohortMemberships(node.store);

  const evaluate = async (request: Request, url: URL) => {
    const body = (await decodeIngestBody(request, url)).json;
    const parsed = parseFlagRequest(body);
    const key = authenticate(node, parsed.apiKey, request.headers.get("origin"));
    const compiled = environments.of(key);
    const subject = new RequestSubject(stored, key.projectId, parsed, compiled.groupTypes, (cohortId) => memberships.has(key.projectId, key.environment, cohortId, parsed.distinctId));
    return { body, compiled, outcomes: compiled.evaluator.evaluate(subject, parsed.keys) };
  };

  const posthogOptions = (includeConfig: boolean) => ({ requestId: crypto.randomUUID(), evaluatedAtMs: Date.now(), includeConfig });

  const flags = async ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    const version = url.searchParams.get("v");
    if (version !== null && !flagsVersions.has(version)) throw new ApiError(400, "validation", `/flags takes v=2 (or no v); got v=${version}`);
    const { body, compiled, outcomes } = await evaluate(request, url);
    const native = version === null && isPlainObject(body) && body.api_key !== undefined && body.token === undefined;
    if (native) return text200(compiled.writer.native(outcomes));
    const includeConfig = url.searchParams.get("config") === "true";
    if (version === "2") return text200(compiled.writer.posthogV2(outcomes, posthogOptions(includeConfig)));
    return json200(posthogLegacyResponse(compiled.evaluator.resultsOf(outcomes), posthogOptions(includeConfig)));
  };
  const json200 = (body: unknown) => json(200, body);
  // One init for every answer (a Response copies its headers).
  const answerInit = { status: 200, headers: new Headers({ "Content-Type": "application/json", ...corsHeaders }) };
  const text200 = (body: string) => new Response(body, answerInit);

  const decide = async ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    const version = url.searchParams.get("v") ?? "1";
    if (!decideVersions.has(version)) throw new ApiError(400, "validation", `/decide takes v=1 to 4; got v=${version}`);
    const { compiled, outcomes } = await evaluate(request, url);
    const options = posthogOptions(true);
    if (version === "4") return text200(compiled.writer.posthogV2(outcomes, options));
    const results = compiled.evaluator.resultsOf(outcomes);
    if (version === "3") return json200(posthogLegacyResponse(results, options));
    if (version === "2") return json200(posthogDecideV2Response(results, options));
    return json200(posthogDecideV1Response(results, options));
  };

  const definitions = ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    const key = authenticate(node, url.searchParams.get("token") ?? url.searchParams.get("api_key"), request.headers.get("origin"));
    const secret = /^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    if (!secret) throw new ApiError(401, "unauthorized", "flag definitions need a flag secret key (Authorization: Bearer svc_fsk_...)");
    const entry = node.store.flags.findSecretKey(sha256Hex(secret));
    if (!entry || entry.revokedAt !== null || entry.projectId !== key.projectId || entry.environment !== key.environment) {
      throw new ApiError(401, "unauthorized", "the flag secret key is unknown, revoked, or not one of this key's environment");
    }
    const compiled = environments.of(key);
    const headers = { ETag: compiled.etag, "Cache-Control": "no-cache" };
    if (request.headers.get("if-none-match") === compiled.etag) return new Response(null, { status: 304, headers: { ...corsHeaders, ...headers } });
    return new Response(compiled.posthogBody, { status: 200, headers: { "Content-Type": "application/json", ...corsHeaders, ...headers } });
  };

  for (const path of ["/flags", "/flags/"]) app.post(path, flags, { parse: "none" });
  for (const path of ["/decide", "/decide/"]) app.post(path, decide, { parse: "none" });
  for (const path of ["/flags/definitions", "/flags/definitions/", "/api/feature_flag/local_evaluation", "/api/feature_flag/local_evaluation/"]) app.get(path, definitions);
}
