// GET /ingestion/warnings (scope query:read): what ingest refused or changed in the token's
// project environment, by reason and message, with counts per UTC day, the first and last time
// seen and one example (README, "Ingestion warnings"). Query: `reason` (one of warningReasons),
// `from` and `to` (UTC days, YYYY-MM-DD, both included; by default the last warningDaysDefault
// days). Entries come most frequent first, then by reason and message; days newest first. The
// example is the sender's event as text, cut and masked (server/ingest/warning-example.ts): a
// JSON string to show as text, never to parse into markup.
import { Elysia } from "elysia";
import { jsonResponse } from "../http/errors.ts";
import { dayMs, utcDay, type WarningCount } from "../../storage/ingestion-warning-store.ts";
import { warningReasons } from "../ingest/ingestion-warnings.ts";
import type { RegionNode } from "./region-node.ts";
import { badRequest, regionAccess, type RegionTokenCheck } from "./region-access.ts";

/** Days shown when the request names no `from`: this many, ending with `to`. */
export const warningDaysDefault = 7;
const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

/** A day parameter (YYYY-MM-DD naming a real day), or null when absent. */
function dayParam(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  if (value === null) return null;
  if (!dayPattern.test(value) || utcDay(Date.parse(`${value}T00:00:00Z`) || 0) !== value) throw badRequest(`${name} must be a day written YYYY-MM-DD`);
  return value;
}

interface WarningEntry {
  reason: string;
  message: string;
  count: number;
  first_seen: string;
  last_seen: string;
  example: string;
  days: { day: string; count: number }[];
}

/** Rows (by reason and message, newest day first) as one entry per reason and message. */
function entries(rows: WarningCount[]): WarningEntry[] {
  const byKind = new Map<string, { entry: WarningEntry; firstSeen: number; lastSeen: number }>();
  for (const row of rows) {
    const id = `${row.reason}\u0000${row.message}`;
    let kind = byKind.get(id);
    if (!kind) {
      const entry = { reason: row.reason, message: row.message, count: 0, first_seen: "", last_seen: "", example: row.example, days: [] };
      byKind.set(id, (kind = { entry, firstSeen: row.firstSeen, lastSeen: row.lastSeen }));
    }
    kind.entry.count += row.count;
    kind.entry.days.push({ day: row.day, count: row.count });
    kind.firstSeen = Math.min(kind.firstSeen, row.firstSeen);
    if (row.lastSeen > kind.lastSeen) {
      kind.lastSeen = row.lastSeen;
      kind.entry.example = row.example;
    }
  }
  const result = [...byKind.values()].map(({ entry, firstSeen, lastSeen }) => ({
    ...entry, first_seen: new Date(firstSeen).toISOString(), last_seen: new Date(lastSeen).toISOString(),
  }));
  const order = (a: WarningEntry, b: WarningEntry) =>
    b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0) || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);
  return result.sort(order);
}

export function ingestionWarningsRoutes(node: RegionNode, check: RegionTokenCheck) {
  return new Elysia({ name: `region-ingestion-warnings-${check.region}` }).get("/ingestion/warnings", async ({ request }) => {
    const claims = await regionAccess(request, check, "query:read");
    const query = new URL(request.url).searchParams;
    const reason = query.get("reason");
    if (reason !== null && !(warningReasons as readonly string[]).includes(reason)) {
      throw badRequest(`reason must be one of ${warningReasons.join(", ")}`);
    }
    const to = dayParam(query, "to") ?? utcDay(Date.now());
    const from = dayParam(query, "from") ?? utcDay(Date.parse(`${to}T00:00:00Z`) - (warningDaysDefault - 1) * dayMs);
    if (from > to) throw badRequest("from must not be after to");
    const rows = node.warnings.list(claims.projectId, claims.environment, { reason, from, to });
    return jsonResponse(200, { from, to, results: entries(rows) });
  });
}
