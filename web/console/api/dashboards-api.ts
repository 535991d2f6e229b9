// The console API routes of dashboards and their tiles (docs/dashboards.md). The saved
// insights a tile can show are listed with api/insights.ts.
import { requestJson } from "./http.ts";
import type { DashboardChanges, DashboardDto, DashboardListResponse, DashboardTileDto, TileLayout } from "./dashboard-types.ts";

const id = encodeURIComponent;
const dashboardsPath = (projectId: string) => `/app/projects/${id(projectId)}/dashboards`;
const dashboardPath = (projectId: string, dashboardId: string) => `${dashboardsPath(projectId)}/${id(dashboardId)}`;
const tilePath = (projectId: string, dashboardId: string, tileId: string) => `${dashboardPath(projectId, dashboardId)}/tiles/${id(tileId)}`;

const query = (params: Record<string, string | number | null | undefined>) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined && value !== "") search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
};

/** How many dashboards a page of the list holds. */
export const dashboardsPageSize = 50;

export const listDashboards = (projectId: string, params: { search?: string; offset?: number }) =>
  requestJson<DashboardListResponse>("GET", `${dashboardsPath(projectId)}${query({ search: params.search, offset: params.offset || null, limit: dashboardsPageSize })}`);
export const getDashboard = (projectId: string, dashboardId: string) => requestJson<DashboardDto>("GET", dashboardPath(projectId, dashboardId));
export const createDashboard = (projectId: string, input: { name: string; description?: string | null }) =>
  requestJson<DashboardDto>("POST", dashboardsPath(projectId), input);
export const updateDashboard = (projectId: string, dashboardId: string, changes: DashboardChanges) =>
  requestJson<DashboardDto>("PATCH", dashboardPath(projectId, dashboardId), changes);
export const deleteDashboard = (projectId: string, dashboardId: string) => requestJson<void>("DELETE", dashboardPath(projectId, dashboardId));

/** Moves the listed tiles; the others stay where they are. Answers the whole dashboard. */
export const saveLayout = (projectId: string, dashboardId: string, tiles: ({ id: string } & TileLayout)[]) =>
  requestJson<DashboardDto>("POST", `${dashboardPath(projectId, dashboardId)}/layout`, { tiles });
export const addTile = (projectId: string, dashboardId: string, input: { kind: "insight"; insight_id: string } | { kind: "text"; body: string }) =>
  requestJson<DashboardTileDto>("POST", `${dashboardPath(projectId, dashboardId)}/tiles`, input);
export const updateTextTile = (projectId: string, dashboardId: string, tileId: string, body: string) =>
  requestJson<DashboardTileDto>("PATCH", tilePath(projectId, dashboardId, tileId), { body });
export const removeTile = (projectId: string, dashboardId: string, tileId: string) => requestJson<void>("DELETE", tilePath(projectId, dashboardId, tileId));
