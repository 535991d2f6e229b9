import { z } from "zod";
import { listFlags } from "../../control/flags/flags.ts";
import { defineTool } from "../tool.ts";
import { projectId } from "./inputs.ts";

export const listFlagsTool = defineTool({
  name: "list_flags",
  title: "List feature flags",
  description: "A project's feature flags by key, each with its configuration per environment (enabled, rules, variants, payloads).",
  scope: "flags:read",
  input: { project_id: projectId, include_archived: z.boolean().optional().describe("Also archived flags (default false).") },
  run(call, args) {
    return listFlags(call.ctx, call.project(args.project_id), args.include_archived ?? false);
  },
});
