// The project's raised findings (docs/findings-evaluation.md, "Routes"): GET /findings (scope
// alerts:read; `rule_id`, `acknowledged` true|false, `limit` 1 to findingsPageMax (default
// findingsPageDefault), `offset` 0 to findingsOffsetMax; newest first), GET /findings/{id}
// (alerts:read) and POST /findings/{id}/acknowledge (alerts:write; the first acknowledgement
// is kept). A finding of another project, or an id that is not a UUID, is 404. The summary and
// the target's names are data a person typed or ingest received: returned as JSON strings,
// never as markup.
import { Elysia } from "elysia";
import { ApiError, jsonResponse } from "../http/errors.ts";
import { findingFields } from "../findings/finding-fields.ts";
import type { DeliveryState } from "../findings/findings-types.ts";
import type { StoredFinding } from "../../storage/findings-store.ts";
import type { RegionNode } from "./region-node.ts";
import { badRequest, regionAccess, type RegionTokenCheck } from "./region-access.ts";

export const findingsPageDefault = 50;
export const findingsPageMax = 200;
/** Deeper pages than this are refused (narrow the listing with rule_id or acknowledged instead). */
export const findingsOffsetMax = 100_000;
/** A rule id longer than this names no rule. */
const ruleIdCharsMax = 64;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function findingDto(finding: StoredFinding, deliveries: DeliveryState[]) {
  return {
    ...findingFields(finding),
    sent: finding.sent,
    acknowledged_at: finding.acknowledgedAt,
    acknowledged_by: finding.acknowledgedBy,
    deliveries: deliveries.map((delivery) => ({
      destination_id: delivery.destinationId,
      state: delivery.state,
      attempts: delivery.attempts.map((attempt) => ({
        attempt: attempt.attempt, at: attempt.at, status: attempt.status, ok: attempt.ok, error: attempt.error, duration_ms: attempt.durationMs,
      })),
      next_attempt_at: delivery.nextAttemptAt,
    })),
  };
}

function integerParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const given = query.get(name);
  if (given === null) return fallback;
  const value = Number(given);
  if (!/^\d+$/.test(given) || value < min || value > max) throw badRequest(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

function acknowledgedParam(query: URLSearchParams): boolean | null {
  const given = query.get("acknowledged");
  if (given === null) return null;
  if (given !== "true" && given !== "false") throw badRequest("acknowledged must be true or false");
  return given === "true";
}

function ruleIdParam(query: URLSearchParams): string | null {
  const given = query.get("rule_id");
  if (given === null) return null;
  if (given === "" || given.length > ruleIdCharsMax) throw badRequest(`rule_id must be 1 to ${ruleIdCharsMax} characters`);
  // Rule ids are uuids, stored lower-case: an id written in capitals names the same rule.
  return given.toLowerCase();
}

const notFound = () => new ApiError(404, "not_found", "finding not found");

export function findingsRoutes(node: RegionNode, check: RegionTokenCheck) {
  const deliveriesOf = (findingId: string) => node.findings?.deliveriesOf(findingId) ?? [];
  const findingOf = (projectId: string, id: string) => {
    const finding = uuidPattern.test(id) ? node.store.findings.get(projectId, id.toLowerCase()) : null;
    if (finding === null) throw notFound();
    return finding;
  };
  return new Elysia({ name: `region-findings-${check.region}` })
    .get("/findings", async ({ request }) => {
      const claims = await regionAccess(request, check, "alerts:read");
      const query = new URL(request.url).searchParams;
      const ruleId = ruleIdParam(query);
      const acknowledged = acknowledgedParam(query);
      const limit = integerParam(query, "limit", findingsPageDefault, 1, findingsPageMax);
      const offset = integerParam(query, "offset", 0, 0, findingsOffsetMax);
      const rows = node.store.findings.list(claims.projectId, { ruleId, acknowledged, limit: limit + 1, offset });
      const shown = rows.slice(0, limit);
      return jsonResponse(200, {
        findings: shown.map((finding) => findingDto(finding, deliveriesOf(finding.id))),
        next_offset: rows.length > limit ? offset + limit : null,
      });
    })
    .get("/findings/:id", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "alerts:read");
      const finding = findingOf(claims.projectId, params.id);
      return jsonResponse(200, findingDto(finding, deliveriesOf(finding.id)));
    })
    .post("/findings/:id/acknowledge", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "alerts:write");
      findingOf(claims.projectId, params.id);
      const finding = node.store.findings.acknowledge(claims.projectId, params.id.toLowerCase(), claims.userId, Date.now())!;
      return jsonResponse(200, findingDto(finding, deliveriesOf(finding.id)));
    }, { parse: "none" });
}
