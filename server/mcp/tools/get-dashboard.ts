import { getDashboard } from "../../control/dashboards/dashboards.ts";
import { defineTool } from "../tool.ts";
import { projectId, resourceId } from "./inputs.ts";
import { insightSummary } from "./insight-summary.ts";

export const getDashboardTool = defineTool({
  name: "get_dashboard",
  title: "Read a dashboard",
  description:
    "One dashboard with its tiles in reading order: each insight tile names its insight and carries `query`, the insight's Query IR document with the dashboard's date range and filters applied "
    + "(pass it to run_query for the tile's numbers; null with `query_error` when the overrides do not fit the insight); text tiles carry their body.",
  scope: "dashboards:read",
  input: { project_id: projectId, dashboard_id: resourceId("dashboard") },
  run(call, args) {
    const dashboard = getDashboard(call.ctx, call.project(args.project_id), args.dashboard_id);
    return {
      dashboard: {
        ...dashboard,
        tiles: dashboard.tiles.map((tile) => ({
          id: tile.id,
          kind: tile.kind,
          layout: tile.layout,
          body: tile.body,
          insight: tile.insight ? insightSummary(tile.insight) : null,
          query: tile.request?.body.query ?? null,
          query_error: tile.request_error,
        })),
      },
    };
  },
});
