import { listExperiments } from "../../control/experiments/experiments.ts";
import { defineTool } from "../tool.ts";
import { projectId } from "./inputs.ts";

export const listExperimentsTool = defineTool({
  name: "list_experiments",
  title: "List experiments",
  description: "A project's experiments, oldest first: flag, status (draft, running, stopped, shipped), variants, metrics, dates and decision.",
  scope: "experiments:read",
  input: { project_id: projectId },
  run(call, args) {
    return listExperiments(call.ctx, call.project(args.project_id));
  },
});
