// /openapi.json (OpenAPI 3.1) generated from the /v1 route declarations.
import type { TSchema } from "elysia";
import type { V1Route } from "./route.ts";
import { allScopes } from "../auth/scopes.ts";

export const contractVersion = "0.1.0";

/** TypeBox schemas are JSON Schema; drop TypeBox's own symbol keys and $id. */
function jsonSchema(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === "$id" ? undefined : value)));
}

export function openApiDocument(routes: V1Route[], baseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.contract === false) continue;
    const parameters: unknown[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: "path",
      required: true,
      schema: { type: "string", format: "uuid" },
    }));
    if (route.write) {
      parameters.push(
        { name: "dry_run", in: "query", required: false, schema: { type: "boolean" }, description: "Validate and return a DryRun; nothing changes" },
        { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 255 } },
      );
    }
    const responses = Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        response.schema
          ? { description: response.description, content: { "application/json": { schema: jsonSchema(response.schema) } } }
          : { description: response.description },
      ]),
    );
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      security: [{ bearer: [] }],
      "x-required-scope": route.scope ?? "any valid token",
      responses,
    };
    if (parameters.length) operation.parameters = parameters;
    if (route.body) {
      operation.requestBody = {
        required: !route.bodyOptional,
        content: { "application/json": { schema: jsonSchema(route.body) } },
      };
    }
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc-analytics control plane",
      version: contractVersion,
      description: `Programmatic API. Bearer tokens: personal access tokens (svc_pat_...). Scopes: ${allScopes.join(", ")}.`,
    },
    servers: [{ url: baseUrl }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths,
  };
}
