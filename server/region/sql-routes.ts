// POST /sql (scope sql.raw): one read-only SELECT on the token's project environment
// (docs/sql.md).
import { Elysia, t } from "elysia";
import { jsonResponse } from "../http/errors.ts";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import { regionAccess, type RegionTokenCheck } from "./region-access.ts";
import type { SqlService } from "./sql-service.ts";

const sqlBodyBytesMax = 256 * 1024;
export const sqlTextCharsMax = 100_000;
export const sqlParamsMax = 1_000;

const SqlBody = t.Object(
  {
    sql: t.String({ minLength: 1, maxLength: sqlTextCharsMax }),
    params: t.Optional(t.Array(t.Union([t.String(), t.Number(), t.Boolean(), t.Null()]), { maxItems: sqlParamsMax })),
  },
  { additionalProperties: false },
);

export function sqlRoutes(sql: SqlService, check: RegionTokenCheck) {
  return new Elysia({ name: `region-sql-${check.region}` })
    .post("/sql", async ({ request }) => {
      const claims = await regionAccess(request, check, "sql.raw");
      const body = validateBody<typeof SqlBody.static>(SqlBody, await readJsonBody(request, sqlBodyBytesMax));
      return jsonResponse(200, await sql.run(claims, body));
    }, { parse: "none" });
}
