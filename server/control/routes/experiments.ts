// /app metrics and experiments (console paths of metrics are "not shown" in spec 1; the
// experiment paths follow its console table). Writes take `dry_run`.
import { RouteTable, type AnyElysia, type RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { getMetric, listMetrics, MetricCreateRequest, MetricUpdateRequest, planArchiveMetric, planCertifyMetric, planCreateMetric, planUpdateMetric } from "../experiments/metrics.ts";
import { experimentOperations } from "../experiments/experiment-operations.ts";
import { ExperimentCreateRequest, ExperimentPlanRequest, ExperimentTransitionRequest, ExperimentUpdateRequest } from "../experiments/experiment-schemas.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";

export function experimentRoutes(app: AnyElysia, ctx: ControlContext) {
  const project = (c: Ctx) => sessionProjectAccess(ctx, c);
  const operations = experimentOperations(ctx);
  const same = <T>(result: T) => result;
  const transition = (c: Ctx) => (c.body === undefined ? {} : validateBody<typeof ExperimentTransitionRequest.static>(ExperimentTransitionRequest, c.body));
  const base = "/app/projects/:project_id";
  return new RouteTable(app)
    .get(`${base}/metrics`, (c: Ctx) => jsonResponse(200, listMetrics(ctx, project(c), searchParams(c).get("include_archived") === "true")))
    .post(`${base}/metrics`, (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateMetric(ctx, access, validateBody<typeof MetricCreateRequest.static>(MetricCreateRequest, c.body)), same, 201))
    .get(`${base}/metrics/:metric_id`, (c: Ctx) => jsonResponse(200, getMetric(ctx, project(c), c.params.metric_id!)))
    .patch(`${base}/metrics/:metric_id`, (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateMetric(ctx, access, c.params.metric_id!, validateBody<typeof MetricUpdateRequest.static>(MetricUpdateRequest, c.body)), same))
    .post(`${base}/metrics/:metric_id/archive`, (c: Ctx) => projectWrite(ctx, c, (access) => planArchiveMetric(ctx, access, c.params.metric_id!), same))
    .post(`${base}/metrics/:metric_id/certify`, (c: Ctx) => projectWrite(ctx, c, (access) => planCertifyMetric(ctx, access, c.params.metric_id!), same))
    .get(`${base}/experiments`, (c: Ctx) => jsonResponse(200, operations.list(project(c))))
    .post(`${base}/experiments`, (c: Ctx) => {
      const input = validateBody<typeof ExperimentCreateRequest.static>(ExperimentCreateRequest, c.body);
      return projectWrite(ctx, c, (access) => operations.create(access, input), same, 201);
    })
    .post(`${base}/experiments/plan`, (c: Ctx) => jsonResponse(200, operations.plan(project(c), validateBody<typeof ExperimentPlanRequest.static>(ExperimentPlanRequest, c.body))))
    .get(`${base}/experiments/:experiment_id`, (c: Ctx) => jsonResponse(200, operations.get(project(c), c.params.experiment_id!)))
    .patch(`${base}/experiments/:experiment_id`, (c: Ctx) => {
      const input = validateBody<typeof ExperimentUpdateRequest.static>(ExperimentUpdateRequest, c.body);
      return projectWrite(ctx, c, (access) => operations.update(access, c.params.experiment_id!, input), same);
    })
    .delete(`${base}/experiments/:experiment_id`, (c: Ctx) => projectWrite(ctx, c, (access) => operations.remove(access, c.params.experiment_id!), operations.published))
    .post(`${base}/experiments/:experiment_id/launch`, (c: Ctx) => {
      transition(c);
      return projectWrite(ctx, c, (access) => operations.launch(access, c.params.experiment_id!), operations.published);
    })
    .post(`${base}/experiments/:experiment_id/stop`, (c: Ctx) =>
      projectWrite(ctx, c, (access) => operations.stop(access, c.params.experiment_id!, transition(c)), operations.published))
    .post(`${base}/experiments/:experiment_id/ship`, (c: Ctx) =>
      projectWrite(ctx, c, (access) => operations.ship(access, c.params.experiment_id!, transition(c)), operations.published))
    .get(`${base}/experiments/:experiment_id/results`, async (c: Ctx) =>
      jsonResponse(200, await operations.results(project(c), c.params.experiment_id!, searchParams(c).get("refresh") === "true")));
}
