// /v1 tracking plan (spec 1: GET /v1/projects/{project_id}/catalog/codegen, scope catalog:read):
// the same answer as the console's codegen, JSON or, with `?format=typescript`, a .d.ts.
import type { ControlContext } from "../context.ts";
import { projectAccess } from "../access.ts";
import { errors } from "../contract/operation.ts";
import { CatalogCodegenExport } from "../catalog/catalog-schemas.ts";
import { codegenFormatParameter, codegenResponse } from "../catalog/catalog-codegen.ts";
import type { V1Route } from "./route.ts";

export function v1CatalogRoutes(ctx: ControlContext): V1Route[] {
  return [
    {
      method: "GET", path: "/v1/projects/{project_id}/catalog/codegen", operationId: "getCatalogCodegen",
      summary: "The tracking plan for code generation (JSON, or a TypeScript .d.ts)",
      scope: "catalog:read", write: false, parameters: [codegenFormatParameter],
      responses: { 200: { description: "The plan's events and properties", schema: CatalogCodegenExport }, ...errors(400, 401, 403, 404, 429) },
      handle: ({ principal, params, query }) => codegenResponse(ctx, projectAccess(ctx, principal, params.project_id!), query.get("format")),
    },
  ];
}
