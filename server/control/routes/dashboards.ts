// /app dashboards and their tiles (spec 1's console table), and the console's region token:
// a dashboard answers, per tile, the region request to send; the console sends them with a
// token from POST /app/projects/{id}/region-token, so results never pass through here.
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors, withDryRun, type OperationDoc } from "../contract/operation.ts";
import { RegionTokenRequest, RegionTokenResponse } from "../schemas.ts";
import { issueRegionToken } from "../services/region-tokens.ts";
import {
  DashboardCreateRequest, DashboardDto, DashboardListResponse, DashboardTileDto, DashboardUpdateRequest, LayoutRequest, TileCreateRequest, TileUpdateRequest,
} from "../dashboards/dashboard-schemas.ts";
import { getDashboard, listDashboards, planCreateDashboard, planDeleteDashboard, planUpdateDashboard } from "../dashboards/dashboards.ts";
import { planCreateTile, planDeleteTile, planLayout, planUpdateTile } from "../dashboards/tiles.ts";
import { listParameters } from "./list-docs.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";

type Status = Parameters<typeof errors>[number];
const doc = (operationId: string, summary: string, status: number, schema: OperationDoc["body"], failures: Status[], more: Partial<OperationDoc> = {}): OperationDoc => ({
  operationId, summary, security: "session", ...more,
  responses: { ...answer(status, status === 204 ? "Deleted" : summary, status === 204 ? undefined : schema), ...errors(401, ...failures) },
});

export function dashboardRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const project = (c: Ctx) => sessionProjectAccess(ctx, c);
  const same = <T>(result: T) => result;
  const none = () => undefined;
  const base = "/app/projects/{project_id}/dashboards";
  const tiles = `${base}/{dashboard_id}/tiles`;
  return routes
    .post("/app/projects/{project_id}/region-token", doc("createConsoleRegionToken", "A short-lived token for the project's region API, for the signed-in user", 200, RegionTokenResponse, [400, 403, 404], { body: RegionTokenRequest, bodyOptional: true }),
      async (c: Ctx) => jsonResponse(200, await issueRegionToken(ctx, project(c), c.body === undefined ? {} : validateBody<typeof RegionTokenRequest.static>(RegionTokenRequest, c.body))))
    .get(base, doc("listDashboards", "Dashboards of a project: the home one first, then by name", 200, DashboardListResponse, [400, 403, 404], { parameters: listParameters("name or description") }),
      (c: Ctx) => jsonResponse(200, listDashboards(ctx, project(c), searchParams(c))))
    .post(base, withDryRun(doc("createDashboard", "Create a dashboard", 201, DashboardDto, [400, 403, 404, 409], { body: DashboardCreateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateDashboard(ctx, access, validateBody<typeof DashboardCreateRequest.static>(DashboardCreateRequest, c.body)), same, 201))
    .get(`${base}/{dashboard_id}`, doc("getDashboard", "A dashboard with its tiles and, per insight tile, the region request to send", 200, DashboardDto, [403, 404]),
      (c: Ctx) => jsonResponse(200, getDashboard(ctx, project(c), c.params.dashboard_id!)))
    .patch(`${base}/{dashboard_id}`, withDryRun(doc("updateDashboard", "Change a dashboard", 200, DashboardDto, [400, 403, 404], { body: DashboardUpdateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateDashboard(ctx, access, c.params.dashboard_id!, validateBody<typeof DashboardUpdateRequest.static>(DashboardUpdateRequest, c.body)), same))
    .delete(`${base}/{dashboard_id}`, withDryRun(doc("deleteDashboard", "Delete a dashboard and its tiles", 204, undefined, [403, 404])), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planDeleteDashboard(ctx, access, c.params.dashboard_id!), none, 204))
    .post(`${base}/{dashboard_id}/layout`, withDryRun(doc("layoutDashboard", "Move tiles; the others stay where they are", 200, DashboardDto, [400, 403, 404], { body: LayoutRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planLayout(ctx, access, c.params.dashboard_id!, validateBody<typeof LayoutRequest.static>(LayoutRequest, c.body).tiles), same))
    .post(tiles, withDryRun(doc("createTile", "Add an insight or a text tile", 201, DashboardTileDto, [400, 403, 404, 409], { body: TileCreateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateTile(ctx, access, c.params.dashboard_id!, validateBody<typeof TileCreateRequest.static>(TileCreateRequest, c.body)), same, 201))
    .patch(`${tiles}/{tile_id}`, withDryRun(doc("updateTile", "Change a tile's text or position", 200, DashboardTileDto, [400, 403, 404], { body: TileUpdateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateTile(ctx, access, c.params.dashboard_id!, c.params.tile_id!, validateBody<typeof TileUpdateRequest.static>(TileUpdateRequest, c.body)), same))
    .delete(`${tiles}/{tile_id}`, withDryRun(doc("deleteTile", "Remove a tile", 204, undefined, [403, 404])), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planDeleteTile(ctx, access, c.params.dashboard_id!, c.params.tile_id!), none, 204));
}
