// The tracking plan's routes of a region (docs/catalog.md): GET /catalog/discovery for region
// tokens with catalog:read (project and environment from the token; query `days`, 0 to
// discoveryDaysMax, default discoveryDaysDefault), and the control plane's side door for a split
// deployment (in one process the region link calls the node directly): POST
// /internal/catalog/discovery asks the same for a project environment, POST
// /internal/catalog/plan takes a project's plan.
import { Elysia, t } from "elysia";
import { Type } from "@sinclair/typebox";
import { jsonResponse } from "../http/errors.ts";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import type { CatalogPlan } from "../../storage/catalog-plan-store.ts";
import { discoveryDaysDefault, discoveryDaysMax, type CatalogDiscovery } from "./catalog-discovery.ts";
import { badRequest, regionAccess, type RegionTokenCheck } from "./region-access.ts";
import type { RegionNode } from "./region-node.ts";

const internalDiscoveryBodyBytesMax = 4 * 1024;
/** A plan of the catalog's largest size (1,000 events of 100 properties with long names) fits. */
const internalPlanBodyBytesMax = 64 * 1024 * 1024;

const Days = Type.Integer({ minimum: 0, maximum: discoveryDaysMax });

const DiscoveryRequest = t.Object({
  project_id: t.String({ minLength: 1, maxLength: 64 }),
  data_id: Type.Integer({ minimum: 1 }),
  environment: t.String({ minLength: 1, maxLength: 100 }),
  days: Days,
}, { additionalProperties: false });

const PropertyType = t.Union(["string", "number", "boolean", "datetime", "object", "array", "any"].map((type) => t.Literal(type)));
const PlanRequest = t.Object({
  projectId: t.String({ minLength: 1, maxLength: 64 }),
  catalogVersion: Type.Integer({ minimum: 0 }),
  warnOnViolations: t.Boolean(),
  events: t.Array(t.Object({
    name: t.String({ minLength: 1 }),
    status: t.Union(["planned", "implemented", "verified", "deprecated"].map((status) => t.Literal(status))),
    properties: t.Array(t.Object({
      name: t.String({ minLength: 1 }),
      type: PropertyType,
      required: t.Boolean(),
      enumValues: t.Union([t.Array(t.String()), t.Null()]),
    })),
  })),
  piiProperties: t.Array(t.String({ minLength: 1 })),
});

/** `days` of the query string: an integer from 0 to discoveryDaysMax, discoveryDaysDefault when absent. */
function daysParam(query: URLSearchParams): number {
  const given = query.get("days");
  if (given === null) return discoveryDaysDefault;
  const days = Number(given);
  if (!/^\d+$/.test(given) || days > discoveryDaysMax) throw badRequest(`days must be an integer from 0 to ${discoveryDaysMax}`);
  return days;
}

export function catalogRoutes(node: RegionNode, discovery: CatalogDiscovery, check: RegionTokenCheck, checkSecret: (request: Request) => void) {
  return new Elysia({ name: `region-catalog-${node.code}` })
    .get("/catalog/discovery", async ({ request }) => {
      const claims = await regionAccess(request, check, "catalog:read");
      return jsonResponse(200, await discovery.discover(claims, daysParam(new URL(request.url).searchParams)));
    })
    .post("/internal/catalog/discovery", async ({ request }) => {
      checkSecret(request);
      const body = validateBody<typeof DiscoveryRequest.static>(DiscoveryRequest, await readJsonBody(request, internalDiscoveryBodyBytesMax));
      return jsonResponse(200, await discovery.discover({ projectId: body.project_id, dataId: body.data_id, environment: body.environment }, body.days));
    }, { parse: "none" })
    .post("/internal/catalog/plan", async ({ request }) => {
      checkSecret(request);
      node.publishCatalog(validateBody<CatalogPlan>(PlanRequest, await readJsonBody(request, internalPlanBodyBytesMax)));
      return new Response(null, { status: 204 });
    }, { parse: "none" });
}
