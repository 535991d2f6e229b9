// /app saved insights (spec 1 lists the DTOs but not the paths: docs/insights.md). Writes take
// `dry_run` like the other console writes.
import { t } from "elysia";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors, withDryRun, type OperationDoc, type ParameterDoc } from "../contract/operation.ts";
import { insightKinds } from "../../../engine/ir/schema.ts";
import { getInsight, listInsights, planCreateInsight, planDeleteInsight, planFavoriteInsight, planUpdateInsight } from "../insights/insights.ts";
import { InsightCreateRequest, InsightDto, InsightFavoriteRequest, InsightListResponse, InsightUpdateRequest } from "../insights/insight-schemas.ts";
import { listParameters } from "./list-docs.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";

const insightParameters: ParameterDoc[] = [
  ...listParameters("name or description"),
  { name: "favorited", in: "query", description: "true: only the caller's favourites; false: only the others", schema: t.Boolean() },
  { name: "created_by", in: "query", description: "a user id, or `me`", schema: t.String() },
  { name: "kind", in: "query", description: "insight kind", schema: t.Union(insightKinds.map((kind) => t.Literal(kind))) },
  { name: "order", in: "query", description: "updated (default: last changed first), created (newest first) or name; ties by id", schema: t.Union([t.Literal("updated"), t.Literal("created"), t.Literal("name")]) },
];

const insightDoc = (operationId: string, summary: string, status: number, more: Partial<OperationDoc> = {}): OperationDoc => ({
  operationId, summary, security: "session", ...more, responses: { ...answer(status, status === 204 ? "Deleted" : "The insight", status === 204 ? undefined : InsightDto), ...errors(400, 401, 403, 404) },
});

export function insightRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const project = (c: Ctx) => sessionProjectAccess(ctx, c);
  const same = <T>(result: T) => result;
  const base = "/app/projects/{project_id}/insights";
  return routes
    .get(base, {
      operationId: "listInsights", summary: "Saved insights of a project, filtered and paged", security: "session", parameters: insightParameters,
      responses: { ...answer(200, "A page of insights", InsightListResponse), ...errors(400, 401, 403, 404) },
    }, (c: Ctx) => jsonResponse(200, listInsights(ctx, project(c), searchParams(c))))
    .post(base, withDryRun(insightDoc("createInsight", "Save an insight (its query is checked as Query IR v1)", 201, { body: InsightCreateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateInsight(ctx, access, validateBody<typeof InsightCreateRequest.static>(InsightCreateRequest, c.body)), same, 201))
    .get(`${base}/{insight_id}`, insightDoc("getInsight", "One insight", 200), (c: Ctx) => jsonResponse(200, getInsight(ctx, project(c), c.params.insight_id!)))
    .patch(`${base}/{insight_id}`, withDryRun(insightDoc("updateInsight", "Change an insight", 200, { body: InsightUpdateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateInsight(ctx, access, c.params.insight_id!, validateBody<typeof InsightUpdateRequest.static>(InsightUpdateRequest, c.body)), same))
    .delete(`${base}/{insight_id}`, withDryRun(insightDoc("deleteInsight", "Delete an insight; its tiles leave every dashboard", 204)), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planDeleteInsight(ctx, access, c.params.insight_id!), () => undefined, 204))
    .post(`${base}/{insight_id}/favorite`, withDryRun(insightDoc("favoriteInsight", "Favourite or unfavourite an insight (for the caller only)", 200, { body: InsightFavoriteRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planFavoriteInsight(ctx, access, c.params.insight_id!, validateBody<typeof InsightFavoriteRequest.static>(InsightFavoriteRequest, c.body).favorite), same));
}
