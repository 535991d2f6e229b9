// /app findings destinations and rules (spec 1, "Console API: experiments, findings";
// docs/findings.md). Reads need alerts:read (viewers), writes alerts:write (members and up);
// writes take `dry_run` and are audited; each committed change is pushed to the project's region.
// The body is read once the caller is known to see the project (another tenant's: 404 first).
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import type { ProjectAccess } from "../access.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors, withDryRun, type OperationDoc } from "../contract/operation.ts";
import {
  DestinationCreateRequest, DestinationDto, DestinationListResponse, DestinationUpdateRequest, RuleCreateRequest, RuleDto, RuleListResponse, RuleUpdateRequest,
  TestDeliveryResponse, type DestinationCreateInput, type DestinationUpdateInput, type RuleCreateInput, type RuleUpdateInput,
} from "../findings/findings-schemas.ts";
import { destinationDto, listDestinations, planCreateDestination, planDeleteDestination, planUpdateDestination } from "../findings/destinations.ts";
import { listRules, planCreateRule, planDeleteRule, planUpdateRule, ruleDto } from "../findings/rules.ts";
import { testDestination } from "../findings/destination-test.ts";
import { pushFindingsProject } from "../findings/findings-sync.ts";
import { projectWrite, sessionProjectAccess } from "./project-write.ts";
import type { TSchema } from "elysia";

type Status = Parameters<typeof errors>[number];
const doc = (operationId: string, summary: string, status: number, schema: TSchema | undefined, failures: Status[], body?: TSchema): OperationDoc => ({
  operationId, summary, security: "session", ...(body ? { body } : {}),
  responses: { ...answer(status, status === 204 ? "Deleted" : summary, schema), ...errors(401, ...failures) },
});

/** After a committed change: the region gets the project's configuration, then the answer. */
const synced = <Row, Dto>(ctx: ControlContext, dto: (row: Row) => Dto) => async (row: Row, access: ProjectAccess) => {
  await pushFindingsProject(ctx, access.project);
  return dto(row);
};

export function findingsRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const destinations = "/app/projects/{project_id}/findings/destinations";
  const destination = `${destinations}/{destination_id}`;
  const rules = "/app/projects/{project_id}/findings/rules";
  const rule = `${rules}/{rule_id}`;
  const removed = () => undefined;
  return routes
    .get(destinations, doc("listFindingsDestinations", "Findings destinations of a project", 200, DestinationListResponse, [403, 404]), (c: Ctx) =>
      jsonResponse(200, listDestinations(ctx, sessionProjectAccess(ctx, c))))
    .post(destinations, withDryRun(doc("createFindingsDestination", "Add a findings destination (Slack or webhook)", 201, DestinationDto, [400, 403, 404, 503], DestinationCreateRequest)), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateDestination(ctx, access, validateBody<DestinationCreateInput>(DestinationCreateRequest, c.body)), synced(ctx, destinationDto), 201))
    .patch(destination, withDryRun(doc("updateFindingsDestination", "Change a findings destination; a new secret replaces the stored one", 200, DestinationDto, [400, 403, 404], DestinationUpdateRequest)), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateDestination(ctx, access, c.params.destination_id!, validateBody<DestinationUpdateInput>(DestinationUpdateRequest, c.body)), synced(ctx, destinationDto)))
    .delete(destination, withDryRun(doc("deleteFindingsDestination", "Delete a findings destination (the rules that send to it no longer do)", 204, undefined, [403, 404])), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planDeleteDestination(ctx, access, c.params.destination_id!), synced(ctx, removed), 204))
    .post(`${destination}/test`, doc("testFindingsDestination", "Send a test message to a findings destination now (one attempt)", 200, TestDeliveryResponse, [403, 404, 503]), async (c: Ctx) =>
      jsonResponse(200, await testDestination(ctx, sessionProjectAccess(ctx, c), c.params.destination_id!)))
    .get(rules, doc("listFindingsRules", "Findings rules of a project", 200, RuleListResponse, [403, 404]), (c: Ctx) =>
      jsonResponse(200, listRules(ctx, sessionProjectAccess(ctx, c))))
    .post(rules, withDryRun(doc("createFindingsRule", "Add a findings rule", 201, RuleDto, [400, 403, 404, 503], RuleCreateRequest)), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateRule(ctx, access, validateBody<RuleCreateInput>(RuleCreateRequest, c.body)), synced(ctx, ruleDto), 201))
    .patch(rule, withDryRun(doc("updateFindingsRule", "Change a findings rule; thresholds fields merge over the current ones", 200, RuleDto, [400, 403, 404], RuleUpdateRequest)), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateRule(ctx, access, c.params.rule_id!, validateBody<RuleUpdateInput>(RuleUpdateRequest, c.body)), synced(ctx, ruleDto)))
    .delete(rule, withDryRun(doc("deleteFindingsRule", "Delete a findings rule", 204, undefined, [403, 404])), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planDeleteRule(ctx, access, c.params.rule_id!), synced(ctx, removed), 204));
}
