// Usage of an organisation in a billing period, read from the regions' counters
// (storage/usage-counters.ts) for every project the organisation has or had there: billing
// counts events stored (after spend-cap sampling), not received, because the cap is about cost.
import { eq } from "drizzle-orm";
import type { RegionCode } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import { projects } from "../db/schema.ts";
import type { BillingPeriod } from "./billing-account.ts";
import { usageProjectsPerRequestMax } from "../../region/usage-routes.ts";

/** A period's usage read this recently is answered again rather than read anew (GET billing polls). */
export const usageCacheMs = 15_000;

export interface OrgUsage {
  eventsReceived: number;
  eventsStored: number;
  replayRecordings: number;
  /** Regions that did not answer: their projects' usage is missing from the totals. */
  unreachableRegions: RegionCode[];
  /** When the counters were read. */
  readAtMs: number;
}

interface CachedUsage {
  periodStartMs: number;
  usage: OrgUsage;
}

export class UsageMeter {
  private readonly cache = new Map<string, CachedUsage>();

  /** The organisation's usage in `period`; `fresh` reads the regions even when a recent answer is cached. */
  async read(ctx: ControlContext, orgId: string, period: BillingPeriod, nowMs: number, fresh = false): Promise<OrgUsage> {
    const cached = this.cache.get(orgId);
    if (!fresh && cached && cached.periodStartMs === period.startMs && nowMs - cached.usage.readAtMs < usageCacheMs) return cached.usage;
    const usage = await readRegions(ctx, orgId, period, nowMs);
    this.cache.set(orgId, { periodStartMs: period.startMs, usage });
    return usage;
  }
}

async function readRegions(ctx: ControlContext, orgId: string, period: BillingPeriod, nowMs: number): Promise<OrgUsage> {
  // Deleted projects too: what they stored this period is billed.
  const rows = ctx.db.select({ id: projects.id, region: projects.region }).from(projects).where(eq(projects.orgId, orgId)).all();
  const byRegion = new Map<RegionCode, string[]>();
  for (const row of rows) {
    const code = row.region as RegionCode;
    byRegion.set(code, [...(byRegion.get(code) ?? []), row.id]);
  }
  const usage: OrgUsage = { eventsReceived: 0, eventsStored: 0, replayRecordings: 0, unreachableRegions: [], readAtMs: nowMs };
  await Promise.all([...byRegion].map(async ([code, ids]) => {
    const link = ctx.regions.get(code);
    try {
      if (!link) throw new Error("the region is not served");
      for (let start = 0; start < ids.length; start += usageProjectsPerRequestMax) {
        for (const totals of await link.usage(ids.slice(start, start + usageProjectsPerRequestMax), period.startMs, period.endMs)) {
          usage.eventsReceived += totals.eventsReceived;
          usage.eventsStored += totals.eventsStored;
          usage.replayRecordings += totals.replayRecordings;
        }
      }
    } catch (error) {
      console.error(`billing: usage of organisation ${orgId} in region ${code} could not be read: ${(error as Error).message}`);
      usage.unreachableRegions.push(code);
    }
  }));
  usage.unreachableRegions.sort();
  return usage;
}
