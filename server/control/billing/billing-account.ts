// An organisation's billing state as the control plane holds it (org_billing): its effective
// plan and the period its usage is metered over.
import { eq } from "drizzle-orm";
import type { ControlContext } from "../context.ts";
import { orgBilling } from "../db/schema.ts";
import { paidPlanTerms, type PaidPlanTerms, type PlanName } from "./plans.ts";

export type OrgBillingRow = typeof orgBilling.$inferSelect;

/**
 * Subscription statuses under which the subscribed plan applies. Any other (`canceled`,
 * `incomplete_expired`, …) falls back to the default plan; `past_due` keeps the plan while the
 * provider retries the payment.
 */
export const liveSubscriptionStatuses: ReadonlySet<string> = new Set(["active", "trialing", "past_due"]);

/**
 * With a payment provider, an organisation without a live subscription is metered as a starter
 * organisation (the entry plan, whose price checkout starts charging); without one, every
 * organisation is on the self-hosted plan.
 */
export const defaultPaidPlan = "starter";

export interface BillingPeriod {
  startMs: number;
  endMs: number;
  /** `subscription`: the provider's current period (rolled forward while its renewal is awaited); `calendar_month`: the UTC month (no live subscription). */
  source: "subscription" | "calendar_month";
}

export interface BillingAccount {
  orgId: string;
  row: OrgBillingRow | null;
  /** null: the self-hosted plan (no price, no limits). */
  plan: PaidPlanTerms | null;
  planName: PlanName;
  period: BillingPeriod;
}

export function billingRow(ctx: ControlContext, orgId: string): OrgBillingRow | null {
  return ctx.db.select().from(orgBilling).where(eq(orgBilling.orgId, orgId)).get() ?? null;
}

export function hasLiveSubscription(row: OrgBillingRow | null): boolean {
  return row !== null && row.subscriptionId !== null && row.subscriptionStatus !== null && liveSubscriptionStatuses.has(row.subscriptionStatus);
}

/** The UTC calendar month holding `nowMs`. */
export function calendarMonth(nowMs: number): BillingPeriod {
  const now = new Date(nowMs);
  return {
    startMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
    endMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
    source: "calendar_month",
  };
}

/**
 * The subscription's current period while the subscription is live; else the calendar month.
 * A live subscription whose stored period has ended is rolled forward by that period's length
 * (start = the old end) until the renewal webhook brings the real one: Stripe's can lag by up
 * to an hour, and falling back to the calendar month meanwhile would overlap the period just
 * billed (its usage counted again).
 */
export function billingPeriod(row: OrgBillingRow | null, nowMs: number): BillingPeriod {
  if (hasLiveSubscription(row) && row!.currentPeriodStart && row!.currentPeriodEnd) {
    const startMs = Date.parse(row!.currentPeriodStart);
    const endMs = Date.parse(row!.currentPeriodEnd);
    const lengthMs = endMs - startMs;
    if (lengthMs > 0 && startMs <= nowMs) {
      const rolled = nowMs < endMs ? 0 : Math.floor((nowMs - endMs) / lengthMs) + 1;
      return { startMs: startMs + rolled * lengthMs, endMs: endMs + rolled * lengthMs, source: "subscription" };
    }
  }
  return calendarMonth(nowMs);
}

export function billingAccount(ctx: ControlContext, orgId: string, nowMs: number): BillingAccount {
  const row = billingRow(ctx, orgId);
  const period = billingPeriod(row, nowMs);
  if (ctx.payments === null) return { orgId, row, plan: null, planName: "self_hosted", period };
  const subscribed = hasLiveSubscription(row) && row!.plan !== "self_hosted" ? paidPlanTerms[row!.plan as keyof typeof paidPlanTerms] : null;
  const plan = subscribed ?? paidPlanTerms[defaultPaidPlan];
  return { orgId, row, plan, planName: plan.name, period };
}
