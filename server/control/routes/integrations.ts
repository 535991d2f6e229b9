// /app revenue integrations: the console's mirror of the /v1 routes (same checks, same
// answers; console paths are "not shown" in spec 1, so they are left out of the contract and
// described in docs/revenue.md). Writes take `dry_run` like the other console project writes.
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { unlisted } from "../contract/operation.ts";
import {
  getIntegration, listIntegrations, planCreateIntegration, planDeleteIntegration, planRotateIntegrationToken, planUpdateIntegration, syncedIntegrationDto,
} from "../integrations/integrations.ts";
import { pushIntegrationRemoval } from "../integrations/integration-sync.ts";
import { CreateIntegrationRequest, UpdateIntegrationRequest, type CreateIntegrationInput, type UpdateIntegrationInput } from "../integrations/integration-schemas.ts";
import { applyWrite, isDryRun, previewWrite } from "../services/audited-write.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";

const doc = (operationId: string, summary: string) => unlisted(operationId, summary, "session", "docs/revenue.md");
const collection = "/app/projects/{project_id}/integrations";
const one = `${collection}/{integration_id}`;

export function integrationRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  return routes
    .get(collection, doc("listConsoleIntegrations", "Revenue integrations of a project"), (c: Ctx) =>
      jsonResponse(200, listIntegrations(ctx, sessionProjectAccess(ctx, c))))
    .post(collection, doc("createConsoleIntegration", "Connect a revenue provider"), (c: Ctx) => {
      const input = validateBody<CreateIntegrationInput>(CreateIntegrationRequest, c.body);
      return projectWrite(ctx, c, (access) => planCreateIntegration(ctx, access, input), (row, access) => syncedIntegrationDto(ctx, access, row), 201);
    })
    .get(one, doc("getConsoleIntegration", "One revenue integration"), (c: Ctx) =>
      jsonResponse(200, getIntegration(ctx, sessionProjectAccess(ctx, c), c.params.integration_id!)))
    .patch(one, doc("updateConsoleIntegration", "Rename, disable or re-enable an integration, replace its secret or config"), (c: Ctx) => {
      const input = validateBody<UpdateIntegrationInput>(UpdateIntegrationRequest, c.body);
      return projectWrite(ctx, c, (access) => planUpdateIntegration(ctx, access, c.params.integration_id!, input), (row, access) => syncedIntegrationDto(ctx, access, row));
    })
    .delete(one, doc("deleteConsoleIntegration", "Delete an integration"), async (c: Ctx) => {
      const access = sessionProjectAccess(ctx, c);
      const plan = planDeleteIntegration(ctx, access, c.params.integration_id!);
      if (isDryRun(searchParams(c).get("dry_run"))) return jsonResponse(200, previewWrite(plan));
      const row = applyWrite(ctx, access.principal, plan);
      await pushIntegrationRemoval(ctx, access.project, row.id);
      return new Response(null, { status: 204 });
    })
    .post(`${one}/rotate-token`, doc("rotateConsoleIntegrationToken", "Replace the webhook URL's token"), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planRotateIntegrationToken(ctx, access, c.params.integration_id!), (row, access) => syncedIntegrationDto(ctx, access, row)));
}
