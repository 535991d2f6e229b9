// Experiment operations as the console and /v1 routes share them (same bodies, same answers).
import type { ControlContext } from "../context.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import { pushPublications } from "../flags/flag-publications.ts";
import { experimentOfProject, getExperiment, listExperiments, planCreateExperiment, planUpdateExperiment } from "./experiments.ts";
import { checkShip, planDelete, planLaunch, planShip, planStop, type TransitionResult } from "./experiment-transitions.ts";
import { experimentPlan } from "./experiment-plan.ts";
import { experimentResultsOf, harmedGuardrails } from "./experiment-results.ts";
import type { ExperimentCreateInput, ExperimentPlanInput, ExperimentTransitionInput, ExperimentUpdateInput } from "./experiment-schemas.ts";

export function experimentOperations(ctx: ControlContext) {
  return {
    list: (access: ProjectAccess) => listExperiments(ctx, access),
    get: (access: ProjectAccess, id: string) => getExperiment(ctx, access, id),
    create: (access: ProjectAccess, input: ExperimentCreateInput) => planCreateExperiment(ctx, access, input),
    update: (access: ProjectAccess, id: string, input: ExperimentUpdateInput) => planUpdateExperiment(ctx, access, id, input),
    remove: (access: ProjectAccess, id: string) => planDelete(ctx, access, id),
    launch: (access: ProjectAccess, id: string) => planLaunch(ctx, access, id),
    stop: (access: ProjectAccess, id: string, input: ExperimentTransitionInput) => planStop(ctx, access, id, input),
    /** Reads the results (when guardrails need checking) before planning the ship. */
    ship: async (access: ProjectAccess, id: string, input: ExperimentTransitionInput) => {
      const row = checkShip(ctx, access, id, input);
      return planShip(ctx, access, row, input, await harmedGuardrails(ctx, access, row, input.variant!));
    },
    plan: (access: ProjectAccess, input: ExperimentPlanInput) => experimentPlan(access, input),
    results: (access: ProjectAccess, id: string, refresh: boolean) => {
      requireScope(access, "experiments:read");
      return experimentResultsOf(ctx, access, experimentOfProject(ctx, access, id), refresh);
    },
    /** After a transition commits: the flag change it made pushed to the region, then the experiment. */
    published: async (result: TransitionResult) => {
      await pushPublications(ctx, result.publications);
      return result.experiment;
    },
  };
}
