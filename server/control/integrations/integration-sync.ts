// Revenue integrations mirrored into their project's region, like public keys: after each
// change the region gets the integration's latest state (or its removal) and `region_synced`
// records that it did. A push that fails leaves `region_synced` false (a removal that fails
// leaves the region marked), and syncPendingIntegrations, which runs at start-up and on the
// periodic retry that keys use, then hands the region its whole set of integrations: that
// also removes the ones deleted while it was unreachable, and those of deleted projects.
import { and, eq, isNull } from "drizzle-orm";
import type { RegionCode } from "../../config.ts";
import type { RegionIntegration } from "../../../storage/integration-store.ts";
import type { ControlContext } from "../context.ts";
import type { ProjectRow } from "../access.ts";
import { integrations, projects } from "../db/schema.ts";
import type { IntegrationRow } from "./integrations.ts";
import { regionPushQueue, regionsToReconcile } from "../services/region-push-order.ts";

/** This copy's pushes, one after another per region (region-push-order.ts says why). */
const inRegionOrder = regionPushQueue();
/** Regions that missed a push of this copy. */
const reconcileSet = regionsToReconcile();

const regionEntry = (project: Pick<ProjectRow, "dataId" | "retentionDays">, row: IntegrationRow): RegionIntegration => ({
  id: row.id,
  token: row.token,
  projectId: row.projectId,
  dataId: project.dataId,
  provider: row.provider,
  status: row.status,
  secret: row.secret,
  config: row.config,
  retentionDays: project.retentionDays,
});

/** Pushes one integration's latest state to its region; marks it synced when the region took it. */
export function pushIntegration(ctx: ControlContext, project: ProjectRow, integrationId: string): Promise<void> {
  return inRegionOrder(ctx, project.region, async () => {
    const link = ctx.regions.get(project.region as RegionCode);
    const row = ctx.db.select().from(integrations).where(eq(integrations.id, integrationId)).get();
    if (!link || !row) return;
    try {
      await link.putIntegrations([regionEntry(project, row)], false);
    } catch (error) {
      console.error(`integration sync to region ${project.region} failed:`, error);
      return;
    }
    // Only if nothing changed it meanwhile (that change's own push follows).
    ctx.db.update(integrations).set({ regionSynced: true }).where(and(eq(integrations.id, row.id), eq(integrations.updatedAt, row.updatedAt))).run();
  });
}

/** Removes a deleted integration from its region; on failure the region is reconciled later. */
export function pushIntegrationRemoval(ctx: ControlContext, project: Pick<ProjectRow, "region">, integrationId: string): Promise<void> {
  return inRegionOrder(ctx, project.region, async () => {
    const link = ctx.regions.get(project.region as RegionCode);
    if (!link) return;
    try {
      await link.deleteIntegration(integrationId);
    } catch (error) {
      console.error(`integration removal in region ${project.region} failed:`, error);
      reconcileSet(ctx).add(project.region);
    }
  });
}

/** After a project's deletion: its integrations leave the region (their URLs answer 404). */
export async function pushProjectIntegrationsRemoval(ctx: ControlContext, project: Pick<ProjectRow, "region">): Promise<void> {
  reconcileSet(ctx).add(project.region);
  await reconcileRegion(ctx, project.region);
}

/** Hands a region all of its live projects' integrations (replacing what it holds) and marks them synced. */
function reconcileRegion(ctx: ControlContext, region: string): Promise<void> {
  return inRegionOrder(ctx, region, () => reconcileNow(ctx, region));
}

async function reconcileNow(ctx: ControlContext, region: string): Promise<void> {
  const link = ctx.regions.get(region as RegionCode);
  if (!link) return;
  const rows = ctx.db
    .select({ integration: integrations, project: projects })
    .from(integrations)
    .innerJoin(projects, eq(projects.id, integrations.projectId))
    .where(and(eq(projects.region, region), isNull(projects.deletedAt)))
    .all();
  try {
    await link.putIntegrations(rows.map(({ integration, project }) => regionEntry(project, integration)), true);
  } catch (error) {
    console.error(`integration sync to region ${region} failed:`, error);
    reconcileSet(ctx).add(region);
    return;
  }
  reconcileSet(ctx).delete(region);
  for (const { integration } of rows) {
    ctx.db.update(integrations).set({ regionSynced: true })
      .where(and(eq(integrations.id, integration.id), eq(integrations.updatedAt, integration.updatedAt))).run();
  }
}

/** The regions that missed a change (and every region once after start-up) get their whole set. */
export async function syncPendingIntegrations(ctx: ControlContext): Promise<void> {
  const regions = reconcileSet(ctx);
  const unsynced = ctx.db
    .selectDistinct({ region: projects.region })
    .from(integrations)
    .innerJoin(projects, eq(projects.id, integrations.projectId))
    .where(eq(integrations.regionSynced, false))
    .all();
  for (const { region } of unsynced) regions.add(region);
  for (const region of [...regions]) await reconcileRegion(ctx, region);
}
