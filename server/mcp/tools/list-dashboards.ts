import { listDashboards } from "../../control/dashboards/dashboards.ts";
import { defineTool } from "../tool.ts";
import { limit, listQuery, offset, projectId, search } from "./inputs.ts";

export const listDashboardsTool = defineTool({
  name: "list_dashboards",
  title: "List dashboards",
  description: "A project's dashboards, the home dashboard first, then by name: id, name, tags, tile count.",
  scope: "dashboards:read",
  input: { project_id: projectId, search, limit, offset },
  run(call, args) {
    return listDashboards(call.ctx, call.project(args.project_id), listQuery(args));
  },
});
