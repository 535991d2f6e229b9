// /openapi.json (OpenAPI 3.1) generated from the control plane's route declarations: /v1,
// the console /app and the public documents. Every schema with a title (the spec's DTO
// names: OrgDto, ProjectDto, ErrorBody, ...) becomes a component and is referenced by name.
import type { TSchema } from "elysia";
import { allScopes } from "../auth/scopes.ts";
import { sessionCookieName } from "../services/sessions.ts";
import type { ContractOperation, Security } from "./operation.ts";

export const contractVersion = "0.1.0";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Replaces each titled schema inside `node` by a reference, collecting it in `components`. */
function referenced(node: Json, components: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((item) => referenced(item, components));
  if (node === null || typeof node !== "object") return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, referenced(value, components)]));
  if (typeof copy.title !== "string") return copy;
  const name = copy.title;
  const known = components[name];
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(copy)) {
    throw new Error(`two different schemas are titled ${name}; component names must be unique`);
  }
  components[name] = copy;
  return { $ref: `#/components/schemas/${name}` };
}

/** TypeBox schemas are JSON Schema; JSON drops TypeBox's own symbol keys, and $id goes too. */
function schemaJson(schema: TSchema, components: Record<string, Json>): Json {
  return referenced(JSON.parse(JSON.stringify(schema, (key, value) => (key === "$id" ? undefined : value))), components);
}

const securityRequirement: Record<Security, Json> = { bearer: [{ bearer: [] }], session: [{ session: [] }], none: [] };

function operationJson(operation: ContractOperation, components: Record<string, Json>): Json {
  const parameters: Json[] = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1]!,
    in: "path",
    required: true,
    schema: { type: "string", format: "uuid" },
  }));
  for (const parameter of operation.parameters ?? []) {
    parameters.push({ name: parameter.name, in: parameter.in, required: false, description: parameter.description, schema: schemaJson(parameter.schema, components) });
  }
  const responses: { [status: string]: Json } = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    responses[status] = response.schema
      ? { description: response.description, content: { "application/json": { schema: schemaJson(response.schema, components) } } }
      : { description: response.description };
  }
  const json: { [key: string]: Json } = {
    operationId: operation.operationId,
    summary: operation.summary,
    security: securityRequirement[operation.security],
    responses,
  };
  if (operation.security === "bearer") json["x-required-scope"] = operation.scope ?? "any valid token";
  if (parameters.length) json.parameters = parameters;
  if (operation.body) {
    json.requestBody = { required: !operation.bodyOptional, content: { "application/json": { schema: schemaJson(operation.body, components) } } };
  }
  return json;
}

export function openApiDocument(operations: readonly ContractOperation[], baseUrl: string) {
  const components: Record<string, Json> = {};
  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of operations) {
    if (operation.contract === false) continue;
    paths[operation.path] = { ...paths[operation.path], [operation.method.toLowerCase()]: operationJson(operation, components) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc-analytics control plane",
      version: contractVersion,
      description:
        "Programmatic API under /v1 (Bearer personal access tokens, svc_pat_...), the console API under /app " +
        `(session cookie ${sessionCookieName}) and the public discovery documents. Scopes: ${allScopes.join(", ")}.`,
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        session: { type: "apiKey", in: "cookie", name: sessionCookieName },
      },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
    paths,
  };
}
