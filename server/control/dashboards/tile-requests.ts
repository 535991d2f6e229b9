// Results never pass through the control plane: for each insight tile, the dashboard answers
// the exact region request to send (the insight's query with the dashboard's date range and
// filters applied), as POST /v1/projects/{id}/query does. A query the overrides make invalid
// (too many filters, a range the insight cannot take) gets no request and says why.
import { InvalidQueryError, validateQuery } from "../../../engine/ir/validate.ts";
import type { dashboards } from "../db/schema.ts";

type DashboardRow = typeof dashboards.$inferSelect;
export interface RegionRequest {
  method: string;
  url: string;
  body: { query: Record<string, unknown>; include_sql: boolean; refresh: boolean };
}

export function withOverrides(query: Record<string, unknown>, dashboard: DashboardRow): Record<string, unknown> {
  const overridden: Record<string, unknown> = { ...query };
  if (dashboard.dateRange) overridden.date_range = dashboard.dateRange;
  const extra = (dashboard.filters?.properties as unknown[] | undefined) ?? [];
  if (extra.length > 0) overridden.filters = [...((query.filters as unknown[] | undefined) ?? []), ...extra];
  return overridden;
}

export function tileRequest(query: Record<string, unknown>, dashboard: DashboardRow, timeZone: string, regionApiUrl: string): { request: RegionRequest | null; request_error: string | null } {
  const overridden = withOverrides(query, dashboard);
  try {
    validateQuery(overridden, timeZone, Date.now());
  } catch (error) {
    if (error instanceof InvalidQueryError) return { request: null, request_error: error.message };
    throw error;
  }
  return { request: { method: "POST", url: `${regionApiUrl}/query`, body: { query: overridden, include_sql: false, refresh: false } }, request_error: null };
}
