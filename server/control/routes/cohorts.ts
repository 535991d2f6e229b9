// /app cohorts (spec 1's console table). The region evaluates definitions and keeps
// memberships; `calculate` asks it and records what it answers (docs/cohorts.md).
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors, withDryRun, type OperationDoc } from "../contract/operation.ts";
import { requireScope } from "../access.ts";
import { applyWrite } from "../services/audited-write.ts";
import { defaultEnvironment, requireEnvironment } from "../services/projects.ts";
import { CohortCalculateRequest, CohortCreateRequest, CohortDto, CohortListResponse, CohortUpdateRequest } from "../cohorts/cohort-schemas.ts";
import { cohortDto, cohortOfProject, getCohort, listCohorts, planCreateCohort, planDeleteCohort, planUpdateCohort } from "../cohorts/cohorts.ts";
import { calculateCohort } from "../cohorts/cohort-calculation.ts";
import { pushPublications } from "../flags/flag-publications.ts";
import { projectWrite, sessionProjectAccess } from "./project-write.ts";

type Status = Parameters<typeof errors>[number];
const doc = (operationId: string, summary: string, status: number, failures: Status[], more: Partial<OperationDoc> = {}): OperationDoc => ({
  operationId, summary, security: "session", ...more,
  responses: { ...answer(status, status === 204 ? "Deleted" : summary, status === 204 ? undefined : CohortDto), ...errors(401, ...failures) },
});

export function cohortRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const base = "/app/projects/{project_id}/cohorts";
  const project = (c: Ctx) => sessionProjectAccess(ctx, c);
  const same = <T>(result: T) => result;
  return routes
    .get(base, { operationId: "listCohorts", summary: "Cohorts of a project, by name", security: "session", responses: { ...answer(200, "Cohorts", CohortListResponse), ...errors(401, 403, 404) } },
      (c: Ctx) => jsonResponse(200, listCohorts(ctx, project(c))))
    .post(base, withDryRun(doc("createCohort", "Create a dynamic (definition) or static (member list) cohort", 201, [400, 403, 404, 409], { body: CohortCreateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateCohort(ctx, access, validateBody<typeof CohortCreateRequest.static>(CohortCreateRequest, c.body)), same, 201))
    .get(`${base}/{cohort_id}`, doc("getCohort", "One cohort with its last calculation in each environment", 200, [403, 404]), (c: Ctx) => jsonResponse(200, getCohort(ctx, project(c), c.params.cohort_id!)))
    .patch(`${base}/{cohort_id}`, withDryRun(doc("updateCohort", "Change a cohort; a new definition raises its version", 200, [400, 403, 404], { body: CohortUpdateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateCohort(ctx, access, c.params.cohort_id!, validateBody<typeof CohortUpdateRequest.static>(CohortUpdateRequest, c.body)), async ({ cohort, publications }) => {
        await pushPublications(ctx, publications);
        return cohort;
      }))
    .delete(`${base}/{cohort_id}`, withDryRun(doc("deleteCohort", "Delete a cohort no other cohort includes", 204, [403, 404, 409])), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planDeleteCohort(ctx, access, c.params.cohort_id!), () => undefined, 204))
    .post(`${base}/{cohort_id}/calculate`, doc("calculateCohort", "Ask the region to recalculate the cohort in an environment and record the size it reports", 200, [400, 403, 404, 503], { body: CohortCalculateRequest, bodyOptional: true }),
      async (c: Ctx) => {
        const access = project(c);
        requireScope(access, "cohorts:write");
        const input = c.body === undefined ? {} : validateBody<typeof CohortCalculateRequest.static>(CohortCalculateRequest, c.body);
        const environment = input.environment ?? defaultEnvironment;
        requireEnvironment(ctx, access.project.id, environment);
        const cohort = cohortOfProject(ctx, access, c.params.cohort_id!);
        const calculation = await calculateCohort(ctx, access.project, cohort, environment);
        // The calculation is recorded; the audit row says who asked for it and what came back.
        const after = cohortDto(ctx, cohort);
        applyWrite(ctx, access.principal, {
          action: "cohort.calculate", targetType: "cohort", targetId: cohort.id, orgId: access.org.id, projectId: access.project.id,
          before: null, after: { environment, status: calculation.status, size: calculation.size, error: calculation.error }, apply: () => after,
        });
        return jsonResponse(200, after);
      });
}
