// Generates server/gateway/openapi.json, the gateway's OpenAPI 3.1 contract, from the operation
// table in scripts/gateway-openapi/ (request schemas are the routes' own TypeBox schemas).
// Run `bun scripts/gateway-openapi.ts` after changing a route; test/gateway/openapi.test.ts
// fails while the committed file differs from what this generates.
import { writeFileSync } from "node:fs";
import { openApiFile } from "../server/gateway/routes/openapi.ts";
import { componentSchemas } from "./gateway-openapi/components.ts";
import { fromTypeBox, ref, type Json, type Schema } from "./gateway-openapi/json-schema.ts";
import { operations, type Answer, type Auth, type OperationSpec } from "./gateway-openapi/operations.ts";
import { webhookSchemas, webhooks } from "./gateway-openapi/webhook-schemas.ts";

const idSchema: Schema = { type: "string", minLength: 1, maxLength: 64 };

/**
 * Two schemes on the one `apikey` header rather than one scheme with a description: each
 * operation then says which key it takes, in a form tools read (a root key is refused where a
 * project key is wanted, and the other way round: both answer 401).
 */
const securitySchemes: Record<string, Json> = {
  projectKey: { type: "apiKey", in: "header", name: "apikey", description: "A project key (minted by POST /v1/projects/{id}/keys, shown once): the project routes." },
  rootKey: { type: "apiKey", in: "header", name: "apikey", description: "The deployment's root key (GATEWAY_ROOT_KEY, or made at first start and printed once): the project-management and /v1/admin routes." },
};
const security: Record<Auth, Json> = { none: [], project: [{ projectKey: [] }], root: [{ rootKey: [] }] };

function response(answer: Answer): Json {
  const json: { [key: string]: Json } = { description: answer.description };
  if (answer.headers) json.headers = answer.headers;
  if (answer.content) json.content = answer.content;
  else if (answer.schema) json.content = { "application/json": { schema: answer.schema } };
  return json;
}

const errorAnswer = (description: string): Answer => ({ description, schema: ref("ErrorBody") });

function operationJson(operation: OperationSpec): Json {
  const pathIds = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const parameters: Json[] = pathIds.map((name) => ({ name, in: "path", required: true, schema: idSchema }));
  if (operation.query) {
    const query = fromTypeBox(operation.query) as { properties: Record<string, Schema>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties)) parameters.push({ name, in: "query", required: query.required?.includes(name) ?? false, schema });
  }
  parameters.push(...(operation.headers ?? []));
  const answers: Record<string, Answer> = { ...operation.answers };
  // Elysia checks path ids, queries (unknown parameters too) and bodies before the route runs.
  if ((pathIds.length > 0 || operation.query || operation.body) && !answers["400"]) {
    answers["400"] = errorAnswer("A path id, query parameter or the body is invalid, or an unknown query parameter was given (validation).");
  }
  if (operation.auth === "project") {
    const storeDown = "the store does not answer, so the key cannot be checked (unavailable)";
    const own = answers["503"];
    answers["503"] = own ? { ...own, description: `${own.description} Or ${storeDown}.` } : errorAnswer(`${storeDown[0]!.toUpperCase()}${storeDown.slice(1)}.`);
  }
  if (operation.auth !== "none") answers["401"] = errorAnswer("The apikey header is missing, unknown, revoked, of a suspended project, or the other kind of key (unauthorized); each alike.");
  answers["500"] = errorAnswer("An unexpected failure (internal); the gateway logs it.");
  const responses = Object.fromEntries(Object.entries(answers).sort(([a], [b]) => a.localeCompare(b)).map(([status, answer]) => [status, response(answer)]));
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: [operation.auth === "none" ? "public" : operation.auth === "project" ? "project" : operation.path.startsWith("/v1/admin/") ? "admin" : "projects"],
    security: security[operation.auth],
    ...(operation.beyondSpec ? { "x-beyond-spec": true } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body ? { requestBody: { required: operation.body.required, content: { "application/json": { schema: fromTypeBox(operation.body.schema) } } } } : {}),
    responses,
  };
}

export function gatewayOpenApiDocument(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of operations) paths[operation.path] = { ...paths[operation.path], [operation.method]: operationJson(operation) };
  return {
    openapi: "3.1.0",
    info: {
      title: "Messaging gateway",
      version: "1",
      description:
        "Registers numbers on a messaging network, pairs each by a QR code scanned from the phone, queues outbound messages through the project's pool " +
        "and delivers inbound events to the project's webhook. Send the key in the apikey header. Lists page newest first: limit (1-200, default 50) and " +
        "cursor (the previous page's nextCursor). Operations marked x-beyond-spec: true are the ten the spec's route tables do not name. " +
        "An unknown route answers 404 with the error body.",
    },
    servers: [
      { url: "/gateway", description: "Inside the one process `npm start` runs." },
      { url: "/", description: "The gateway running on its own." },
    ],
    tags: [
      { name: "public", description: "No key." },
      { name: "project", description: "A project key." },
      { name: "projects", description: "The root key: projects and their keys." },
      { name: "admin", description: "The root key: the operator's views." },
    ],
    paths,
    webhooks: webhooks(),
    components: { securitySchemes, schemas: { ...componentSchemas, ...webhookSchemas } },
  };
}

export const gatewayOpenApiText = () => `${JSON.stringify(gatewayOpenApiDocument(), null, 2)}\n`;

if (import.meta.main) writeFileSync(openApiFile, gatewayOpenApiText());
