// The tracking plan as the project's region needs it (plan-violation checks at ingest, and the
// names of personal-data properties it masks), pushed after every change. A push that fails
// leaves the settings' region_synced false; start-up and the periodic sync push the plan as it
// then stands (the region keeps the newest version it was given).
import { and, eq, isNull } from "drizzle-orm";
import type { RegionCode } from "../../config.ts";
import type { CatalogPlan, PlannedEvent, PlannedPropertyType } from "../../../storage/catalog-plan-store.ts";
import type { ControlContext } from "../context.ts";
import type { ProjectRow } from "../access.ts";
import { catalogSettings, projects } from "../db/schema.ts";
import { projectCatalog } from "./catalog-dto.ts";
import { catalogSettingsOf, markCatalogSynced } from "./catalog-settings.ts";

function catalogPlanOf(ctx: ControlContext, projectId: string): CatalogPlan {
  const settings = catalogSettingsOf(ctx, projectId);
  const catalog = projectCatalog(ctx, projectId);
  const events: PlannedEvent[] = [];
  const pii = new Set<string>();
  for (const { row, properties } of catalog) {
    for (const property of properties) if (property.pii) pii.add(property.name);
    if (row.status === "unplanned") continue;
    events.push({
      name: row.name,
      status: row.status,
      properties: properties.map((property) => ({ name: property.name, type: property.type as PlannedPropertyType, required: property.required, enumValues: property.enumValues })),
    });
  }
  return { projectId, catalogVersion: settings.catalogVersion, warnOnViolations: settings.warnOnViolations, events, piiProperties: [...pii].sort() };
}

/** Pushes the project's plan as it stands to its region. */
export async function pushCatalog(ctx: ControlContext, project: Pick<ProjectRow, "id" | "region">): Promise<void> {
  const link = ctx.regions.get(project.region as RegionCode);
  if (!link) return;
  const plan = catalogPlanOf(ctx, project.id);
  try {
    await link.publishCatalog(plan);
  } catch (error) {
    console.error(`tracking plan push to region ${project.region} failed (retried with the keys):`, error);
    return;
  }
  markCatalogSynced(ctx, project.id, plan.catalogVersion);
}

/** Every live project whose region may not hold its plan. */
export async function pushPendingCatalogs(ctx: ControlContext): Promise<void> {
  const pending = ctx.db
    .select({ id: projects.id, region: projects.region })
    .from(catalogSettings)
    .innerJoin(projects, eq(projects.id, catalogSettings.projectId))
    .where(and(eq(catalogSettings.regionSynced, false), isNull(projects.deletedAt)))
    .all();
  for (const project of pending) await pushCatalog(ctx, project);
}
