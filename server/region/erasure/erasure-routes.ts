// POST /internal/erasures (region secret): what RemoteRegionLink.erase calls in a region node
// of another process. The answer comes once the erasure is done, which may take minutes
// (remoteErasureTimeoutMs); a repeated call joins the job running or answers its stored report.
import { Elysia } from "elysia";
import { readJsonBody } from "../../http/body.ts";
import { jsonResponse } from "../../http/errors.ts";
import { badRequest } from "../region-access.ts";
import type { RegionErasureRequest } from "./erasure-types.ts";
import type { RegionErasures } from "./region-erasures.ts";

/** The route's path under the region's prefix (server/service.ts gives it its own time-out). */
export const erasurePath = "/internal/erasures";

/** At most 100 identifiers of at most 200 characters each (escaped as JSON), and the rest. */
export const erasureBodyBytesMax = 256 * 1024;

export function erasureRoutes(erasures: RegionErasures, checkSecret: (request: Request) => void) {
  return new Elysia({ name: "region-erasures" })
    .post(erasurePath, async ({ request }) => {
      checkSecret(request);
      const body = await readJsonBody(request, erasureBodyBytesMax);
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw badRequest("the body must be an erasure request object");
      const { erasure_id, project_id, data_id, environment, person_ids, distinct_ids } = body as RegionErasureRequest;
      return jsonResponse(200, await erasures.erase({ erasure_id, project_id, data_id, environment, person_ids, distinct_ids }));
    }, { parse: "none" });
}
