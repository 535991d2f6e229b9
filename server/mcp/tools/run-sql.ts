import { z } from "zod";
import { defineTool } from "../tool.ts";
import { regionCall } from "../region-call.ts";
import { sqlParamsMax, toolDocumentCharsMax } from "../mcp-limits.ts";
import { environment, projectId } from "./inputs.ts";

export const runSqlTool = defineTool({
  name: "run_sql",
  title: "Run SQL",
  description:
    "Runs one read-only SELECT (DuckDB) over the `events` view of a project environment (docs/sql.md) and answers columns, types and rows. "
    + "Bind values with $1, $2, … and params rather than writing them into the statement.",
  scope: "sql.raw",
  input: {
    project_id: projectId,
    environment,
    sql: z.string().min(1).max(toolDocumentCharsMax).describe("One SELECT statement."),
    params: z.array(z.union([z.string().max(toolDocumentCharsMax), z.number(), z.boolean(), z.null()])).max(sqlParamsMax).optional().describe("Values of $1, $2, … in order."),
  },
  async run(call, args) {
    const access = call.project(args.project_id);
    const body = { sql: args.sql, ...(args.params === undefined ? {} : { params: args.params }) };
    return regionCall(call.ctx, access, { environment: args.environment, scope: "sql.raw", method: "POST", path: "/sql", body });
  },
});
