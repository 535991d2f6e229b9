// Every tool the MCP server offers, in the order tools/list answers them.
import { sortScopes } from "../control/auth/scopes.ts";
import type { McpTool } from "./tool.ts";
import { listProjectsTool } from "./tools/list-projects.ts";
import { describeSchemaTool } from "./tools/describe-schema.ts";
import { runQueryTool } from "./tools/run-query.ts";
import { runSqlTool } from "./tools/run-sql.ts";
import { listInsightsTool } from "./tools/list-insights.ts";
import { getInsightTool } from "./tools/get-insight.ts";
import { createInsightTool } from "./tools/create-insight.ts";
import { listDashboardsTool } from "./tools/list-dashboards.ts";
import { getDashboardTool } from "./tools/get-dashboard.ts";
import { listFlagsTool } from "./tools/list-flags.ts";
import { evaluateFlagTool } from "./tools/evaluate-flag.ts";
import { listExperimentsTool } from "./tools/list-experiments.ts";
import { getExperimentResultsTool } from "./tools/get-experiment-results.ts";

export const mcpTools: readonly McpTool[] = [
  listProjectsTool, describeSchemaTool, runQueryTool, runSqlTool,
  listInsightsTool, getInsightTool, createInsightTool, listDashboardsTool, getDashboardTool,
  listFlagsTool, evaluateFlagTool, listExperimentsTool, getExperimentResultsTool,
];

/** The scopes the tools check, in catalogue order: what the protected-resource metadata offers. */
export const mcpToolScopes: readonly string[] = sortScopes(new Set(mcpTools.map((tool) => tool.scope)));
