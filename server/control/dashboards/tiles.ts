// Tiles of a dashboard: add (an insight of the same project, or text), change (text, position),
// remove, and move several at once. Every change keeps the grid valid (grid.ts) and touches the
// dashboard's updated_at; each is an audited write on the dashboard.
import { and, eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { conflict, notFound, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { dashboardTiles, dashboards } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { findInsight } from "../insights/insights.ts";
import { tilesPerDashboardMax, type Layout, type TileCreateInput, type TileUpdateInput } from "./dashboard-schemas.ts";
import { byPosition, dashboardDto, dashboardOfProject, tileDto, tilesOf, type DashboardRow, type TileRow } from "./dashboards.ts";
import { checkBounds, checkLayout, placeBelow } from "./grid.ts";

function tileOf(ctx: ControlContext, dashboard: DashboardRow, tileId: string): TileRow {
  const id = requireUuid(tileId, "tile");
  const row = ctx.db.select().from(dashboardTiles).where(and(eq(dashboardTiles.id, id), eq(dashboardTiles.dashboardId, dashboard.id))).get();
  if (!row) throw notFound("tile");
  return row;
}

/** A tile may only show a live insight of the dashboard's own project. */
function insightForTile(ctx: ControlContext, access: ProjectAccess, insightId: string | undefined): string {
  if (insightId === undefined) throw validation("body /insight_id: an insight tile needs insight_id");
  const insight = findInsight(ctx, access.project.id, insightId.toLowerCase());
  if (!insight) throw conflict(`insight ${insightId} is not an insight of this project`);
  if (insight.deletedAt !== null) throw conflict(`insight ${insightId} was deleted`);
  return insight.id;
}

const touch = (ctx: ControlContext, dashboard: DashboardRow, now: string) => ctx.db.update(dashboards).set({ updatedAt: now }).where(eq(dashboards.id, dashboard.id)).run();

type TileDtoValue = ReturnType<typeof tileDto>;
const plan = <T>(access: ProjectAccess, action: string, dashboard: DashboardRow, before: unknown, after: unknown, apply: () => T): WritePlan<T> => ({
  action, targetType: "dashboard", targetId: dashboard.id, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

export function planCreateTile(ctx: ControlContext, access: ProjectAccess, dashboardId: string, input: TileCreateInput): WritePlan<TileDtoValue> {
  requireScope(access, "dashboards:write");
  const dashboard = dashboardOfProject(ctx, access, dashboardId);
  const tiles = tilesOf(ctx, dashboard.id);
  if (tiles.length >= tilesPerDashboardMax) throw validation(`a dashboard holds at most ${tilesPerDashboardMax} tiles`);
  let insightId: string | null = null;
  if (input.kind === "insight") {
    if (input.body !== undefined) throw validation("body /body: only text tiles have a body");
    insightId = insightForTile(ctx, access, input.insight_id);
  } else {
    if (input.insight_id !== undefined) throw validation("body /insight_id: a text tile shows no insight");
    if (input.body === undefined) throw validation("body /body: a text tile needs a body");
  }
  const layout: Layout = input.layout ?? placeBelow(tiles.map((tile) => tile.layout), input.kind);
  const now = nowIso();
  const tile: TileRow = { id: newId(), dashboardId: dashboard.id, kind: input.kind, insightId, body: input.body ?? null, layout, createdAt: now, updatedAt: now };
  checkBounds(layout, "body /layout");
  checkLayout([...tiles, tile]);
  const after = tileDto(ctx, access, dashboard, tile);
  return plan(access, "dashboard.tile.create", dashboard, null, after, () => {
    ctx.db.insert(dashboardTiles).values(tile).run();
    touch(ctx, dashboard, now);
    return after;
  });
}

export function planUpdateTile(ctx: ControlContext, access: ProjectAccess, dashboardId: string, tileId: string, input: TileUpdateInput): WritePlan<TileDtoValue> {
  requireScope(access, "dashboards:write");
  const dashboard = dashboardOfProject(ctx, access, dashboardId);
  const tile = tileOf(ctx, dashboard, tileId);
  if (input.body !== undefined && tile.kind !== "text") throw validation("body /body: only text tiles have a body");
  const now = nowIso();
  const updated: TileRow = { ...tile, body: input.body ?? tile.body, layout: input.layout ?? tile.layout, updatedAt: now };
  if (input.layout) {
    checkBounds(input.layout, "body /layout");
    checkLayout(tilesOf(ctx, dashboard.id).map((other) => (other.id === tile.id ? updated : other)));
  }
  const after = tileDto(ctx, access, dashboard, updated);
  return plan(access, "dashboard.tile.update", dashboard, tileDto(ctx, access, dashboard, tile), after, () => {
    ctx.db.update(dashboardTiles).set({ body: updated.body, layout: updated.layout, updatedAt: now }).where(eq(dashboardTiles.id, tile.id)).run();
    touch(ctx, dashboard, now);
    return after;
  });
}

export function planDeleteTile(ctx: ControlContext, access: ProjectAccess, dashboardId: string, tileId: string): WritePlan<TileDtoValue> {
  requireScope(access, "dashboards:write");
  const dashboard = dashboardOfProject(ctx, access, dashboardId);
  const tile = tileOf(ctx, dashboard, tileId);
  const before = tileDto(ctx, access, dashboard, tile);
  return plan(access, "dashboard.tile.delete", dashboard, before, null, () => {
    ctx.db.delete(dashboardTiles).where(eq(dashboardTiles.id, tile.id)).run();
    touch(ctx, dashboard, nowIso());
    return before;
  });
}

/** Moves the listed tiles (the others stay); the whole resulting layout must be valid. */
export function planLayout(ctx: ControlContext, access: ProjectAccess, dashboardId: string, positions: ({ id: string } & Layout)[]) {
  requireScope(access, "dashboards:write");
  const dashboard = dashboardOfProject(ctx, access, dashboardId);
  const tiles = tilesOf(ctx, dashboard.id);
  const moved = new Map<string, Layout>();
  positions.forEach((position, index) => {
    const id = position.id.toLowerCase();
    if (!tiles.some((tile) => tile.id === id)) throw validation(`body /tiles/${index}/id: ${position.id} is not a tile of this dashboard`);
    if (moved.has(id)) throw validation(`body /tiles/${index}/id: tile ${position.id} is listed twice`);
    const layout = { x: position.x, y: position.y, w: position.w, h: position.h };
    checkBounds(layout, `body /tiles/${index}`);
    moved.set(id, layout);
  });
  const now = nowIso();
  const arranged = tiles.map((tile) => ({ ...tile, layout: moved.get(tile.id) ?? tile.layout }));
  checkLayout(arranged);
  const updated = { ...dashboard, updatedAt: now };
  const sorted = [...arranged].sort(byPosition);
  const after = dashboardDto(ctx, access, updated, sorted);
  return plan(access, "dashboard.layout", dashboard, dashboardDto(ctx, access, dashboard, tiles), after, () => {
    for (const [id, layout] of moved) ctx.db.update(dashboardTiles).set({ layout, updatedAt: now }).where(eq(dashboardTiles.id, id)).run();
    touch(ctx, dashboard, now);
    return after;
  });
}
