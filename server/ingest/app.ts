// The ingest surface of one region, mounted at /ingest/{code}. Errors use the ingest shape
// {error: "<message>"} and every response, errors and preflights included, carries CORS
// headers without credentials (SDKs post from any web origin).
import { Elysia } from "elysia";
import { toApiError } from "../http/elysia-errors.ts";
import { ApiError, logInternalError } from "../http/errors.ts";
import type { RegionNode } from "../region/region-node.ts";
import { authenticate, captureNative, isNativeBody } from "./capture.ts";
import { decodeIngestBody } from "./decode-body.ts";
import { capturePostHog } from "./posthog/capture.ts";
import { remoteConfig, remoteConfigScript } from "./posthog/remote-config.ts";
import { captureSegment } from "./segment/capture.ts";
import { addFlagRoutes, EnvironmentFlags } from "./flags/flag-routes.ts";
import type { SegmentCall } from "./segment/map-calls.ts";
import { ingestUrlBytesMax } from "./limits.ts";
import { captureReplay } from "./replay/capture-replay.ts";
import { FlagGate } from "./flags/flag-gate.ts";
import { SessionVerdicts } from "./replay/replay-sampling.ts";
import { handleWebhook } from "./revenue/webhook-route.ts";
import { revenueProviderModules } from "./revenue/providers/index.ts";
import type { RevenueProvider, RevenueProviderModule } from "./revenue/provider.ts";

/** The customer-data platform's paths: each call by name and by its one-letter short form; null is a batch. */
const segmentPaths: [string, SegmentCall | null][] = [
  ["track", "track"], ["t", "track"], ["identify", "identify"], ["i", "identify"], ["page", "page"], ["p", "page"],
  ["screen", "screen"], ["s", "screen"], ["group", "group"], ["g", "group"], ["alias", "alias"], ["a", "alias"],
  ["batch", null], ["b", null], ["import", null],
];

/**
 * Where SDKs post events: the native API's /e and /batch, and PostHog's capture paths. Each
 * takes POST (and GET with a `data` parameter), with or without a trailing slash.
 */
const capturePaths = ["/e", "/batch", "/capture", "/i/v0/e", "/track", "/engage"];

export const corsHeaders = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, Content-Encoding, Authorization, X-Requested-With",
  "Access-Control-Max-Age": "86400",
  // A 429 or 503 tells the client when to retry; a browser shows a script only the CORS-safelisted
  // response headers unless the answer exposes others.
  "Access-Control-Expose-Headers": "Retry-After",
};

/**
 * A preflight's answer allows the headers the browser asks for, not a fixed list: SDKs add their
 * own (RudderStack's sends `AnonymousId`), and no answer carries credentials.
 */
const preflightResponse = (request: Request) => {
  const asked = request.headers.get("access-control-request-headers");
  return new Response(null, { status: 204, headers: asked ? { ...corsHeaders, "Access-Control-Allow-Headers": asked } : corsHeaders });
};

const ingestJson = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...corsHeaders, ...headers } });

/** An operating error in the ingest shape: {error: "<message>"} with CORS headers. */
export const ingestErrorResponse = (error: ApiError) => ingestJson(error.status, { error: error.message }, error.headers);

/**
 * A request under /ingest/ for a region this server does not run: SDKs pointed at the wrong
 * region see why, in the ingest shape with CORS (a preflight too, so a browser can read it).
 */
export function unservedIngestRegionResponse(request: Request, path: string): Response {
  if (request.method === "OPTIONS") return preflightResponse(request);
  const region = path.split("/")[2] ?? "";
  return ingestJson(404, { error: region ? `region ${region} is not served here` : "no such route" });
}

/** Whatever a request ended with, in the ingest shape; an unexpected error is logged and answered 500. */
function ingestErrorAnswer(context: { code: string | number; error: unknown }): Response {
  const apiError = toApiError(context);
  if (apiError) return ingestErrorResponse(apiError);
  logInternalError(context.error);
  return ingestJson(500, { error: "internal error" });
}

const urlTooLong = new ApiError(414, "uri_too_long", `request URL is longer than ${ingestUrlBytesMax} bytes; send the events in a POST body`);

export interface IngestAppOptions {
  prefix: string;
  node: RegionNode;
  trustProxy: boolean;
  /** The revenue webhook modules served at /wh/{provider}/{token} (default: those that need no setting). */
  revenueModules?: ReadonlyMap<RevenueProvider, RevenueProviderModule>;
}

export function ingestApp({ prefix, node, trustProxy, revenueModules = revenueProviderModules() }: IngestAppOptions) {
  // The body decides the format: a native batch (every event has `lib`) or PostHog's.
  const capture = async ({ request }: { request: Request }) => {
    const receivedAt = Date.now();
    const url = new URL(request.url);
    const decoded = await decodeIngestBody(request, url);
    const reply = isNativeBody(decoded.json)
      ? await captureNative(node, request, trustProxy, decoded, receivedAt)
      : await capturePostHog(node, request, trustProxy, { ...decoded, query: url.searchParams }, receivedAt);
    return ingestJson(200, reply);
  };
  const environments = new EnvironmentFlags(node);
  const configOf = (token: string, request: Request) => {
    const key = authenticate(node, token, request.headers.get("origin"));
    return remoteConfig(key.key, environments.of(key).definitions.some((flag) => flag.enabled));
  };
  const app = new Elysia({ name: `ingest-${node.code}`, prefix })
    // Destructured on purpose: Elysia reads which context fields the hooks use from their source,
    // and a hook taking the whole context made every ingest route parse cookies and rebuild each
    // answer around a stream of its body (measured on flag requests).
    .onError(({ code, error }) => ingestErrorAnswer({ code, error }))
    .options("/*", ({ request }) => preflightResponse(request))
    .get("/array/:token/config", ({ params, request }) => ingestJson(200, configOf(params.token, request)))
    .get("/array/:token/config.js", ({ params, request }) =>
      new Response(remoteConfigScript(configOf(params.token, request)), { headers: { "Content-Type": "application/javascript", ...corsHeaders } }),
    )
    .get("/health", () => {
      const { status, body } = node.healthReply();
      return ingestJson(status, body);
    });
  // Routes added to the app in place (Elysia registers as it goes; the returned types only grow).
  for (const path of capturePaths) {
    for (const route of [path, `${path}/`]) {
      app.post(route, capture, { parse: "none" });
      app.get(route, capture);
    }
  }
  addFlagRoutes(app as unknown as Elysia, node, environments, ingestJson, corsHeaders);
  const recording = { gate: new FlagGate(node, environments), verdicts: new SessionVerdicts() };
  for (const route of ["/r", "/r/"]) {
    app.post(route, async ({ request }) => {
      const receivedAt = Date.now();
      const decoded = await decodeIngestBody(request, new URL(request.url));
      return ingestJson(200, await captureReplay(node, recording, request, decoded, receivedAt));
    }, { parse: "none" });
  }
  // Revenue webhooks from payment and subscription providers and the app stores (docs/revenue.md).
  app.post("/wh/:provider/:token", ({ request, params }) => handleWebhook(node, revenueModules, request, params.provider, params.token), { parse: "none" });
  for (const [path, call] of segmentPaths) {
    app.post(`/v1/${path}`, async ({ request }) => ingestJson(200, await captureSegment(node, request, trustProxy, call)), { parse: "none" });
  }

  // Event posts are most of the traffic: they go straight to capture, with the same answers
  // and errors as the app's route, without Elysia's routing and per-request context (measured:
  // a tenth of the request thread's time per batch of 100 events went there).
  const capturePosts = new Set(capturePaths.flatMap((path) => [`${prefix}${path}`, `${prefix}${path}/`]));
  const capturePost = async (request: Request): Promise<Response> => {
    try {
      return await capture({ request });
    } catch (error) {
      // What Elysia would call it: an error of the handler, not of routing or parsing.
      return ingestErrorAnswer({ code: "UNKNOWN", error });
    }
  };
  return {
    app,
    /** Answers a request to this surface; `path` is its URL's path. */
    handle: (request: Request, path: string): Promise<Response> | Response => {
      // A preflight is answered whatever its URL, so that the browser sends the request and its script can read why it failed.
      if (request.url.length > ingestUrlBytesMax && request.method !== "OPTIONS") return ingestErrorResponse(urlTooLong);
      return request.method === "POST" && capturePosts.has(path) ? capturePost(request) : app.handle(request);
    },
  };
}
