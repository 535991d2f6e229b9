// POST /query (query:read) and GET /schema/query-ir (the published Query IR v1 JSON Schema,
// no token needed: it documents the API).
import { Elysia, t } from "elysia";
import { QueryIr } from "../../engine/ir/schema.ts";
import { jsonResponse } from "../http/errors.ts";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import { regionAccess, type RegionTokenCheck } from "./region-access.ts";
import type { QueryService } from "./query-service.ts";

const queryBodyBytesMax = 256 * 1024;

const QueryBody = t.Object(
  { query: t.Object({}, { additionalProperties: true }), include_sql: t.Optional(t.Boolean()), refresh: t.Optional(t.Boolean()) },
  { additionalProperties: false },
);

export function queryRoutes(queries: QueryService, check: RegionTokenCheck) {
  return new Elysia({ name: `region-query-${check.region}` })
    .get("/schema/query-ir", () => jsonResponse(200, QueryIr))
    .post("/query", async ({ request }) => {
      const claims = await regionAccess(request, check, "query:read");
      const body = validateBody<typeof QueryBody.static>(QueryBody, await readJsonBody(request, queryBodyBytesMax));
      return new Response(await queries.run(claims, body), { status: 200, headers: { "Content-Type": "application/json" } });
    }, { parse: "none" });
}
