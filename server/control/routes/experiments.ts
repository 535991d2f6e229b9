// /app metrics and experiments (console paths of metrics are "not shown" in spec 1; the
// experiment paths follow its console table). Writes take `dry_run`. Metrics are in
// /openapi.json; experiments are not (spec 1).
import { t } from "elysia";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import {
  getMetric, listMetrics, MetricCreateRequest, MetricDto, MetricListResponse, MetricUpdateRequest, planArchiveMetric, planCertifyMetric, planCreateMetric, planUpdateMetric,
} from "../experiments/metrics.ts";
import { experimentOperations } from "../experiments/experiment-operations.ts";
import { MetricQueryRequest, prepareMetricQuery } from "../experiments/metric-query.ts";
import { V1QueryResponse } from "../schemas.ts";
import { ExperimentCreateRequest, ExperimentPlanRequest, ExperimentTransitionRequest, ExperimentUpdateRequest } from "../experiments/experiment-schemas.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors, unlisted, withDryRun, type OperationDoc } from "../contract/operation.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";
import { pushFindingsAfterMetricChange } from "../findings/findings-sync.ts";
import type { ProjectAccess } from "../access.ts";

const experimentDoc = (operationId: string, summary: string) => unlisted(operationId, summary, "session", "docs/experiments.md");
const metricDoc = (operationId: string, summary: string, status: number, description: string, more: Partial<OperationDoc> = {}): OperationDoc => ({
  operationId, summary, security: "session", ...more, responses: { ...answer(status, description, MetricDto), ...errors(400, 401, 403, 404, 409) },
});
const includeArchived = {
  name: "include_archived", in: "query" as const, description: "true: list archived metrics too", schema: t.Boolean(),
};

export function experimentRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const project = (c: Ctx) => sessionProjectAccess(ctx, c);
  const operations = experimentOperations(ctx);
  const same = <T>(result: T) => result;
  // Findings rules that name the metric evaluate its new definition (or stop, once it is archived).
  const metricChanged = async <T extends { key: string }>(metric: T, access: ProjectAccess) => {
    await pushFindingsAfterMetricChange(ctx, access.project, metric.key);
    return metric;
  };
  const transition = (c: Ctx) => (c.body === undefined ? {} : validateBody<typeof ExperimentTransitionRequest.static>(ExperimentTransitionRequest, c.body));
  const base = "/app/projects/{project_id}";
  return routes
    .get(`${base}/metrics`, {
      operationId: "listMetrics", summary: "Metrics of a project, by key", security: "session", parameters: [includeArchived],
      responses: { ...answer(200, "Metrics", MetricListResponse), ...errors(401, 403, 404) },
    }, (c: Ctx) => jsonResponse(200, listMetrics(ctx, project(c), searchParams(c).get("include_archived") === "true")))
    .post(`${base}/metrics`, withDryRun(metricDoc("createMetric", "Define a metric", 201, "Created", { body: MetricCreateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateMetric(ctx, access, validateBody<typeof MetricCreateRequest.static>(MetricCreateRequest, c.body)), same, 201))
    .get(`${base}/metrics/{metric_id}`, metricDoc("getMetric", "One metric", 200, "The metric"), (c: Ctx) => jsonResponse(200, getMetric(ctx, project(c), c.params.metric_id!)))
    .patch(`${base}/metrics/{metric_id}`, withDryRun(metricDoc("updateMetric", "Change a metric; a new query raises its version and drops its certification", 200, "The metric", { body: MetricUpdateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateMetric(ctx, access, c.params.metric_id!, validateBody<typeof MetricUpdateRequest.static>(MetricUpdateRequest, c.body)), metricChanged))
    .post(`${base}/metrics/{metric_id}/archive`, withDryRun(metricDoc("archiveMetric", "Archive a metric", 200, "The metric")), (c: Ctx) => projectWrite(ctx, c, (access) => planArchiveMetric(ctx, access, c.params.metric_id!), metricChanged))
    .post(`${base}/metrics/{metric_id}/query`, {
      operationId: "queryMetric", summary: "The metric as a trends query: a query:read region token and the exact region request to send", security: "session",
      body: MetricQueryRequest, bodyOptional: true, responses: { ...answer(200, "Region token and region request", V1QueryResponse), ...errors(400, 401, 403, 404) },
    }, async (c: Ctx) => jsonResponse(200, await prepareMetricQuery(ctx, project(c), c.params.metric_id!, c.body === undefined ? {} : validateBody<typeof MetricQueryRequest.static>(MetricQueryRequest, c.body))))
    .post(`${base}/metrics/{metric_id}/certify`, withDryRun(metricDoc("certifyMetric", "Certify a metric (admins and owners)", 200, "The metric")), (c: Ctx) => projectWrite(ctx, c, (access) => planCertifyMetric(ctx, access, c.params.metric_id!), same))
    .get(`${base}/experiments`, experimentDoc("listConsoleExperiments", "Experiments of a project"), (c: Ctx) => jsonResponse(200, operations.list(project(c))))
    .post(`${base}/experiments`, experimentDoc("createConsoleExperiment", "Create an experiment"), (c: Ctx) => {
      const input = validateBody<typeof ExperimentCreateRequest.static>(ExperimentCreateRequest, c.body);
      return projectWrite(ctx, c, (access) => operations.create(access, input), same, 201);
    })
    .post(`${base}/experiments/plan`, experimentDoc("planConsoleExperiment", "Sample size and duration of an experiment"), (c: Ctx) => jsonResponse(200, operations.plan(project(c), validateBody<typeof ExperimentPlanRequest.static>(ExperimentPlanRequest, c.body))))
    .get(`${base}/experiments/{experiment_id}`, experimentDoc("getConsoleExperiment", "One experiment"), (c: Ctx) => jsonResponse(200, operations.get(project(c), c.params.experiment_id!)))
    .patch(`${base}/experiments/{experiment_id}`, experimentDoc("updateConsoleExperiment", "Change an experiment"), (c: Ctx) => {
      const input = validateBody<typeof ExperimentUpdateRequest.static>(ExperimentUpdateRequest, c.body);
      return projectWrite(ctx, c, (access) => operations.update(access, c.params.experiment_id!, input), same);
    })
    .delete(`${base}/experiments/{experiment_id}`, experimentDoc("archiveConsoleExperiment", "Archive an experiment"), (c: Ctx) => projectWrite(ctx, c, (access) => operations.remove(access, c.params.experiment_id!), operations.published))
    .post(`${base}/experiments/{experiment_id}/launch`, experimentDoc("launchConsoleExperiment", "Launch an experiment"), (c: Ctx) => {
      transition(c);
      return projectWrite(ctx, c, (access) => operations.launch(access, c.params.experiment_id!), operations.published);
    })
    .post(`${base}/experiments/{experiment_id}/stop`, experimentDoc("stopConsoleExperiment", "Stop an experiment"), (c: Ctx) =>
      projectWrite(ctx, c, (access) => operations.stop(access, c.params.experiment_id!, transition(c)), operations.published))
    .post(`${base}/experiments/{experiment_id}/ship`, experimentDoc("shipConsoleExperiment", "Ship the winning variant of an experiment"), (c: Ctx) =>
      projectWrite(ctx, c, (access) => operations.ship(access, c.params.experiment_id!, transition(c)), operations.published))
    .get(`${base}/experiments/{experiment_id}/results`, experimentDoc("getConsoleExperimentResults", "Results of an experiment"), async (c: Ctx) =>
      jsonResponse(200, await operations.results(project(c), c.params.experiment_id!, searchParams(c).get("refresh") === "true")));
}
