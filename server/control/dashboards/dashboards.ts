// Dashboards in the control plane: create, get, list, update, delete. The project has at most
// one home dashboard: making one home clears the flag on the others in the same transaction.
// Deleting keeps the row (deleted_at) for the audit trail; its tiles go with it.
import { and, asc, desc, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { conflict, notFound } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { dashboardTiles, dashboards, insights } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { regionApiUrl } from "../services/region-tokens.ts";
import { normalizeTags } from "../tags.ts";
import { listPage, pageOf } from "../list-params.ts";
import { searchAndTagFilters } from "../list-filters.ts";
import { favoritedBy, insightDto } from "../insights/insights.ts";
import { dashboardsPerProjectMax, type DashboardCreateInput, type DashboardUpdateInput, type Layout } from "./dashboard-schemas.ts";
import { checkOverrides, normalizeDateRange } from "./overrides.ts";
import { tileRequest } from "./tile-requests.ts";

export type DashboardRow = typeof dashboards.$inferSelect;
export type TileRow = typeof dashboardTiles.$inferSelect;

export function dashboardOfProject(ctx: ControlContext, access: ProjectAccess, dashboardId: string): DashboardRow {
  const id = requireUuid(dashboardId, "dashboard");
  const row = ctx.db.select().from(dashboards).where(and(eq(dashboards.id, id), eq(dashboards.projectId, access.project.id), isNull(dashboards.deletedAt))).get();
  if (!row) throw notFound("dashboard");
  return row;
}

/** Reading order: top to bottom, then left to right. */
export const byPosition = (a: TileRow, b: TileRow) => a.layout.y - b.layout.y || a.layout.x - b.layout.x || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

export function tilesOf(ctx: ControlContext, dashboardId: string): TileRow[] {
  return ctx.db.select().from(dashboardTiles).where(eq(dashboardTiles.dashboardId, dashboardId)).all().sort(byPosition);
}

/** One tile as the console shows it: its insight (favourite as the caller sees it) and the region request that computes it. */
export function tileDto(ctx: ControlContext, access: ProjectAccess, dashboard: DashboardRow, tile: TileRow, favourites?: Set<string>) {
  const insight = tile.insightId ? ctx.db.select().from(insights).where(eq(insights.id, tile.insightId)).get() : undefined;
  const favorited = insight ? (favourites ?? favoritedBy(ctx, access.principal.user.id, [insight.id])).has(insight.id) : false;
  const computed = insight ? tileRequest(insight.query, dashboard, access.project.timezone, regionApiUrl(ctx, access.project.region)) : { request: null, request_error: null };
  return {
    id: tile.id,
    kind: tile.kind,
    layout: tile.layout,
    created_at: tile.createdAt,
    body: tile.body,
    insight: insight ? insightDto(insight, favorited) : null,
    insight_id: tile.insightId,
    ...computed,
  };
}

export function dashboardDto(ctx: ControlContext, access: ProjectAccess, row: DashboardRow, tiles = tilesOf(ctx, row.id)) {
  const favourites = favoritedBy(ctx, access.principal.user.id, tiles.flatMap((tile) => (tile.insightId ? [tile.insightId] : [])));
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    is_home: row.isHome,
    tags: row.tags,
    tiles: tiles.map((tile) => tileDto(ctx, access, row, tile, favourites)),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    created_by: row.createdBy,
    date_range: row.dateRange,
    filters: row.filters,
    description: row.description,
  };
}

// Spelled out: inside a subquery drizzle would leave the outer column unqualified.
const tileCount = sql<number>`(SELECT count(*) FROM dashboard_tiles WHERE dashboard_tiles.dashboard_id = dashboards.id)`;

export function listDashboards(ctx: ControlContext, access: ProjectAccess, query: URLSearchParams) {
  requireScope(access, "dashboards:read");
  const page = listPage(query);
  const where: SQL[] = [eq(dashboards.projectId, access.project.id), isNull(dashboards.deletedAt), ...searchAndTagFilters(query, dashboards)];
  const rows = ctx.db.select({ row: dashboards, tiles: tileCount }).from(dashboards).where(and(...where))
    .orderBy(desc(dashboards.isHome), asc(dashboards.name), asc(dashboards.id)).limit(page.limit + 1).offset(page.offset).all();
  const { rows: shown, nextOffset } = pageOf(rows, page);
  return {
    dashboards: shown.map(({ row, tiles }) => ({
      id: row.id, name: row.name, is_home: row.isHome, tags: row.tags, tile_count: tiles, created_at: row.createdAt, updated_at: row.updatedAt, description: row.description,
    })),
    next_offset: nextOffset,
  };
}

export function getDashboard(ctx: ControlContext, access: ProjectAccess, dashboardId: string) {
  requireScope(access, "dashboards:read");
  return dashboardDto(ctx, access, dashboardOfProject(ctx, access, dashboardId));
}

type DashboardDtoValue = ReturnType<typeof dashboardDto>;
const plan = (access: ProjectAccess, action: string, targetId: string, before: unknown, after: unknown, apply: () => DashboardDtoValue): WritePlan<DashboardDtoValue> => ({
  action, targetType: "dashboard", targetId, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

/** Makes `dashboardId` the project's only home dashboard. */
function clearOtherHomes(ctx: ControlContext, projectId: string, dashboardId: string): void {
  ctx.db.update(dashboards).set({ isHome: false }).where(and(eq(dashboards.projectId, projectId), ne(dashboards.id, dashboardId), eq(dashboards.isHome, true))).run();
}

export function planCreateDashboard(ctx: ControlContext, access: ProjectAccess, input: DashboardCreateInput): WritePlan<DashboardDtoValue> {
  requireScope(access, "dashboards:write");
  const dateRange = normalizeDateRange(input.date_range) ?? null;
  checkOverrides(dateRange, input.filters, access.project.timezone);
  const count = ctx.db.select({ count: sql<number>`count(*)` }).from(dashboards).where(and(eq(dashboards.projectId, access.project.id), isNull(dashboards.deletedAt))).get()?.count ?? 0;
  if (count >= dashboardsPerProjectMax) throw conflict(`the project already has ${dashboardsPerProjectMax} dashboards, the most it can hold; delete some first`);
  const now = nowIso();
  const row: DashboardRow = {
    id: newId(), projectId: access.project.id, name: input.name.trim(), description: input.description ?? null, tags: normalizeTags(input.tags ?? []),
    isHome: input.is_home ?? false, dateRange, filters: input.filters ?? null, createdBy: access.principal.user.id,
    createdAt: now, updatedAt: now, deletedAt: null,
  };
  const after = dashboardDto(ctx, access, row, []);
  return plan(access, "dashboard.create", row.id, null, after, () => {
    ctx.db.insert(dashboards).values(row).run();
    if (row.isHome) clearOtherHomes(ctx, row.projectId, row.id);
    return after;
  });
}

export function planUpdateDashboard(ctx: ControlContext, access: ProjectAccess, dashboardId: string, input: DashboardUpdateInput): WritePlan<DashboardDtoValue> {
  requireScope(access, "dashboards:write");
  const row = dashboardOfProject(ctx, access, dashboardId);
  const changes: Partial<DashboardRow> = { updatedAt: nowIso() };
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.description !== undefined) changes.description = input.description;
  if (input.tags !== undefined) changes.tags = normalizeTags(input.tags);
  if (input.is_home !== undefined) changes.isHome = input.is_home;
  if (input.date_range !== undefined) changes.dateRange = normalizeDateRange(input.date_range) ?? null;
  if (input.filters !== undefined) changes.filters = input.filters;
  const updated = { ...row, ...changes };
  checkOverrides(updated.dateRange, updated.filters as { properties: unknown[] } | null, access.project.timezone);
  // The update touches no tile, so the dashboard as answered is the one previewed.
  const after = dashboardDto(ctx, access, updated);
  return plan(access, "dashboard.update", row.id, dashboardDto(ctx, access, row), after, () => {
    ctx.db.update(dashboards).set(changes).where(eq(dashboards.id, row.id)).run();
    if (updated.isHome) clearOtherHomes(ctx, row.projectId, row.id);
    return after;
  });
}

export function planDeleteDashboard(ctx: ControlContext, access: ProjectAccess, dashboardId: string): WritePlan<DashboardDtoValue> {
  requireScope(access, "dashboards:write");
  const row = dashboardOfProject(ctx, access, dashboardId);
  const before = dashboardDto(ctx, access, row);
  const now = nowIso();
  return plan(access, "dashboard.delete", row.id, before, null, () => {
    ctx.db.update(dashboards).set({ deletedAt: now, updatedAt: now, isHome: false }).where(eq(dashboards.id, row.id)).run();
    ctx.db.delete(dashboardTiles).where(eq(dashboardTiles.dashboardId, row.id)).run();
    return before;
  });
}

export const layoutsOf = (tiles: TileRow[]): Layout[] => tiles.map((tile) => tile.layout);
