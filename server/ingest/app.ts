// The ingest surface of one region, mounted at /ingest/{code}. Errors use the ingest shape
// {error: "<message>"} and every response, errors and preflights included, carries CORS
// headers without credentials (SDKs post from any web origin).
import { Elysia } from "elysia";
import { toApiError } from "../http/elysia-errors.ts";
import { logInternalError, type ApiError } from "../http/errors.ts";
import type { RegionNode } from "../region/region-node.ts";
import { captureNative } from "./capture.ts";

export const corsHeaders = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, Content-Encoding, Authorization, X-Requested-With",
  "Access-Control-Max-Age": "86400",
};

const ingestJson = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...corsHeaders, ...headers } });

/** An operating error in the ingest shape: {error: "<message>"} with CORS headers. */
export const ingestErrorResponse = (error: ApiError) => ingestJson(error.status, { error: error.message }, error.headers);

export function ingestApp({ prefix, node, trustProxy }: { prefix: string; node: RegionNode; trustProxy: boolean }) {
  const capture = async ({ request }: { request: Request }) => ingestJson(200, await captureNative(node, request, trustProxy));
  return new Elysia({ name: `ingest-${node.code}`, prefix })
    .onError((context) => {
      const apiError = toApiError(context);
      if (!apiError) {
        logInternalError(context.error);
        return ingestJson(500, { error: "internal error" });
      }
      return ingestErrorResponse(apiError);
    })
    .options("/*", () => new Response(null, { status: 204, headers: corsHeaders }))
    .post("/e", capture, { parse: "none" })
    .post("/e/", capture, { parse: "none" })
    .post("/batch", capture, { parse: "none" })
    .post("/batch/", capture, { parse: "none" })
    .get("/health", () => {
      const { status, body } = node.healthReply();
      return ingestJson(status, body);
    });
}
