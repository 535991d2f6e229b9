import { z } from "zod";
import { rateLimited } from "../../http/errors.ts";
import { planCreateInsight } from "../../control/insights/insights.ts";
import { insightDescriptionLengthMax } from "../../control/insights/insight-schemas.ts";
import { nameLengthMax } from "../../control/schemas.ts";
import { tagLengthMax, tagsPerResourceMax } from "../../control/tags.ts";
import { applyWrite } from "../../control/services/audited-write.ts";
import { defineTool } from "../tool.ts";
import { jsonDocument, projectId } from "./inputs.ts";

export const createInsightTool = defineTool({
  name: "create_insight",
  title: "Save an insight",
  description: "Saves a Query IR v1 document as an insight of the project (created_via \"api\"), so people find it in the console. The document is validated first, as run_query does.",
  scope: "insights:write",
  writes: true,
  input: {
    project_id: projectId,
    name: z.string().trim().min(1).max(nameLengthMax).describe("The insight's name."),
    query: jsonDocument("The Query IR v1 document."),
    description: z.string().max(insightDescriptionLengthMax).optional().describe("What it shows and why."),
    tags: z.array(z.string().trim().min(1).max(tagLengthMax)).max(tagsPerResourceMax).optional(),
  },
  run(call, args) {
    const access = call.project(args.project_id);
    const plan = planCreateInsight(call.ctx, access, {
      name: args.name, query: args.query, created_via: "api", description: args.description ?? null, tags: args.tags ?? [],
    });
    const writes = call.ctx.limiters.tokenWrites.take(call.session.principal.token.id);
    if (!writes.allowed) throw rateLimited(writes.retryAfterSeconds, "write limit per token exceeded");
    return { insight: applyWrite(call.ctx, call.session.principal, plan) };
  },
});
