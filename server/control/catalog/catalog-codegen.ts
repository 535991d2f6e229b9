// GET …/catalog/codegen (console, and /v1 with catalog:read): the plan as CatalogCodegenExport,
// or with `?format=typescript` as a declaration file (typescript-declarations.ts). Every event
// but the unplanned ones is exported (they are not part of the plan); deprecated ones carry
// their status, and the declarations mark them @deprecated. Events by name, properties in order.
import { t } from "elysia";
import { jsonResponse, validation } from "../../http/errors.ts";
import type { ParameterDoc } from "../contract/operation.ts";
import type { ControlContext } from "../context.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import { projectCatalog } from "./catalog-dto.ts";
import type { CatalogStatus, PropertyType } from "./catalog-schemas.ts";
import { catalogSettingsOf } from "./catalog-settings.ts";
import { typescriptDeclarations } from "./typescript-declarations.ts";

const codegenFormats = ["json", "typescript"] as const;
type CodegenFormat = (typeof codegenFormats)[number];

export const codegenFormatParameter: ParameterDoc = {
  name: "format", in: "query", description: `${codegenFormats.join(" or ")} (default json): typescript answers a .d.ts of the plan as application/typescript`,
  schema: t.Union(codegenFormats.map((format) => t.Literal(format))),
};

/** The `format` query parameter: json (the default) or typescript. */
function codegenFormat(value: string | null): CodegenFormat {
  if (value === null) return "json";
  if (!(codegenFormats as readonly string[]).includes(value)) throw validation(`format must be ${codegenFormats.join(" or ")}`);
  return value as CodegenFormat;
}

function catalogCodegenExport(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "catalog:read");
  const events = projectCatalog(ctx, access.project.id).filter(({ row }) => row.status !== "unplanned").map(({ row, properties }) => ({
    name: row.name,
    status: row.status as CatalogStatus,
    properties: properties.map((property) => ({
      name: property.name, type: property.type as PropertyType, required: property.required, description: property.description, enum_values: property.enumValues,
    })),
    description: row.description,
  }));
  return { catalog_version: catalogSettingsOf(ctx, access.project.id).catalogVersion, project_id: access.project.id, events };
}

const typescriptContentType = "application/typescript; charset=utf-8";
const typescriptFileName = "tracking-plan.d.ts";

/** The answer of a codegen call in the `format` its query asks for (400 for another). */
export function codegenResponse(ctx: ControlContext, access: ProjectAccess, format: string | null): Response {
  const exported = catalogCodegenExport(ctx, access);
  if (codegenFormat(format) === "json") return jsonResponse(200, exported);
  return new Response(typescriptDeclarations(exported), {
    status: 200,
    headers: { "Content-Type": typescriptContentType, "Content-Disposition": `attachment; filename="${typescriptFileName}"` },
  });
}
