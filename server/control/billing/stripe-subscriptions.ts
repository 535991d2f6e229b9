// Reading a Stripe subscription: which of our plans it is on, and what a webhook about it
// changes for the organisation. The API version the client pins (2025-03-31 and later) keeps
// the billing period on each subscription item, not on the subscription.
import type Stripe from "stripe";
import { isUuid } from "../ids.ts";
import { paidPlans, type PaidPlan, type SubscriptionChange } from "./payment-provider.ts";

export type PlanPrices = Record<PaidPlan, string>;

/** Statuses in which the subscription still bills: a plan change updates it in place. */
export const liveSubscriptionStatuses: ReadonlySet<string> = new Set(["active", "trialing", "past_due"]);

// Stripe's ids are at most 255 characters of letters, digits and underscores; anything else in
// a signed payload is not something this service created, and is not passed on.
const stripeIdPattern = /^[A-Za-z0-9_]{1,255}$/;
const statusPattern = /^[a-z_]{1,32}$/;

export function planOfPrice(priceId: string, prices: PlanPrices): PaidPlan | null {
  return paidPlans.find((plan) => prices[plan] === priceId) ?? null;
}

/** The item carrying one of our plans' prices; else the only item (a price set by hand in the dashboard). */
export function planItem(subscription: Stripe.Subscription, prices: PlanPrices): Stripe.SubscriptionItem | null {
  const items = subscription.items.data;
  return items.find((item) => planOfPrice(item.price.id, prices) !== null) ?? (items.length === 1 ? items[0]! : null);
}

const idOf = (value: string | { id: string }): string => (typeof value === "string" ? value : value.id);
const rfc3339 = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();

/**
 * What the subscription means for its organisation; null when it is not one this service
 * started (no organisation id in its metadata) or its shape is not one this service can use.
 */
export function subscriptionChangeOf(
  subscription: Stripe.Subscription,
  prices: PlanPrices,
  fallbackOrgId: string | null = null,
): SubscriptionChange | null {
  const orgId = subscription.metadata?.org_id ?? fallbackOrgId;
  if (typeof orgId !== "string" || !isUuid(orgId)) return null;
  const customerId = idOf(subscription.customer);
  // With no item on a plan, the status (a cancellation, say) still counts; the plan stays as it was.
  const item = planItem(subscription, prices) ?? subscription.items.data[0];
  if (!item || !stripeIdPattern.test(customerId) || !stripeIdPattern.test(subscription.id)) return null;
  if (!statusPattern.test(subscription.status)) return null;
  return {
    orgId: orgId.toLowerCase(),
    customerId,
    subscriptionId: subscription.id,
    plan: planOfPrice(item.price.id, prices),
    status: subscription.status,
    currentPeriodStart: rfc3339(item.current_period_start),
    currentPeriodEnd: rfc3339(item.current_period_end),
  };
}
