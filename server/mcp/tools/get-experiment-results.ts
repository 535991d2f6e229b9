import { z } from "zod";
import { experimentOfProject } from "../../control/experiments/experiments.ts";
import { experimentResultsOf } from "../../control/experiments/experiment-results.ts";
import { defineTool } from "../tool.ts";
import { projectId, resourceId } from "./inputs.ts";

export const getExperimentResultsTool = defineTool({
  name: "get_experiment_results",
  title: "Read an experiment's results",
  description:
    "A launched experiment's results per metric and variant (effect, interval, significance; docs/experiment-results.md), computed by the region. "
    + "Results younger than 5 minutes are reused unless refresh is set.",
  scope: "experiments:read",
  input: { project_id: projectId, experiment_id: resourceId("experiment"), refresh: z.boolean().optional().describe("Compute them again now (default false).") },
  async run(call, args) {
    const access = call.project(args.project_id);
    return { results: await experimentResultsOf(call.ctx, access, experimentOfProject(call.ctx, access, args.experiment_id), args.refresh ?? false) };
  },
});
