// The plans an organisation can be on, their prices, included volumes and overage rates, and
// what a period's usage costs on each. One account currency (USD, minor units = cents): the
// payment provider's prices (STRIPE_PRICE_STARTER|GROWTH|SCALE) must be in it too.
import type { PaidPlan } from "./payment-provider.ts";

export const billingCurrency = "usd";

export type PlanName = "self_hosted" | PaidPlan;

/** What a meter's use beyond the plan's included volume costs. */
export interface Meter {
  /** Units included in the monthly price. */
  included: number;
  /** Minor units per 1,000 units beyond `included` (fractions of a cent are not charged). */
  overagePer1000Minor: number;
}

export interface PaidPlanTerms {
  name: PaidPlan;
  /** Monthly price in minor units. */
  priceMinor: number;
  /** Events stored (after spend-cap sampling). */
  events: Meter;
  /** Replay recordings stored (a recording counts when its first chunk is stored). */
  replayRecordings: Meter;
}

export const paidPlanTerms: Record<PaidPlan, PaidPlanTerms> = {
  starter: { name: "starter", priceMinor: 2_900, events: { included: 1_000_000, overagePer1000Minor: 5 }, replayRecordings: { included: 5_000, overagePer1000Minor: 500 } },
  growth: { name: "growth", priceMinor: 9_900, events: { included: 5_000_000, overagePer1000Minor: 4 }, replayRecordings: { included: 25_000, overagePer1000Minor: 400 } },
  scale: { name: "scale", priceMinor: 49_900, events: { included: 50_000_000, overagePer1000Minor: 3 }, replayRecordings: { included: 250_000, overagePer1000Minor: 300 } },
};

/** The highest spend cap accepted (one million dollars a month): a typo of a few extra digits is refused. */
export const spendCapMinorMax = 100_000_000;

/** A meter's overage cost of `used` units, in whole minor units. */
export function overageMinor(meter: Meter, used: number): number {
  return Math.floor((Math.max(0, used - meter.included) * meter.overagePer1000Minor) / 1000);
}

export interface MeteredUsage {
  events: number;
  replayRecordings: number;
}

/** Overage of both meters, in minor units. */
export function usageOverageMinor(plan: PaidPlanTerms, usage: MeteredUsage): number {
  return overageMinor(plan.events, usage.events) + overageMinor(plan.replayRecordings, usage.replayRecordings);
}

/** The period's invoice for this usage: the price plus overage. */
export function invoiceMinor(plan: PaidPlanTerms, usage: MeteredUsage): number {
  return plan.priceMinor + usageOverageMinor(plan, usage);
}
