// /app tracking plan (spec 1, "Console API: projects, annotations, catalog", the catalog rows),
// plus its settings (not in the spec: docs/catalog.md). Reads need catalog:read (viewers hold
// it), writes catalog:write (members and up); writes take `dry_run` and are audited, and each
// write that changes the plan pushes it to the project's region before answering.
import { t } from "elysia";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import type { ProjectAccess } from "../access.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors, withDryRun, type OperationDoc, type ParameterDoc } from "../contract/operation.ts";
import {
  CatalogCodegenExport, CatalogEventCreateRequest, CatalogEventDto, CatalogEventListResponse, CatalogEventUpdateRequest, CatalogSettingsDto,
  CatalogSettingsUpdateRequest, CatalogSyncRequest, CatalogSyncResponse, catalogStatuses,
} from "../catalog/catalog-schemas.ts";
import { catalogSearchLengthMax, getCatalogEvent, listCatalogEvents, planCreateCatalogEvent, planDeleteCatalogEvent, planUpdateCatalogEvent } from "../catalog/catalog-events.ts";
import { planCatalogSync } from "../catalog/catalog-sync.ts";
import { catalogSettingsOf, getCatalogSettings, planUpdateCatalogSettings } from "../catalog/catalog-settings.ts";
import { pushCatalog } from "../catalog/catalog-publication.ts";
import { codegenFormatParameter, codegenResponse } from "../catalog/catalog-codegen.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";

const listParameters: ParameterDoc[] = [
  { name: "status", in: "query", description: `Only events with this status (${catalogStatuses.join(", ")}); counts ignore it`, schema: t.Union(catalogStatuses.map((status) => t.Literal(status))) },
  { name: "search", in: "query", description: `Names and display names containing this text, any case (1 to ${catalogSearchLengthMax} characters)`, schema: t.String({ minLength: 1, maxLength: catalogSearchLengthMax }) },
];

const doc = (operationId: string, summary: string, responses: OperationDoc["responses"], more: Partial<OperationDoc> = {}): OperationDoc => ({
  operationId, summary, security: "session", ...more, responses,
});

export function catalogRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const project = (c: Ctx) => sessionProjectAccess(ctx, c);
  /** Pushes the plan to the region when it holds an older one (nothing to do after a write that changed nothing). */
  const published = async <T>(result: T, access: ProjectAccess): Promise<T> => {
    if (!catalogSettingsOf(ctx, access.project.id).regionSynced) await pushCatalog(ctx, access.project);
    return result;
  };
  const base = "/app/projects/{project_id}/catalog";
  return routes
    .get(`${base}/codegen`, doc("getConsoleCatalogCodegen", "The tracking plan for code generation (JSON, or a TypeScript .d.ts)",
      { ...answer(200, "The plan's events and properties", CatalogCodegenExport), ...errors(400, 401, 403, 404) }, { parameters: [codegenFormatParameter] }),
    (c: Ctx) => codegenResponse(ctx, project(c), searchParams(c).get("format")))
    .get(`${base}/events`, doc("listCatalogEvents", "Events of the tracking plan, by name, with counts per status",
      { ...answer(200, "Events and counts", CatalogEventListResponse), ...errors(400, 401, 403, 404) }, { parameters: listParameters }),
    (c: Ctx) => jsonResponse(200, listCatalogEvents(ctx, project(c), { status: searchParams(c).get("status"), search: searchParams(c).get("search") })))
    .post(`${base}/events`, withDryRun(doc("createCatalogEvent", "Add an event to the tracking plan",
      { ...answer(201, "Created", CatalogEventDto), ...errors(400, 401, 403, 404, 409) }, { body: CatalogEventCreateRequest })),
    (c: Ctx) => projectWrite(ctx, c, (access) => planCreateCatalogEvent(ctx, access, validateBody<typeof CatalogEventCreateRequest.static>(CatalogEventCreateRequest, c.body)), published, 201))
    .get(`${base}/events/{event_id}`, doc("getCatalogEvent", "One event of the tracking plan",
      { ...answer(200, "The event", CatalogEventDto), ...errors(401, 403, 404) }),
    (c: Ctx) => jsonResponse(200, getCatalogEvent(ctx, project(c), c.params.event_id!)))
    .patch(`${base}/events/{event_id}`, withDryRun(doc("updateCatalogEvent", "Change an event of the tracking plan; properties, when given, replace its list",
      { ...answer(200, "The event", CatalogEventDto), ...errors(400, 401, 403, 404) }, { body: CatalogEventUpdateRequest })),
    (c: Ctx) => projectWrite(ctx, c, (access) => planUpdateCatalogEvent(ctx, access, c.params.event_id!, validateBody<typeof CatalogEventUpdateRequest.static>(CatalogEventUpdateRequest, c.body)), published))
    .delete(`${base}/events/{event_id}`, withDryRun(doc("deleteCatalogEvent", "Remove an event and its properties from the tracking plan",
      { ...answer(204, "Deleted"), ...errors(401, 403, 404) })),
    (c: Ctx) => projectWrite(ctx, c, (access) => planDeleteCatalogEvent(ctx, access, c.params.event_id!), async (result, access) => {
      await published(result, access);
      return undefined;
    }, 204))
    .post(`${base}/sync`, withDryRun(doc("syncCatalog", "Merge what the region has seen into the tracking plan",
      { ...answer(200, "What the sync found and changed", CatalogSyncResponse), ...errors(400, 401, 403, 404, 503) }, { body: CatalogSyncRequest, bodyOptional: true })),
    (c: Ctx) => projectWrite(ctx, c, (access) => planCatalogSync(ctx, access, c.body === undefined ? {} : validateBody<typeof CatalogSyncRequest.static>(CatalogSyncRequest, c.body)),
      async (result, access) => (await published(result, access)).response))
    .get(`${base}/settings`, doc("getCatalogSettings", "The tracking plan's version and settings",
      { ...answer(200, "Settings", CatalogSettingsDto), ...errors(401, 403, 404) }),
    (c: Ctx) => jsonResponse(200, getCatalogSettings(ctx, project(c))))
    .patch(`${base}/settings`, withDryRun(doc("updateCatalogSettings", "Turn tracking-plan violations as ingestion warnings on or off",
      { ...answer(200, "Settings", CatalogSettingsDto), ...errors(400, 401, 403, 404) }, { body: CatalogSettingsUpdateRequest })),
    (c: Ctx) => projectWrite(ctx, c, (access) => planUpdateCatalogSettings(ctx, access, validateBody<typeof CatalogSettingsUpdateRequest.static>(CatalogSettingsUpdateRequest, c.body).warn_on_violations),
      async (_, access) => {
        await published(null, access);
        return getCatalogSettings(ctx, access);
      }));
}
