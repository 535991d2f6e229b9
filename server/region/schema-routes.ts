// GET /schema/events, GET /schema/properties and GET /schema/person-properties (scope
// query:read): the event names and event property keys of the token's project environment, and
// its persons' property keys (docs/sql.md, "Schema").
import { Elysia } from "elysia";
import { jsonResponse } from "../http/errors.ts";
import { regionAccess, type RegionTokenCheck } from "./region-access.ts";
import { textParam } from "./paging.ts";
import type { SchemaService } from "./schema-service.ts";
import type { PersonDirectory } from "../../storage/person-directory.ts";
import { personPropertySchema } from "./person-property-schema.ts";

export function schemaRoutes(schema: SchemaService, directory: PersonDirectory, check: RegionTokenCheck) {
  return new Elysia({ name: `region-schema-${check.region}` })
    .get("/schema/events", async ({ request }) => {
      const claims = await regionAccess(request, check, "query:read");
      return jsonResponse(200, await schema.events(claims));
    })
    .get("/schema/properties", async ({ request }) => {
      const claims = await regionAccess(request, check, "query:read");
      const event = textParam(new URL(request.url).searchParams, "event");
      return jsonResponse(200, await schema.properties(claims, event));
    })
    .get("/schema/person-properties", async ({ request }) => {
      const claims = await regionAccess(request, check, "query:read");
      return jsonResponse(200, personPropertySchema(directory, claims.projectId));
    });
}
