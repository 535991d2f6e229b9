import { z } from "zod";
import { checkQuery } from "../../control/services/region-queries.ts";
import { defineTool } from "../tool.ts";
import { regionCall } from "../region-call.ts";
import { environment, jsonDocument, projectId } from "./inputs.ts";

export const runQueryTool = defineTool({
  name: "run_query",
  title: "Run a Query IR document",
  description:
    "Validates and runs a Query IR v1 document (trends, funnels, retention, paths, …; its JSON Schema is published at {region_api_url}/schema/query-ir and described in docs/query-ir.md) "
    + "on a project environment, and answers the result with the SQL (DuckDB dialect) that computes it.",
  scope: "query:read",
  input: {
    project_id: projectId,
    environment,
    query: jsonDocument('The Query IR v1 document, e.g. {"ir_version": 1, "date_range": {"from": "-7d"}, "insight": {"kind": "trends", "interval": "day", "series": [{"event": "$pageview", "math": "total"}]}}.'),
    include_sql: z.boolean().optional().describe("Also answer the SQL (default true)."),
    refresh: z.boolean().optional().describe("Bypass the region's result cache (default false)."),
  },
  async run(call, args) {
    const access = call.project(args.project_id);
    checkQuery(args.query, access.project.timezone);
    const body = { query: args.query, include_sql: args.include_sql ?? true, refresh: args.refresh ?? false };
    return regionCall(call.ctx, access, { environment: args.environment, scope: "query:read", method: "POST", path: "/query", body });
  },
});
