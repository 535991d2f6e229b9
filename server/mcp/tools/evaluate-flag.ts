// A flag evaluated by the region for one distinct id, exactly as an SDK asking the region's
// POST {ingest_url}/flags with the environment's public key would get it.
import { z } from "zod";
import { and, eq, isNull } from "drizzle-orm";
import { notFound, unavailable } from "../../http/errors.ts";
import { flags, publicKeys } from "../../control/db/schema.ts";
import { defaultEnvironment, requireEnvironment } from "../../control/services/projects.ts";
import { ingestUrl } from "../../control/services/region-tokens.ts";
import { defineTool } from "../tool.ts";
import { regionAnswerMarginMs } from "../region-call.ts";
import { flagPersonPropertiesMax, toolTextCharsMax } from "../mcp-limits.ts";
import { environment, projectId } from "./inputs.ts";

export const evaluateFlagTool = defineTool({
  name: "evaluate_flag",
  title: "Evaluate a feature flag",
  description:
    "Whether a flag is on for a distinct id in an environment, its variant and payload, and why (the region's reason code and the rule that matched), "
    + "from the flag configuration last published to the region. person_properties overlay the stored ones.",
  scope: "flags:read",
  input: {
    project_id: projectId,
    environment,
    flag_key: z.string().min(1).max(toolTextCharsMax).describe("The flag's key, from list_flags."),
    distinct_id: z.string().min(1).max(toolTextCharsMax).describe("Whom to evaluate the flag for."),
    person_properties: z.record(z.string().max(toolTextCharsMax), z.union([z.string().max(toolTextCharsMax), z.number(), z.boolean(), z.null()]))
      .refine((value) => Object.keys(value).length <= flagPersonPropertiesMax, { message: `at most ${flagPersonPropertiesMax} properties` })
      .optional()
      .describe("Person properties to evaluate with, over the stored ones."),
  },
  async run(call, args) {
    const access = call.project(args.project_id);
    const environmentName = args.environment ?? defaultEnvironment;
    requireEnvironment(call.ctx, access.project.id, environmentName);
    const flag = call.ctx.db.select({ id: flags.id }).from(flags).where(and(eq(flags.projectId, access.project.id), eq(flags.key, args.flag_key))).get();
    if (!flag) throw notFound("flag");
    const key = call.ctx.db.select({ key: publicKeys.key }).from(publicKeys)
      .where(and(eq(publicKeys.projectId, access.project.id), eq(publicKeys.environment, environmentName), isNull(publicKeys.revokedAt))).get();
    if (!key) throw unavailable(`the ${environmentName} environment has no live public key to evaluate flags with`);
    let response: Response;
    try {
      response = await fetch(`${ingestUrl(call.ctx, access.project.region)}/flags`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ api_key: key.key, distinct_id: args.distinct_id, person_properties: args.person_properties ?? {}, flag_keys_to_evaluate: [args.flag_key] }),
        signal: AbortSignal.timeout(call.ctx.config.queryTimeoutMs + regionAnswerMarginMs),
      });
    } catch (error) {
      throw unavailable(`region ${access.project.region} did not answer: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => null)) as { flags?: Record<string, unknown>; error?: unknown } | null;
    if (response.status !== 200 || !body?.flags) {
      throw unavailable(`region ${access.project.region} could not evaluate the flag: ${typeof body?.error === "string" ? body.error : `status ${response.status}`}`);
    }
    return {
      flag_key: args.flag_key,
      distinct_id: args.distinct_id,
      environment: environmentName,
      // Not in the answer: the flag has not been published to the region's environment yet.
      evaluation: Object.hasOwn(body.flags, args.flag_key) ? body.flags[args.flag_key] : null,
    };
  },
});
