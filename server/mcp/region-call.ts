// Region data reaches a tool the way it reaches the console: a region token minted for the
// caller (its regional scopes intersected with the owner's role, narrowed to what the call
// needs) and an HTTP request to the project's region_api_url. Nothing read is kept here.
import { ApiError, unavailable } from "../http/errors.ts";
import type { ControlContext } from "../control/context.ts";
import type { ProjectAccess } from "../control/access.ts";
import { issueRegionToken } from "../control/services/region-tokens.ts";

/** How much longer than the region's own query time-out (after which it answers 422) a call waits. */
export const regionAnswerMarginMs = 10_000;

export interface RegionRequest {
  environment?: string | null;
  /** The one regional scope the route checks. */
  scope: string;
  method: "GET" | "POST";
  /** Path under region_api_url, with its query string. */
  path: string;
  body?: unknown;
}

export async function regionCall(ctx: ControlContext, access: ProjectAccess, request: RegionRequest): Promise<Record<string, unknown>> {
  const token = await issueRegionToken(ctx, access, { environment: request.environment, scopes: [request.scope] });
  let response: Response;
  try {
    response = await fetch(`${token.region_api_url}${request.path}`, {
      method: request.method,
      headers: { Authorization: `Bearer ${token.token}`, ...(request.body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(ctx.config.queryTimeoutMs + regionAnswerMarginMs),
    });
  } catch (error) {
    throw unavailable(`region ${token.region} did not answer: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (response.status === 200 && body) return body;
  const error = body?.error as { code?: unknown; message?: unknown } | undefined;
  const code = typeof error?.code === "string" ? error.code : "unavailable";
  const message = typeof error?.message === "string" ? error.message : `region ${token.region} answered ${response.status}`;
  throw new ApiError(response.status === 200 ? 502 : response.status, code, message);
}
