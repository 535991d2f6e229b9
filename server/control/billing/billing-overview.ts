// GET /app/orgs/{org_id}/billing: plan, period, usage, invoices, spend cap and ingest stage.
import type { ControlContext } from "../context.ts";
import { hasLiveSubscription } from "./billing-account.ts";
import { billingCurrency, spendCapMinorMax, usageOverageMinor, type Meter } from "./plans.ts";
import type { BillingEvaluation } from "./spend-cap-enforcer.ts";

const meterDto = (meter: Meter) => ({ included: meter.included, overage_per_1000_minor: meter.overagePer1000Minor });
const iso = (ms: number) => new Date(ms).toISOString();

/** The lowest cap accepted now (spec 1, Limits): the plan price plus overage already billed this period; null on the self-hosted plan. */
export function spendCapMinMinor(evaluation: BillingEvaluation): number | null {
  const { plan } = evaluation.account;
  if (plan === null) return null;
  return plan.priceMinor + usageOverageMinor(plan, { events: evaluation.usage.eventsStored, replayRecordings: evaluation.usage.replayRecordings });
}

export function billingOverviewDto(ctx: ControlContext, evaluation: BillingEvaluation) {
  const { account, usage } = evaluation;
  const { plan, row, period } = account;
  const minimum = spendCapMinMinor(evaluation);
  return {
    org_id: account.orgId,
    currency: billingCurrency,
    plan: {
      name: account.planName,
      price_minor: plan?.priceMinor ?? 0,
      events: plan ? meterDto(plan.events) : null,
      replay_recordings: plan ? meterDto(plan.replayRecordings) : null,
    },
    subscription: hasLiveSubscription(row) ? { status: row!.subscriptionStatus! } : null,
    period: { start: iso(period.startMs), end: iso(period.endMs), source: period.source },
    usage: {
      events: usage.eventsStored,
      events_received: usage.eventsReceived,
      replay_recordings: usage.replayRecordings,
      read_at: iso(usage.readAtMs),
      unreachable_regions: usage.unreachableRegions,
    },
    invoice: { current_minor: evaluation.currentInvoiceMinor, projected_minor: evaluation.projectedInvoiceMinor },
    spend_cap_minor: plan ? (row?.spendCapMinor ?? null) : null,
    spend_cap_min_minor: minimum,
    spend_cap_max_minor: plan ? spendCapMinorMax : null,
    ingest: { stage: evaluation.keepRatio < 1 ? "sampling" : "full", keep_ratio: evaluation.keepRatio },
    payment_provider: { configured: ctx.payments !== null, name: ctx.payments?.name ?? null, has_customer: row?.customerId != null },
  };
}
