// A /v1 route is declared once: method, path, scope, schemas and handler. mountV1Routes
// turns the declarations into routes with the cross-cutting behaviour of every /v1 call
// (bearer auth, per-token limits, dry_run, Idempotency-Key, audit), declared in the
// contract (contract/operation.ts) with the parameters and answers that behaviour adds.
import type { TSchema } from "elysia";
import { ApiError, errorResponse, jsonResponse, rateLimited } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import type { Principal } from "../access.ts";
import { authenticateBearer } from "../services/access-tokens.ts";
import { applyWrite, isDryRun, previewWrite, type WritePlan } from "../services/audited-write.ts";
import { validateBody } from "../../http/validate.ts";
import { finishIdempotent, parseIdempotencyKey, requestFingerprint, startIdempotent } from "../services/idempotency.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { withDryRun, type HttpMethod, type OperationDoc, type ParameterDoc, type ResponseDoc } from "../contract/operation.ts";

export interface V1Reply {
  status: number;
  body?: unknown;
}

/** What a write handler returns: the plan, and how to answer once it is applied. */
export interface V1Write<T> {
  plan: WritePlan<T>;
  respond(result: T): V1Reply | Promise<V1Reply>;
}

export interface V1Call {
  principal: Principal & { kind: "token" };
  params: Record<string, string>;
  query: URLSearchParams;
  body: any;
}

interface V1RouteBase {
  method: HttpMethod;
  /** OpenAPI form: /v1/projects/{project_id} */
  path: string;
  operationId: string;
  summary: string;
  /** Scope the route requires; null = any valid token. */
  scope: string | null;
  /** Query parameters the route reads. */
  parameters?: ParameterDoc[];
  body?: TSchema;
  /** The body may be left out entirely (every field optional); it is then `{}`. */
  bodyOptional?: true;
  /** Writes also answer 200 DryRun with dry_run; that answer is added for them. */
  responses: Record<number, ResponseDoc>;
  /** false: served but left out of /openapi.json (spec 1: flags and experiments are absent from the contract). */
  contract?: false;
}

export interface V1ReadRoute extends V1RouteBase {
  write: false;
  /** A Response is sent as it is (an answer that is not JSON, like codegen's TypeScript). */
  handle(call: V1Call): V1Reply | Response | Promise<V1Reply | Response>;
}

export interface V1WriteRoute extends V1RouteBase {
  write: true;
  /** May read before planning (an experiment ship reads its results first). */
  handle(call: V1Call): V1Write<any> | Promise<V1Write<any>>;
}

export type V1Route = V1ReadRoute | V1WriteRoute;

export const replayedHeader = "Idempotent-Replayed";

function parseBody(route: V1Route, body: unknown): unknown {
  if (!route.body) return body;
  if (body === undefined && route.bodyOptional) return {};
  return validateBody(route.body, body);
}


async function runWrite(ctx: ControlContext, route: V1WriteRoute, call: V1Call, dryRun: boolean): Promise<V1Reply> {
  const outcome = await route.handle(call);
  if (dryRun) return { status: 200, body: previewWrite(outcome.plan) };
  const verdict = ctx.limiters.tokenWrites.take(call.principal.token.id);
  if (!verdict.allowed) throw rateLimited(verdict.retryAfterSeconds, "write limit per token exceeded");
  const result = applyWrite(ctx, call.principal, outcome.plan);
  return outcome.respond(result);
}

async function settle(work: () => Promise<V1Reply>): Promise<{ reply: V1Reply; headers: Record<string, string> }> {
  try {
    return { reply: await work(), headers: {} };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { reply: { status: error.status, body: { error: { code: error.code, message: error.message } } }, headers: error.headers };
  }
}

async function handleV1(ctx: ControlContext, route: V1Route, request: Request, params: Record<string, string>, body: unknown): Promise<Response> {
  const principal = authenticateBearer(ctx, request.headers.get("authorization"));
  const calls = ctx.limiters.tokenCalls.take(principal.token.id);
  if (!calls.allowed) throw rateLimited(calls.retryAfterSeconds, "call limit per token exceeded");
  const url = new URL(request.url);
  const call: V1Call = { principal, params, query: url.searchParams, body: parseBody(route, body) };
  if (!route.write) {
    const reply = await route.handle(call);
    return reply instanceof Response ? reply : jsonResponse(reply.status, reply.body);
  }
  const dryRun = isDryRun(url.searchParams.get("dry_run"));
  const key = parseIdempotencyKey(request.headers.get("idempotency-key"));
  if (key === null) {
    const reply = await runWrite(ctx, route, call, dryRun);
    return jsonResponse(reply.status, reply.body);
  }
  const fingerprint = requestFingerprint(route.method, url.pathname, url.search, body);
  const start = startIdempotent(ctx, principal.token.id, key, fingerprint);
  if (start.kind === "replay") return jsonResponse(start.status, start.body, { [replayedHeader]: "true" });
  let settled: Awaited<ReturnType<typeof settle>>;
  try {
    settled = await settle(() => runWrite(ctx, route, call, dryRun));
  } catch (error) {
    finishIdempotent(ctx, principal.token.id, key, 500, undefined);
    throw error;
  }
  // A 429 says "not now", not "this is the answer": keep the key free for the retry.
  const keep = settled.reply.status === 429 ? 500 : settled.reply.status;
  finishIdempotent(ctx, principal.token.id, key, keep, settled.reply.body);
  return jsonResponse(settled.reply.status, settled.reply.body, settled.headers);
}

function v1Doc(route: V1Route): OperationDoc {
  const doc: OperationDoc = {
    operationId: route.operationId,
    summary: route.summary,
    security: "bearer",
    scope: route.scope,
    ...(route.parameters ? { parameters: route.parameters } : {}),
    body: route.body,
    responses: route.responses,
    ...(route.bodyOptional ? { bodyOptional: true as const } : {}),
    ...(route.contract === false ? { contract: false as const } : {}),
  };
  return route.write ? withDryRun(doc, true) : doc;
}

export function mountV1Routes(routes: ContractRouteTable, ctx: ControlContext, v1: V1Route[]) {
  for (const route of v1) {
    routes.add(route.method, route.path, v1Doc(route), ({ request, params, body }) =>
      handleV1(ctx, route, request, params, body).catch((error) => {
        if (error instanceof ApiError) return errorResponse(error);
        throw error;
      }),
    );
  }
  return routes;
}
