// The control plane's side door for billing (split deployment; in one process the region link
// reads the counters directly): POST /internal/usage answers what the region stored for each
// project in a time range, from the per-hour counters capture keeps (storage/usage-counters.ts).
import { Elysia, t } from "elysia";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import type { RegionNode } from "./region-node.ts";
import type { UsageTotals } from "../../storage/usage-counters.ts";

/** An organisation's projects in one request; the control plane splits larger lists. */
export const usageProjectsPerRequestMax = 1000;
const usageBodyBytesMax = 128 * 1024;

const UsageRequest = t.Object({
  project_ids: t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: usageProjectsPerRequestMax }),
  from_ms: t.Integer({ minimum: 0 }),
  to_ms: t.Integer({ minimum: 0 }),
}, { additionalProperties: false });

/** UsageTotals as the internal API spells them. */
export interface UsageRow {
  project_id: string;
  events_received: number;
  events_stored: number;
  replay_recordings: number;
}

export const usageRow = (totals: UsageTotals): UsageRow => ({
  project_id: totals.projectId,
  events_received: totals.eventsReceived,
  events_stored: totals.eventsStored,
  replay_recordings: totals.replayRecordings,
});

export function usageRoutes(node: RegionNode, checkSecret: (request: Request) => void) {
  return new Elysia({ name: `region-usage-internal-${node.code}` })
    .post("/internal/usage", async ({ request }) => {
      checkSecret(request);
      const body = validateBody<typeof UsageRequest.static>(UsageRequest, await readJsonBody(request, usageBodyBytesMax));
      return Response.json({ usage: node.store.usage.totals(body.project_ids, body.from_ms, body.to_ms).map(usageRow) });
    }, { parse: "none" });
}
