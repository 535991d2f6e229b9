import { listInsights } from "../../control/insights/insights.ts";
import { defineTool } from "../tool.ts";
import { limit, listQuery, offset, projectId, search } from "./inputs.ts";
import { insightSummary } from "./insight-summary.ts";

export const listInsightsTool = defineTool({
  name: "list_insights",
  title: "List saved insights",
  description: "A project's saved insights, last changed first: id, name, kind, description, tags. get_insight gives one with its Query IR document.",
  scope: "insights:read",
  input: { project_id: projectId, search, limit, offset },
  run(call, args) {
    const page = listInsights(call.ctx, call.project(args.project_id), listQuery(args));
    return { insights: page.insights.map(insightSummary), next_offset: page.next_offset };
  },
});
