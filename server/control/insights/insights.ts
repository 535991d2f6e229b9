// Saved insights in the control plane: create, get, list, update, delete, favourite. Each
// write is a WritePlan (audited, previewable with dry_run). Deleting keeps the row (deleted_at)
// so a tile naming it gets a 409 that says why, and removes it from every dashboard.
import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { conflict, notFound, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { dashboardTiles, insightFavorites, insights } from "../db/schema.ts";
import { isUuid, newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { checkQuery } from "../services/region-queries.ts";
import { normalizeTags } from "../tags.ts";
import { listPage, pageOf, booleanParam } from "../list-params.ts";
import { searchAndTagFilters } from "../list-filters.ts";
import {
  insightsPerProjectMax, type InsightCreateInput, type InsightDtoValue, type InsightKind, type InsightUpdateInput, type VizValue,
} from "./insight-schemas.ts";
import { insightKinds } from "../../../engine/ir/schema.ts";
import { resolveViz } from "./viz.ts";

export type InsightRow = typeof insights.$inferSelect;

const listOrders = { updated: [desc(insights.updatedAt), asc(insights.id)], created: [desc(insights.createdAt), asc(insights.id)], name: [asc(insights.name), asc(insights.id)] };

export function insightDto(row: InsightRow, favorited: boolean): InsightDtoValue {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    created_via: row.createdVia as InsightDtoValue["created_via"],
    favorited,
    query: row.query,
    viz: row.viz as VizValue,
    tags: row.tags,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    created_by: row.createdBy,
    description: row.description,
  };
}

/** Which of these insights the user has favourited. */
export function favoritedBy(ctx: ControlContext, userId: string, insightIds: string[]): Set<string> {
  if (insightIds.length === 0) return new Set();
  const rows = ctx.db.select({ id: insightFavorites.insightId }).from(insightFavorites)
    .where(and(eq(insightFavorites.userId, userId), inArray(insightFavorites.insightId, insightIds))).all();
  return new Set(rows.map((row) => row.id));
}

/** The project's insight with this id, deleted or not (null when there is none). */
export function findInsight(ctx: ControlContext, projectId: string, insightId: string): InsightRow | undefined {
  return ctx.db.select().from(insights).where(and(eq(insights.id, insightId), eq(insights.projectId, projectId))).get();
}

function liveInsight(ctx: ControlContext, access: ProjectAccess, insightId: string): InsightRow {
  const row = findInsight(ctx, access.project.id, requireUuid(insightId, "insight"));
  if (!row || row.deletedAt !== null) throw notFound("insight");
  return row;
}

const userOf = (access: ProjectAccess) => access.principal.user.id;
const dtoFor = (ctx: ControlContext, access: ProjectAccess, row: InsightRow) => insightDto(row, favoritedBy(ctx, userOf(access), [row.id]).has(row.id));

function kindOf(query: Record<string, unknown>): InsightKind {
  return (query.insight as { kind: InsightKind }).kind;
}

function listFilters(ctx: ControlContext, access: ProjectAccess, query: URLSearchParams): SQL[] {
  const where: SQL[] = [eq(insights.projectId, access.project.id), isNull(insights.deletedAt), ...searchAndTagFilters(query, insights)];
  const favorited = booleanParam(query, "favorited");
  if (favorited !== undefined) {
    const mine = sql`EXISTS (SELECT 1 FROM ${insightFavorites} WHERE ${insightFavorites.insightId} = ${insights.id} AND ${insightFavorites.userId} = ${userOf(access)})`;
    where.push(favorited ? mine : sql`NOT ${mine}`);
  }
  const createdBy = query.get("created_by");
  if (createdBy !== null) {
    if (createdBy !== "me" && !isUuid(createdBy)) throw validation('created_by must be a user id or "me"');
    where.push(eq(insights.createdBy, createdBy === "me" ? userOf(access) : createdBy.toLowerCase()));
  }
  const kind = query.get("kind");
  if (kind !== null) {
    if (!(insightKinds as readonly string[]).includes(kind)) throw validation(`kind must be one of ${insightKinds.join(", ")}`);
    where.push(eq(insights.kind, kind));
  }
  return where;
}

function orderOf(query: URLSearchParams) {
  const order = query.get("order") ?? "updated";
  if (!(order in listOrders)) throw validation(`order must be one of ${Object.keys(listOrders).join(", ")}`);
  return listOrders[order as keyof typeof listOrders];
}

export function listInsights(ctx: ControlContext, access: ProjectAccess, query: URLSearchParams) {
  requireScope(access, "insights:read");
  const page = listPage(query);
  const rows = ctx.db.select().from(insights).where(and(...listFilters(ctx, access, query))).orderBy(...orderOf(query))
    .limit(page.limit + 1).offset(page.offset).all();
  const { rows: shown, nextOffset } = pageOf(rows, page);
  const favourites = favoritedBy(ctx, userOf(access), shown.map((row) => row.id));
  return { insights: shown.map((row) => insightDto(row, favourites.has(row.id))), next_offset: nextOffset };
}

export function getInsight(ctx: ControlContext, access: ProjectAccess, insightId: string) {
  requireScope(access, "insights:read");
  return dtoFor(ctx, access, liveInsight(ctx, access, insightId));
}

function setFavorite(ctx: ControlContext, insightId: string, userId: string, favorite: boolean): void {
  if (favorite) ctx.db.insert(insightFavorites).values({ insightId, userId, createdAt: nowIso() }).onConflictDoNothing().run();
  else ctx.db.delete(insightFavorites).where(and(eq(insightFavorites.insightId, insightId), eq(insightFavorites.userId, userId))).run();
}

const plan = (access: ProjectAccess, action: string, targetId: string, before: unknown, after: unknown, apply: () => InsightDtoValue): WritePlan<InsightDtoValue> => ({
  action, targetType: "insight", targetId, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

function liveCount(ctx: ControlContext, projectId: string): number {
  return ctx.db.select({ count: sql<number>`count(*)` }).from(insights).where(and(eq(insights.projectId, projectId), isNull(insights.deletedAt))).get()?.count ?? 0;
}

export function planCreateInsight(ctx: ControlContext, access: ProjectAccess, input: InsightCreateInput): WritePlan<InsightDtoValue> {
  requireScope(access, "insights:write");
  checkQuery(input.query, access.project.timezone);
  if (liveCount(ctx, access.project.id) >= insightsPerProjectMax) throw conflict(`the project already has ${insightsPerProjectMax} insights, the most it can hold; delete some first`);
  const kind = kindOf(input.query);
  const now = nowIso();
  const row: InsightRow = {
    id: newId(), projectId: access.project.id, name: input.name.trim(), description: input.description ?? null, kind, query: input.query,
    viz: resolveViz(kind, input.viz), tags: normalizeTags(input.tags ?? []), createdVia: input.created_via ?? "ui", createdBy: userOf(access),
    createdAt: now, updatedAt: now, deletedAt: null,
  };
  const favorited = input.favorited ?? false;
  return plan(access, "insight.create", row.id, null, insightDto(row, favorited), () => {
    ctx.db.insert(insights).values(row).run();
    if (favorited) setFavorite(ctx, row.id, userOf(access), true);
    return insightDto(row, favorited);
  });
}

export function planUpdateInsight(ctx: ControlContext, access: ProjectAccess, insightId: string, input: InsightUpdateInput): WritePlan<InsightDtoValue> {
  requireScope(access, "insights:write");
  const row = liveInsight(ctx, access, insightId);
  const changes: Partial<InsightRow> = { updatedAt: nowIso() };
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.description !== undefined) changes.description = input.description;
  if (input.tags !== undefined) changes.tags = normalizeTags(input.tags);
  if (input.query !== undefined) {
    checkQuery(input.query, access.project.timezone);
    changes.query = input.query;
    changes.kind = kindOf(input.query);
  }
  const kind = (changes.kind ?? row.kind) as InsightKind;
  if (input.viz !== undefined || changes.kind !== undefined) changes.viz = resolveViz(kind, input.viz, row.viz as VizValue);
  const updated = { ...row, ...changes };
  const wasFavorite = favoritedBy(ctx, userOf(access), [row.id]).has(row.id);
  const favorited = input.favorited ?? wasFavorite;
  return plan(access, "insight.update", row.id, insightDto(row, wasFavorite), insightDto(updated, favorited), () => {
    ctx.db.update(insights).set(changes).where(eq(insights.id, row.id)).run();
    if (favorited !== wasFavorite) setFavorite(ctx, row.id, userOf(access), favorited);
    return insightDto(updated, favorited);
  });
}

/** Deleting an insight takes its tiles off every dashboard (in the same transaction). */
export function planDeleteInsight(ctx: ControlContext, access: ProjectAccess, insightId: string): WritePlan<InsightDtoValue> {
  requireScope(access, "insights:write");
  const row = liveInsight(ctx, access, insightId);
  const now = nowIso();
  const before = dtoFor(ctx, access, row);
  return plan(access, "insight.delete", row.id, before, null, () => {
    ctx.db.update(insights).set({ deletedAt: now, updatedAt: now }).where(eq(insights.id, row.id)).run();
    ctx.db.delete(dashboardTiles).where(eq(dashboardTiles.insightId, row.id)).run();
    ctx.db.delete(insightFavorites).where(eq(insightFavorites.insightId, row.id)).run();
    return before;
  });
}

/** A favourite is the caller's own bookmark, so reading the insight is enough to set it. */
export function planFavoriteInsight(ctx: ControlContext, access: ProjectAccess, insightId: string, favorite: boolean): WritePlan<InsightDtoValue> {
  requireScope(access, "insights:read");
  const row = liveInsight(ctx, access, insightId);
  const was = favoritedBy(ctx, userOf(access), [row.id]).has(row.id);
  return plan(access, favorite ? "insight.favorite" : "insight.unfavorite", row.id, insightDto(row, was), insightDto(row, favorite), () => {
    setFavorite(ctx, row.id, userOf(access), favorite);
    return insightDto(row, favorite);
  });
}
