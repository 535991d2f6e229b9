// POST /cohorts/preview (cohorts:read), POST /cohorts/{id}/materialize and POST
// /cohorts/{id}/static (cohorts:write), and the control plane's POST
// /internal/cohorts/materialize (region secret; what RegionLink.materializeCohort calls in a
// split deployment). Bodies are not shown in the spec; docs/cohorts.md decides them. Project,
// data id and environment come from the token, or for the internal route from the key registry.
import { Elysia, t } from "elysia";
import { Type } from "@sinclair/typebox";
import { CohortId, CohortDefinitionSchema } from "../../engine/cohorts/definition.ts";
import { distinctIdLengthMax } from "../ingest/limits.ts";
import { requireUuid } from "../control/ids.ts";
import { readJsonBody } from "../http/body.ts";
import { jsonResponse } from "../http/errors.ts";
import { validateBody } from "../http/validate.ts";
import { requestDefinition, type CohortService, type CohortTarget } from "./cohort-service.ts";
import { personDto, propertyView } from "./persons-routes.ts";
import type { RegionClaims } from "./region-auth.ts";
import type { RegionNode } from "./region-node.ts";
import { badRequest, regionAccess, type RegionTokenCheck } from "./region-access.ts";

/** A definition of 100 criteria with long value lists fits; larger bodies are refused unread. */
export const cohortBodyBytesMax = 256 * 1024;
export const cohortPreviewSampleDefault = 10;
export const cohortPreviewSampleMax = 100;
/** Persons one POST /cohorts/{id}/static names at most, added and removed together. */
export const staticCohortPersonsPerCallMax = 1000;

const uuidPattern = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

// Integers are TypeBox's own: Elysia's t.Integer also takes numeric strings, and says only "Expected union value".
const PreviewRequest = t.Object({
  definition: t.Unknown({ description: "a cohort definition (CohortDefinitionSchema)" }),
  sample_size: t.Optional(Type.Integer({ minimum: 0, maximum: cohortPreviewSampleMax })),
}, { additionalProperties: false });

const MaterializeBody = {
  kind: t.Union([t.Literal("dynamic"), t.Literal("static")]),
  version: Type.Integer({ minimum: 1 }),
  definition: t.Union([t.Object({}, { additionalProperties: true }), t.Null()]),
};
const MaterializeRequest = t.Object(MaterializeBody, { additionalProperties: false });
const InternalMaterializeRequest = t.Object({
  project_id: t.String({ pattern: uuidPattern }),
  environment: t.String({ minLength: 1, maxLength: 64 }),
  cohort_id: CohortId,
  ...MaterializeBody,
}, { additionalProperties: false });

const PersonIdentifier = t.Union([
  t.Object({ distinct_id: t.String({ minLength: 1, maxLength: distinctIdLengthMax }) }, { additionalProperties: false }),
  t.Object({ person_id: t.String({ pattern: uuidPattern }) }, { additionalProperties: false }),
]);
const StaticRequest = t.Object({
  add: t.Optional(t.Array(PersonIdentifier, { maxItems: staticCohortPersonsPerCallMax })),
  remove: t.Optional(t.Array(PersonIdentifier, { maxItems: staticCohortPersonsPerCallMax })),
}, { additionalProperties: false });

/** The schema of the definitions these routes take, served for clients (it is also in the control plane's /openapi.json). */
export const cohortDefinitionSchemaPath = "/schema/cohort-definition";

const tokenTarget = (claims: RegionClaims): CohortTarget => ({ projectId: claims.projectId, dataId: claims.dataId, environment: claims.environment });

export function cohortRoutes(node: RegionNode, cohorts: CohortService, check: RegionTokenCheck, checkSecret: (request: Request) => void) {
  return new Elysia({ name: `region-cohorts-${node.code}` })
    .get(cohortDefinitionSchemaPath, () => jsonResponse(200, CohortDefinitionSchema))
    .post("/cohorts/preview", async ({ request }) => {
      const claims = await regionAccess(request, check, "cohorts:read");
      const body = validateBody<typeof PreviewRequest.static>(PreviewRequest, await readJsonBody(request, cohortBodyBytesMax));
      const members = await cohorts.evaluate(tokenTarget(claims), requestDefinition(body.definition));
      const view = propertyView(node, claims);
      // The newest persons first, as GET /persons lists them.
      const sampled = [...members.subarray(Math.max(0, members.length - (body.sample_size ?? cohortPreviewSampleDefault)))].reverse();
      const sample = sampled.map((index) => personDto(node, node.store.directory.person(claims.projectId, index)!, view));
      return jsonResponse(200, { size: members.length, sample });
    }, { parse: "none" })
    .post("/cohorts/:id/materialize", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "cohorts:write");
      const cohortId = requireUuid(params.id, "cohort");
      const body = validateBody<typeof MaterializeRequest.static>(MaterializeRequest, await readJsonBody(request, cohortBodyBytesMax));
      return jsonResponse(200, await cohorts.materialize(tokenTarget(claims), cohortId, body));
    }, { parse: "none" })
    .post("/cohorts/:id/static", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "cohorts:write");
      const cohortId = requireUuid(params.id, "cohort");
      const body = validateBody<typeof StaticRequest.static>(StaticRequest, await readJsonBody(request, cohortBodyBytesMax));
      const named = (body.add?.length ?? 0) + (body.remove?.length ?? 0);
      if (named === 0) throw badRequest("add or remove must name at least one person");
      if (named > staticCohortPersonsPerCallMax) throw badRequest(`a call names at most ${staticCohortPersonsPerCallMax} persons (add and remove together); this one names ${named}`);
      return jsonResponse(200, cohorts.editStatic(tokenTarget(claims), cohortId, body));
    }, { parse: "none" })
    .post("/internal/cohorts/materialize", async ({ request }) => {
      checkSecret(request);
      const body = validateBody<typeof InternalMaterializeRequest.static>(InternalMaterializeRequest, await readJsonBody(request, cohortBodyBytesMax));
      return jsonResponse(200, await cohorts.materializeRequested(body));
    }, { parse: "none" });
}
