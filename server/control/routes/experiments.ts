// /app metrics and experiments (console paths of metrics are "not shown" in spec 1; the
// experiment paths follow its console table). Writes take `dry_run`.
import { RouteTable, type AnyElysia, type RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { projectAccess } from "../access.ts";
import { applyWrite, isDryRun, previewWrite, type WritePlan } from "../services/audited-write.ts";
import { getMetric, listMetrics, MetricCreateRequest, MetricUpdateRequest, planArchiveMetric, planCertifyMetric, planCreateMetric, planUpdateMetric } from "../experiments/metrics.ts";
import { experimentOperations } from "../experiments/experiment-operations.ts";
import { ExperimentCreateRequest, ExperimentPlanRequest, ExperimentTransitionRequest, ExperimentUpdateRequest } from "../experiments/experiment-schemas.ts";
import { requireSession } from "./session-auth.ts";

const query = (c: Ctx) => new URL(c.request.url).searchParams;

export function experimentRoutes(app: AnyElysia, ctx: ControlContext) {
  const project = (c: Ctx) => projectAccess(ctx, requireSession(ctx, c.request), c.params.project_id!);
  const operations = experimentOperations(ctx);
  const write = async <T>(c: Ctx, plan: WritePlan<T>, respond: (result: T) => unknown, status = 200) =>
    isDryRun(query(c).get("dry_run")) ? jsonResponse(200, previewWrite(plan)) : jsonResponse(status, await respond(applyWrite(ctx, project(c).principal, plan)));
  const same = <T>(result: T) => result;
  const transition = (c: Ctx) => (c.body === undefined ? {} : validateBody<typeof ExperimentTransitionRequest.static>(ExperimentTransitionRequest, c.body));
  const base = "/app/projects/:project_id";
  return new RouteTable(app)
    .get(`${base}/metrics`, (c: Ctx) => jsonResponse(200, listMetrics(ctx, project(c), query(c).get("include_archived") === "true")))
    .post(`${base}/metrics`, (c: Ctx) => write(c, planCreateMetric(ctx, project(c), validateBody<typeof MetricCreateRequest.static>(MetricCreateRequest, c.body)), same, 201))
    .get(`${base}/metrics/:metric_id`, (c: Ctx) => jsonResponse(200, getMetric(ctx, project(c), c.params.metric_id!)))
    .patch(`${base}/metrics/:metric_id`, (c: Ctx) =>
      write(c, planUpdateMetric(ctx, project(c), c.params.metric_id!, validateBody<typeof MetricUpdateRequest.static>(MetricUpdateRequest, c.body)), same))
    .post(`${base}/metrics/:metric_id/archive`, (c: Ctx) => write(c, planArchiveMetric(ctx, project(c), c.params.metric_id!), same))
    .post(`${base}/metrics/:metric_id/certify`, (c: Ctx) => write(c, planCertifyMetric(ctx, project(c), c.params.metric_id!), same))
    .get(`${base}/experiments`, (c: Ctx) => jsonResponse(200, operations.list(project(c))))
    .post(`${base}/experiments`, (c: Ctx) => {
      const input = validateBody<typeof ExperimentCreateRequest.static>(ExperimentCreateRequest, c.body);
      return write(c, operations.create(project(c), input), same, 201);
    })
    .post(`${base}/experiments/plan`, (c: Ctx) => jsonResponse(200, operations.plan(project(c), validateBody<typeof ExperimentPlanRequest.static>(ExperimentPlanRequest, c.body))))
    .get(`${base}/experiments/:experiment_id`, (c: Ctx) => jsonResponse(200, operations.get(project(c), c.params.experiment_id!)))
    .patch(`${base}/experiments/:experiment_id`, (c: Ctx) => {
      const input = validateBody<typeof ExperimentUpdateRequest.static>(ExperimentUpdateRequest, c.body);
      return write(c, operations.update(project(c), c.params.experiment_id!, input), same);
    })
    .delete(`${base}/experiments/:experiment_id`, (c: Ctx) => write(c, operations.remove(project(c), c.params.experiment_id!), operations.published))
    .post(`${base}/experiments/:experiment_id/launch`, (c: Ctx) => {
      transition(c);
      return write(c, operations.launch(project(c), c.params.experiment_id!), operations.published);
    })
    .post(`${base}/experiments/:experiment_id/stop`, (c: Ctx) => write(c, operations.stop(project(c), c.params.experiment_id!, transition(c)), operations.published))
    .post(`${base}/experiments/:experiment_id/ship`, async (c: Ctx) =>
      write(c, await operations.ship(project(c), c.params.experiment_id!, transition(c)), operations.published))
    .get(`${base}/experiments/:experiment_id/results`, async (c: Ctx) =>
      jsonResponse(200, await operations.results(project(c), c.params.experiment_id!, query(c).get("refresh") === "true")));
}
