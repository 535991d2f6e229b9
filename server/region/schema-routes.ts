// GET /schema/events and GET /schema/properties (scope query:read): the event names and event
// property keys of the token's project environment (docs/sql.md, "Schema").
import { Elysia } from "elysia";
import { jsonResponse } from "../http/errors.ts";
import { regionAccess, type RegionTokenCheck } from "./region-access.ts";
import { textParam } from "./paging.ts";
import type { SchemaService } from "./schema-service.ts";

export function schemaRoutes(schema: SchemaService, check: RegionTokenCheck) {
  return new Elysia({ name: `region-schema-${check.region}` })
    .get("/schema/events", async ({ request }) => {
      const claims = await regionAccess(request, check, "query:read");
      return jsonResponse(200, await schema.events(claims));
    })
    .get("/schema/properties", async ({ request }) => {
      const claims = await regionAccess(request, check, "query:read");
      const event = textParam(new URL(request.url).searchParams, "event");
      return jsonResponse(200, await schema.properties(claims, event));
    });
}
