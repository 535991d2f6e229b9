// GET /events/live (scope query:read): the token's project environment's events as they are
// accepted, as Server-Sent Events when the request accepts text/event-stream, else the last
// ones as JSON. Filters, event ids, the stream's messages and its limits: docs/live-events.md.
import { Elysia } from "elysia";
import { ApiError, jsonResponse } from "../http/errors.ts";
import { eventStreamHeaders } from "../http/sse.ts";
import type { RegionNode } from "./region-node.ts";
import { afterRevocations, badRequest, regionAccess, requireScope, type CheckedClaims, type RegionTokenCheck } from "./region-access.ts";
import { isPersonalKey, isPersonalValue } from "./pii-mask.ts";
import { liveStreamsPerProjectMax } from "./live/live-hub.ts";
import { eventSeq } from "./live/live-event-id.ts";
import { liveQuery, type LiveFilter } from "./live/live-query.ts";
import type { LiveWatcher } from "./live/live-stream.ts";

const scope = "query:read";

/** Whether the client asked for an event stream (an EventSource sends exactly this Accept). */
function wantsEventStream(accept: string | null): boolean {
  return accept !== null && accept.split(",").some((range) => range.split(";")[0]!.trim().toLowerCase() === "text/event-stream");
}

/** Matching on a personal-data property would reveal values a masked answer hides (the persons search's rule). */
function refusePersonalFilters(node: RegionNode, claims: CheckedClaims, filter: LiveFilter): void {
  if (filter.properties.length === 0 || claims.scopes.includes("persons.pii")) return;
  const catalogPii = new Set(node.store.directory.piiProperties(claims.projectId));
  if (filter.properties.some(([key, value]) => isPersonalKey(key, catalogPii) || isPersonalValue(value))) {
    throw new ApiError(403, "forbidden", "filtering by personal-data properties needs persons.pii");
  }
}

/** Where a reconnecting client resumes: after its Last-Event-ID, or nowhere (a new stream) for none or one of an earlier process. */
function resumeAfter(request: Request, epoch: string): number | null {
  const lastEventId = request.headers.get("last-event-id");
  if (lastEventId === null || lastEventId === "") return null;
  const seq = eventSeq(lastEventId, epoch);
  if (seq === undefined) throw badRequest("Last-Event-ID must be the id of an event this stream sent");
  return seq;
}

/** The stream's token keeps its access (and persons.pii, when the stream shows personal data) as revocations arrive. */
function watcherOf(claims: CheckedClaims, filter: LiveFilter, check: RegionTokenCheck): LiveWatcher {
  const pii = claims.scopes.includes("persons.pii");
  return {
    filter,
    pii,
    expiresAt: Date.parse(claims.expiresAt),
    stillAllowed: () => {
      try {
        const now = requireScope(afterRevocations(claims, check.revocations), scope);
        return !pii || now.scopes.includes("persons.pii");
      } catch (error) {
        if (error instanceof ApiError) return false;
        throw error;
      }
    },
  };
}

const tooManyStreams = () =>
  new ApiError(429, "too_many_concurrent_queries", `a project has at most ${liveStreamsPerProjectMax} live event streams open at once; close one to open another`);

export function liveEventsRoutes(node: RegionNode, check: RegionTokenCheck) {
  return new Elysia({ name: `region-live-events-${check.region}` }).get("/events/live", async ({ request }) => {
    const claims = await regionAccess(request, check, scope);
    const { filter, limit } = liveQuery(new URL(request.url).searchParams);
    refusePersonalFilters(node, claims, filter);
    if (!wantsEventStream(request.headers.get("accept"))) {
      return jsonResponse(200, node.live.list(claims.projectId, claims.environment, filter, limit, claims.scopes.includes("persons.pii")));
    }
    const after = resumeAfter(request, node.live.epoch);
    const stream = node.live.open(claims.projectId, claims.environment, watcherOf(claims, filter, check), limit, after);
    if (!stream) throw tooManyStreams();
    return new Response(stream.body, { status: 200, headers: eventStreamHeaders });
  });
}
