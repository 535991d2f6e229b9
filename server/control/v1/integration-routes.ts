// /v1 revenue integrations (spec 1: the six `…/integrations` routes, scopes projects:read and
// projects:write; writes take Idempotency-Key, and dry_run like every /v1 write). The answers
// and the webhook they configure: docs/revenue.md.
import type { ControlContext } from "../context.ts";
import { projectAccess } from "../access.ts";
import { errors } from "../contract/operation.ts";
import {
  getIntegration, listIntegrations, planCreateIntegration, planDeleteIntegration, planRotateIntegrationToken, planUpdateIntegration, syncedIntegrationDto,
  type IntegrationRow,
} from "../integrations/integrations.ts";
import { pushIntegrationRemoval } from "../integrations/integration-sync.ts";
import { CreateIntegrationRequest, IntegrationDto, IntegrationList, UpdateIntegrationRequest } from "../integrations/integration-schemas.ts";
import type { V1Route } from "./route.ts";

const collection = "/v1/projects/{project_id}/integrations";
const one = `${collection}/{integration_id}`;

export function v1IntegrationRoutes(ctx: ControlContext): V1Route[] {
  const access = (params: Record<string, string>, principal: Parameters<typeof projectAccess>[1]) => projectAccess(ctx, principal, params.project_id!);
  return [
    {
      method: "GET", path: collection, operationId: "listIntegrations", summary: "Revenue integrations of a project",
      scope: "projects:read", write: false,
      responses: { 200: { description: "Integrations", schema: IntegrationList }, ...errors(401, 403, 404, 429) },
      handle: ({ principal, params }) => ({ status: 200, body: listIntegrations(ctx, access(params, principal)) }),
    },
    {
      method: "POST", path: collection, operationId: "createIntegration",
      summary: "Connect a revenue provider; answers the webhook URL to paste into it (the secret is never returned)",
      scope: "projects:write", write: true, body: CreateIntegrationRequest,
      responses: { 201: { description: "Created", schema: IntegrationDto }, ...errors(400, 401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params, body }) => {
        const project = access(params, principal);
        return {
          plan: planCreateIntegration(ctx, project, body),
          respond: async (row: IntegrationRow) => ({ status: 201, body: await syncedIntegrationDto(ctx, project, row) }),
        };
      },
    },
    {
      method: "GET", path: one, operationId: "getIntegration", summary: "One revenue integration",
      scope: "projects:read", write: false,
      responses: { 200: { description: "Integration", schema: IntegrationDto }, ...errors(401, 403, 404, 429) },
      handle: ({ principal, params }) => ({ status: 200, body: getIntegration(ctx, access(params, principal), params.integration_id!) }),
    },
    {
      method: "PATCH", path: one, operationId: "updateIntegration", summary: "Rename, disable or re-enable an integration, replace its secret or config",
      scope: "projects:write", write: true, body: UpdateIntegrationRequest,
      responses: { 200: { description: "Integration", schema: IntegrationDto }, ...errors(400, 401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params, body }) => {
        const project = access(params, principal);
        return {
          plan: planUpdateIntegration(ctx, project, params.integration_id!, body),
          respond: async (row: IntegrationRow) => ({ status: 200, body: await syncedIntegrationDto(ctx, project, row) }),
        };
      },
    },
    {
      method: "DELETE", path: one, operationId: "deleteIntegration", summary: "Delete an integration; its webhook URL answers 404 at once",
      scope: "projects:write", write: true,
      responses: { 204: { description: "Deleted" }, ...errors(401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params }) => {
        const project = access(params, principal);
        return {
          plan: planDeleteIntegration(ctx, project, params.integration_id!),
          respond: async (row: IntegrationRow) => {
            await pushIntegrationRemoval(ctx, project.project, row.id);
            return { status: 204 };
          },
        };
      },
    },
    {
      method: "POST", path: `${one}/rotate-token`, operationId: "rotateIntegrationToken",
      summary: "Replace the webhook URL's token; the old URL answers 404 at once",
      scope: "projects:write", write: true,
      responses: { 200: { description: "Integration with its new webhook URL", schema: IntegrationDto }, ...errors(401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params }) => {
        const project = access(params, principal);
        return {
          plan: planRotateIntegrationToken(ctx, project, params.integration_id!),
          respond: async (row: IntegrationRow) => ({ status: 200, body: await syncedIntegrationDto(ctx, project, row) }),
        };
      },
    },
  ];
}
