// POST …/catalog/sync (spec 1): asks the project's region what the environment sent in the last
// `days` days (default 30; 0: today, UTC) and merges it into the plan (catalog-merge.ts) as one
// audited write, CatalogSyncResponse its answer. The environment defaults to the project's
// default one. A region that cannot answer is 503 `unavailable`. A sync that changes the plan
// raises the catalog version and pushes the plan to the region; one that only refreshes figures
// does not. `updated` counts the events created or changed, figures included.
import { eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import type { RegionCode } from "../../config.ts";
import { unavailable, validation } from "../../http/errors.ts";
import { discoveryDaysDefault, type DiscoveryAnswer } from "../../region/catalog-discovery.ts";
import type { ControlContext } from "../context.ts";
import { catalogEvents, catalogProperties } from "../db/schema.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import { projectEnvironments } from "../dto.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { projectCatalog } from "./catalog-dto.ts";
import { catalogEventsMax } from "./catalog-events.ts";
import { mergeDiscovery } from "./catalog-merge.ts";
import type { CatalogSyncInput } from "./catalog-schemas.ts";
import { bumpCatalog, catalogSettingsOf, recordSyncTime } from "./catalog-settings.ts";

export interface CatalogSyncResult {
  response: {
    discovered: number;
    environment: string;
    implemented: string[];
    unplanned: string[];
    updated: number;
    synced_at: string;
  };
  planChanged: boolean;
}

function syncEnvironment(ctx: ControlContext, access: ProjectAccess, requested: string | null | undefined): string {
  const environments = projectEnvironments(ctx, access.project.id);
  if (requested === null || requested === undefined) return environments.find((environment) => environment.isDefault)!.name;
  if (!environments.some((environment) => environment.name === requested)) {
    throw validation(`unknown environment ${JSON.stringify(requested)}; the project's environments are ${environments.map((environment) => environment.name).join(", ")}`);
  }
  return requested;
}

async function discover(ctx: ControlContext, access: ProjectAccess, environment: string, days: number): Promise<DiscoveryAnswer> {
  const region = access.project.region;
  const link = ctx.regions.get(region as RegionCode);
  if (!link) throw unavailable(`region ${region} is not served by this deployment`);
  try {
    return await link.catalogDiscovery({ projectId: access.project.id, dataId: access.project.dataId, environment }, days);
  } catch (error) {
    throw unavailable(`region ${region} could not say what the project sent: ${(error as Error).message}`);
  }
}

export async function planCatalogSync(ctx: ControlContext, access: ProjectAccess, input: CatalogSyncInput): Promise<WritePlan<CatalogSyncResult>> {
  requireScope(access, "catalog:write");
  const projectId = access.project.id;
  const environment = syncEnvironment(ctx, access, input.environment);
  const answer = await discover(ctx, access, environment, input.days ?? discoveryDaysDefault);
  const now = nowIso();
  const version = catalogSettingsOf(ctx, projectId).catalogVersion;
  const merge = mergeDiscovery(projectId, projectCatalog(ctx, projectId), answer.events, now, catalogEventsMax);
  const result: CatalogSyncResult = {
    response: {
      discovered: answer.events.length, environment, implemented: merge.implemented, unplanned: merge.unplanned,
      updated: merge.created.length + merge.changed.length, synced_at: now,
    },
    planChanged: merge.planChanged,
  };
  return {
    action: "catalog.sync", targetType: "catalog", targetId: projectId, orgId: access.org.id, projectId,
    before: { catalog_version: version },
    after: { catalog_version: merge.planChanged ? version + 1 : version, ...result.response },
    apply: () => {
      for (const { row, properties } of merge.created) {
        ctx.db.insert(catalogEvents).values(row).run();
        if (properties.length > 0) ctx.db.insert(catalogProperties).values(properties).run();
      }
      for (const { row, added } of merge.changed) {
        ctx.db.update(catalogEvents).set(row).where(eq(catalogEvents.id, row.id)).run();
        if (added.length > 0) ctx.db.insert(catalogProperties).values(added).run();
      }
      if (merge.planChanged) bumpCatalog(ctx, projectId, { syncedAt: now });
      else recordSyncTime(ctx, projectId, now);
      return result;
    },
  };
}
