// A project's catalog settings row (catalog_settings): the catalog version, bumped by every
// change of the plan or of its settings; whether plan violations become ingestion warnings; when
// the last sync ran; and whether the region holds the plan as it stands. A project whose catalog
// never changed has no row and reads as version 0, warnings off, nothing to push.
import { and, eq } from "drizzle-orm";
import type { ControlContext } from "../context.ts";
import { catalogSettings } from "../db/schema.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";

export type CatalogSettingsRow = typeof catalogSettings.$inferSelect;

export function catalogSettingsOf(ctx: ControlContext, projectId: string): CatalogSettingsRow {
  return ctx.db.select().from(catalogSettings).where(eq(catalogSettings.projectId, projectId)).get()
    ?? { projectId, catalogVersion: 0, warnOnViolations: false, syncedAt: null, regionSynced: true };
}

const catalogSettingsDto = (row: CatalogSettingsRow) => ({
  project_id: row.projectId,
  catalog_version: row.catalogVersion,
  warn_on_violations: row.warnOnViolations,
  synced_at: row.syncedAt,
  region_synced: row.regionSynced,
});

/** Inside a write's transaction: stores `changes` with the next catalog version, to be pushed to the region; returns that version. */
export function bumpCatalog(ctx: ControlContext, projectId: string, changes: Partial<Pick<CatalogSettingsRow, "warnOnViolations" | "syncedAt">> = {}): number {
  const current = catalogSettingsOf(ctx, projectId);
  const next = { ...current, ...changes, catalogVersion: current.catalogVersion + 1, regionSynced: false };
  ctx.db.insert(catalogSettings).values(next).onConflictDoUpdate({ target: catalogSettings.projectId, set: next }).run();
  return next.catalogVersion;
}

/** Inside a write's transaction: when a sync ran (not a change of the plan). */
export function recordSyncTime(ctx: ControlContext, projectId: string, syncedAt: string): void {
  const row = { ...catalogSettingsOf(ctx, projectId), syncedAt };
  ctx.db.insert(catalogSettings).values(row).onConflictDoUpdate({ target: catalogSettings.projectId, set: { syncedAt } }).run();
}

/** The region took version `catalogVersion` (a later change, not yet pushed, keeps it unsynced). */
export function markCatalogSynced(ctx: ControlContext, projectId: string, catalogVersion: number): void {
  ctx.db.update(catalogSettings).set({ regionSynced: true })
    .where(and(eq(catalogSettings.projectId, projectId), eq(catalogSettings.catalogVersion, catalogVersion))).run();
}

export function getCatalogSettings(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "catalog:read");
  return catalogSettingsDto(catalogSettingsOf(ctx, access.project.id));
}

type CatalogSettingsDtoValue = ReturnType<typeof catalogSettingsDto>;

export function planUpdateCatalogSettings(ctx: ControlContext, access: ProjectAccess, warnOnViolations: boolean): WritePlan<CatalogSettingsDtoValue> {
  requireScope(access, "catalog:write");
  const before = catalogSettingsOf(ctx, access.project.id);
  const unchanged = before.warnOnViolations === warnOnViolations;
  const after = unchanged ? before : { ...before, warnOnViolations, catalogVersion: before.catalogVersion + 1, regionSynced: false };
  return {
    action: "catalog.settings.update", targetType: "catalog", targetId: access.project.id, orgId: access.org.id, projectId: access.project.id,
    before: catalogSettingsDto(before), after: catalogSettingsDto(after),
    apply: () => {
      if (!unchanged) bumpCatalog(ctx, access.project.id, { warnOnViolations });
      return catalogSettingsDto(catalogSettingsOf(ctx, access.project.id));
    },
  };
}
