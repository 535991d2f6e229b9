// /v1 experiments (spec 1: "Experiments: GET, POST …/experiments; GET, PATCH, DELETE
// …/experiments/{id}; POST …/experiments/{id}/launch, /stop, /ship; GET …/experiments/{id}/results;
// POST …/experiments/plan", same bodies as the console). Served, but absent from /openapi.json.
import type { ControlContext } from "../context.ts";
import { projectAccess } from "../access.ts";
import { experimentOperations } from "../experiments/experiment-operations.ts";
import type { TransitionResult } from "../experiments/experiment-transitions.ts";
import { ExperimentCreateRequest, ExperimentPlanRequest, ExperimentTransitionRequest, ExperimentUpdateRequest } from "../experiments/experiment-schemas.ts";
import type { V1Call, V1Route } from "./route.ts";

const answered = { 200: { description: "See docs/experiments.md" } };

export function v1ExperimentRoutes(ctx: ControlContext): V1Route[] {
  const operations = experimentOperations(ctx);
  const base = { contract: false as const, responses: answered };
  const path = "/v1/projects/{project_id}/experiments";
  const access = (call: V1Call) => projectAccess(ctx, call.principal, call.params.project_id!);
  const transitionReply = async (result: TransitionResult) => ({ status: 200, body: await operations.published(result) });
  const same = (status: number) => (body: unknown) => ({ status, body });
  return [
    { ...base, method: "GET", path, operationId: "listExperiments", summary: "Experiments of a project", scope: "experiments:read", write: false,
      handle: (call) => ({ status: 200, body: operations.list(access(call)) }) },
    { ...base, method: "POST", path, operationId: "createExperiment", summary: "Create an experiment on a multivariate flag", scope: "experiments:write", write: true, body: ExperimentCreateRequest,
      handle: (call) => ({ plan: operations.create(access(call), call.body), respond: same(201) }) },
    { ...base, method: "POST", path: `${path}/plan`, operationId: "planExperiment", summary: "Sample size and duration", scope: "experiments:read", write: false, body: ExperimentPlanRequest,
      handle: (call) => ({ status: 200, body: operations.plan(access(call), call.body) }) },
    { ...base, method: "GET", path: `${path}/{experiment_id}`, operationId: "getExperiment", summary: "One experiment", scope: "experiments:read", write: false,
      handle: (call) => ({ status: 200, body: operations.get(access(call), call.params.experiment_id!) }) },
    { ...base, method: "PATCH", path: `${path}/{experiment_id}`, operationId: "updateExperiment", summary: "Change an experiment's settings", scope: "experiments:write", write: true,
      body: ExperimentUpdateRequest, handle: (call) => ({ plan: operations.update(access(call), call.params.experiment_id!, call.body), respond: same(200) }) },
    { ...base, method: "DELETE", path: `${path}/{experiment_id}`, operationId: "deleteExperiment", summary: "Archive an experiment", scope: "experiments:write", write: true,
      handle: (call) => ({ plan: operations.remove(access(call), call.params.experiment_id!), respond: transitionReply }) },
    { ...base, method: "POST", path: `${path}/{experiment_id}/launch`, operationId: "launchExperiment", summary: "Start the experiment (turns its flag on)", scope: "experiments:write",
      write: true, body: ExperimentTransitionRequest, bodyOptional: true, handle: (call) => ({ plan: operations.launch(access(call), call.params.experiment_id!), respond: transitionReply }) },
    { ...base, method: "POST", path: `${path}/{experiment_id}/stop`, operationId: "stopExperiment", summary: "Stop measuring", scope: "experiments:write", write: true,
      body: ExperimentTransitionRequest, bodyOptional: true, handle: (call) => ({ plan: operations.stop(access(call), call.params.experiment_id!, call.body), respond: transitionReply }) },
    { ...base, method: "POST", path: `${path}/{experiment_id}/ship`, operationId: "shipExperiment", summary: "Serve one variant to everyone", scope: "experiments.ship", write: true,
      body: ExperimentTransitionRequest, bodyOptional: true,
      handle: async (call) => ({ plan: await operations.ship(access(call), call.params.experiment_id!, call.body), respond: transitionReply }) },
    { ...base, method: "GET", path: `${path}/{experiment_id}/results`, operationId: "experimentResults", summary: "Results (kept 5 minutes unless refresh)", scope: "experiments:read",
      write: false, handle: async (call) => ({ status: 200, body: await operations.results(access(call), call.params.experiment_id!, call.query.get("refresh") === "true") }) },
  ];
}
