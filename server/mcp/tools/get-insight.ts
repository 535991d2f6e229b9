import { getInsight } from "../../control/insights/insights.ts";
import { defineTool } from "../tool.ts";
import { projectId, resourceId } from "./inputs.ts";

export const getInsightTool = defineTool({
  name: "get_insight",
  title: "Read a saved insight",
  description: "One saved insight with its Query IR document (pass it to run_query to get its numbers) and chart settings.",
  scope: "insights:read",
  input: { project_id: projectId, insight_id: resourceId("insight") },
  run(call, args) {
    return { insight: getInsight(call.ctx, call.project(args.project_id), args.insight_id) };
  },
});
