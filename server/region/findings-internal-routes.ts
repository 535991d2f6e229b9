// The control plane's side door for findings (split deployment; in one process the region link
// calls the node directly): PUT /internal/findings takes some projects' whole findings
// configuration (`replace`: all of the region's, any other project's is removed), DELETE
// /internal/findings/{project_id} removes one project's, and POST
// /internal/findings/{project_id}/destinations/{destination_id}/test sends a destination a test
// message through the node's findings dispatcher (503 while it has none).
import { Elysia, t, type TSchema } from "elysia";
import type { TLiteral } from "@sinclair/typebox";
import { ApiError, jsonResponse } from "../http/errors.ts";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import { cadences, destinationKinds, directions, ruleTargetKinds, severities, type TestDeliveryResult } from "../findings/findings-types.ts";
import type { RegionNode } from "./region-node.ts";

/** A full push carries every configured project of the region; the control plane bounds each (docs/findings.md, "Limits"). */
const internalFindingsBodyBytesMax = 64 * 1024 * 1024;

const literals = <T extends string>(values: readonly T[]) => t.Union(values.map((value) => t.Literal(value)) as TLiteral<T>[]);
const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
const Id = t.String({ minLength: 1, maxLength: 64 });

const FindingsProject = t.Object({
  projectId: Id,
  orgId: Id,
  dataId: t.Integer({ minimum: 1 }),
  environment: t.String({ minLength: 1, maxLength: 200 }),
  timeZone: t.String({ minLength: 1, maxLength: 100 }),
  consoleUrl: t.String({ minLength: 1, maxLength: 2048 }),
  destinations: t.Array(t.Object({
    id: Id,
    kind: literals(destinationKinds),
    name: t.String(),
    enabled: t.Boolean(),
    min_severity: literals(severities),
    config: t.Object({ to: t.Array(t.String()), channel: nullable(t.String()) }),
    secret: nullable(t.String()),
    signing_secret: nullable(t.String()),
  })),
  rules: t.Array(t.Object({
    id: Id,
    name: t.String(),
    cadence: literals(cadences),
    enabled: t.Boolean(),
    min_severity: literals(severities),
    destination_ids: t.Array(Id),
    target: t.Object({
      kind: literals(ruleTargetKinds),
      event: t.Optional(t.String()),
      from_event: t.Optional(t.String()),
      to_event: t.Optional(t.String()),
      key: t.Optional(t.String()),
    }),
    thresholds: t.Object({
      direction: literals(directions),
      absolute_change: nullable(t.Number()),
      relative_change: nullable(t.Number()),
      anomaly_z: nullable(t.Number()),
      baseline_weeks: t.Integer({ minimum: 1 }),
      min_volume: t.Number({ minimum: 0 }),
    }),
    daily_cap: nullable(t.Integer({ minimum: 1 })),
  })),
  metrics: t.Array(t.Object({
    key: t.String(),
    name: t.String(),
    kind: t.Union([t.Literal("proportion"), t.Literal("mean")]),
    query: t.Record(t.String(), t.Unknown()),
    unit: nullable(t.String()),
  })),
});

const FindingsRequest = t.Object({ projects: t.Array(FindingsProject), replace: t.Boolean() });

/** An error thrown with a status and a code (ApiError, or the dispatcher's RegionRefusal) as an ApiError; null for any other. */
function asApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  const { status, code, message } = (error ?? {}) as { status?: unknown; code?: unknown; message?: unknown };
  return typeof status === "number" && typeof code === "string" && typeof message === "string" ? new ApiError(status, code, message) : null;
}

/** Sends the destination a test message through the node's dispatcher; ApiError 503 while the node has none, or the dispatcher's refusal. */
export async function sendFindingsTest(node: RegionNode, projectId: string, destinationId: string): Promise<TestDeliveryResult> {
  if (!node.findings) throw new ApiError(503, "unavailable", `findings delivery is not running in region ${node.code}`);
  try {
    return await node.findings.sendTest(projectId, destinationId);
  } catch (error) {
    throw asApiError(error) ?? error;
  }
}

export function findingsInternalRoutes(node: RegionNode, checkSecret: (request: Request) => void) {
  return new Elysia({ name: `region-findings-internal-${node.code}` })
    .put("/internal/findings", async ({ request }) => {
      checkSecret(request);
      const body = validateBody<typeof FindingsRequest.static>(FindingsRequest, await readJsonBody(request, internalFindingsBodyBytesMax));
      if (body.replace) node.store.findingsConfig.replaceAll(body.projects);
      else node.store.findingsConfig.upsert(body.projects);
      return new Response(null, { status: 204 });
    }, { parse: "none" })
    .delete("/internal/findings/:project_id", ({ request, params }) => {
      checkSecret(request);
      node.store.findingsConfig.delete(params.project_id);
      return new Response(null, { status: 204 });
    })
    .post("/internal/findings/:project_id/destinations/:destination_id/test", async ({ request, params }) => {
      checkSecret(request);
      return jsonResponse(200, await sendFindingsTest(node, params.project_id, params.destination_id));
    }, { parse: "none" });
}
