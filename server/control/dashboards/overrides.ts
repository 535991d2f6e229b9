// A dashboard's date range and filters are checked by the engine's own Query IR validator (on
// a probe query), so a dashboard can only hold what a tile's query could hold itself.
import { InvalidQueryError, validateQuery } from "../../../engine/ir/validate.ts";
import { validation } from "../../http/errors.ts";

const probeInsight = { kind: "trends", series: [{ event: null }] };
const probeRange = { from: "-7d" };

export function checkOverrides(dateRange: Record<string, unknown> | null | undefined, filters: { properties: unknown[] } | null | undefined, timeZone: string): void {
  const probe = { ir_version: 1, date_range: dateRange ?? probeRange, filters: filters?.properties ?? [], insight: probeInsight };
  try {
    validateQuery(probe, timeZone, Date.now());
  } catch (error) {
    if (!(error instanceof InvalidQueryError)) throw error;
    const problem = error.message.slice(`${error.path || "/"}: `.length);
    const where = error.path.startsWith("/filters") ? `/filters/properties${error.path.slice("/filters".length)}` : error.path;
    throw validation(`body ${where}: ${problem}`);
  }
}

/** The stored date range: `to: null` means "now", which a Query IR range says by leaving `to` out. */
export function normalizeDateRange(range: { from: string; to?: string | null } | null | undefined): { from: string; to?: string } | null | undefined {
  if (!range) return range;
  return range.to ? { from: range.from, to: range.to } : { from: range.from };
}
