// The spend cap's enforcement: from an organisation's usage, plan and cap, the keep ratio its
// projects' capture applies (keep-ratio.ts), pushed to their regions (never looked up per
// event). Evaluated at once when the cap, the plan or the period changes (and on each read of
// the billing overview), and for every organisation with a cap by a pass every
// spendCapPassIntervalMs. Organisations without a cap are never sampled, and their projects'
// ratios are left alone.
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { RegionCode } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import { orgBilling, projects } from "../db/schema.ts";
import { billingAccount, type BillingAccount } from "./billing-account.ts";
import { keepRatioWithin, projectedUsage, type CapForecast } from "./keep-ratio.ts";
import { UsageMeter, type OrgUsage } from "./metering.ts";
import { invoiceMinor } from "./plans.ts";

/** Every organisation's keep ratio is recomputed this often: a new policy reaches capture within this time. */
export const spendCapPassIntervalMs = 60_000;
/**
 * The arrival rate is usage so far over the time elapsed in the period, but never over less
 * than this: in a period's first minutes a handful of events would project absurd volumes.
 */
export const projectionElapsedMinMs = 3_600_000;

export interface BillingEvaluation {
  account: BillingAccount;
  usage: OrgUsage;
  currentInvoiceMinor: number;
  projectedInvoiceMinor: number;
  /** The share of arriving events and recordings capture keeps (1: all). */
  keepRatio: number;
}

export class SpendCapEnforcer {
  readonly meter = new UsageMeter();
  /** Keep ratio each project's region holds, as last pushed (empty at start: the first pass pushes every capped organisation's). */
  private readonly applied = new Map<string, number>();
  private passing: Promise<void> | null = null;

  /** The organisation's usage, invoices and keep ratio now; pushes the ratio to its projects when it changed. */
  async evaluate(ctx: ControlContext, orgId: string, options: { fresh?: boolean; nowMs?: number } = {}): Promise<BillingEvaluation> {
    const nowMs = options.nowMs ?? Date.now();
    const account = billingAccount(ctx, orgId, nowMs);
    const usage = await this.meter.read(ctx, orgId, account.period, nowMs, options.fresh ?? false);
    const inForce = this.orgKeepRatio(ctx, orgId);
    const evaluation = evaluateUsage(account, usage, nowMs, inForce);
    // Without a region's usage the ratio would be computed from too little (too high): the one
    // last pushed stays in force, and is what the evaluation answers, until every region answers.
    if (usage.unreachableRegions.length > 0) return { ...evaluation, keepRatio: inForce };
    // Billing manages the keep ratio of organisations that ever set a cap (a cap cannot be removed); the others' it leaves alone.
    if (account.row?.spendCapMinor != null) await this.push(ctx, orgId, evaluation.keepRatio);
    return evaluation;
  }

  /** The keep ratio last pushed to the organisation's projects (the smallest, should they differ), 1 when none was. */
  private orgKeepRatio(ctx: ControlContext, orgId: string): number {
    let ratio = 1;
    for (const id of liveProjectIds(ctx, orgId)) ratio = Math.min(ratio, this.applied.get(id.id) ?? 1);
    return ratio;
  }

  /** Sets `keepRatio` on each live project of the organisation whose region does not hold it yet; a failed push is retried by the next pass. */
  private async push(ctx: ControlContext, orgId: string, keepRatio: number): Promise<void> {
    await Promise.all(liveProjectIds(ctx, orgId).map(async ({ id, region }) => {
      if (this.applied.get(id) === keepRatio) return;
      try {
        const link = ctx.regions.get(region as RegionCode);
        if (!link) throw new Error(`region ${region} is not served`);
        await link.setKeepRatio(id, keepRatio);
        this.applied.set(id, keepRatio);
      } catch (error) {
        this.applied.delete(id);
        console.error(`billing: keep ratio ${keepRatio} of project ${id} could not be pushed (retried at the next pass): ${(error as Error).message}`);
      }
    }));
  }

  /** One pass over every organisation with a spend cap: evaluated from fresh counters, its ratio pushed where it changed. */
  pass(ctx: ControlContext): Promise<void> {
    this.passing ??= this.runPass(ctx).finally(() => (this.passing = null));
    return this.passing;
  }

  private async runPass(ctx: ControlContext): Promise<void> {
    const capped = ctx.db.select({ orgId: orgBilling.orgId }).from(orgBilling).where(isNotNull(orgBilling.spendCapMinor)).all().map((row) => row.orgId);
    for (const orgId of capped) {
      try {
        await this.evaluate(ctx, orgId, { fresh: true });
      } catch (error) {
        console.error(`billing: the spend cap of organisation ${orgId} could not be evaluated (retried at the next pass): ${(error as Error).message}`);
      }
    }
  }

  /** Runs a pass now and every spendCapPassIntervalMs; returns the function that stops it. */
  start(ctx: ControlContext): () => Promise<void> {
    void this.pass(ctx);
    const timer = setInterval(() => void this.pass(ctx), spendCapPassIntervalMs);
    return async () => {
      clearInterval(timer);
      await this.passing;
    };
  }
}

function liveProjectIds(ctx: ControlContext, orgId: string): { id: string; region: string }[] {
  return ctx.db.select({ id: projects.id, region: projects.region }).from(projects).where(and(eq(projects.orgId, orgId), isNull(projects.deletedAt))).all();
}

/**
 * Invoices and keep ratio for this usage at `nowMs`. Arrivals to the period's end are projected
 * linearly: events from those received so far (before sampling), recordings from those stored
 * so far scaled up by the keep ratio in force (sampled-out recordings are not counted).
 */
export function evaluateUsage(account: BillingAccount, usage: OrgUsage, nowMs: number, keepRatioInForce: number): BillingEvaluation {
  const { plan, period } = account;
  if (plan === null) return { account, usage, currentInvoiceMinor: 0, projectedInvoiceMinor: 0, keepRatio: 1 };
  const elapsedMs = Math.max(nowMs - period.startMs, projectionElapsedMinMs);
  const remainingMs = Math.max(0, period.endMs - nowMs);
  const forecast: CapForecast = {
    stored: { events: usage.eventsStored, replayRecordings: usage.replayRecordings },
    arriving: {
      events: (usage.eventsReceived / elapsedMs) * remainingMs,
      replayRecordings: (usage.replayRecordings / keepRatioInForce / elapsedMs) * remainingMs,
    },
  };
  const cap = account.row?.spendCapMinor ?? null;
  const keepRatio = cap === null ? 1 : keepRatioWithin(plan, cap, forecast);
  return {
    account,
    usage,
    currentInvoiceMinor: invoiceMinor(plan, forecast.stored),
    projectedInvoiceMinor: invoiceMinor(plan, projectedUsage(forecast, keepRatio)),
    keepRatio,
  };
}
