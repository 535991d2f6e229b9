// Stripe subscriptions as revenue events: `customer.subscription.created`, `.updated` and
// `.deleted` carry the whole Subscription, and `.updated` also the `previous_attributes` that
// changed, so starts, trial conversions, plan changes, renewals (the period moving on) and
// scheduled cancellations are read from one event each, with no call to Stripe's API.
import { revenueEvents } from "../../../../engine/revenue-events.ts";
import { roundMinor } from "../../../../engine/revenue/conversion.ts";
import { isBillingPeriod, monthlyShare, type BillingPeriod } from "./mrr.ts";
import { DraftList, isPlainObject, numberAt, objectAt, textAt, usableDistinctId, type DraftProperties, type JsonObject } from "./drafts.ts";
import { WebhookPayloadError } from "../provider.ts";

interface Recurring {
  /** Unrounded monthly minor units of the licensed items (metered and tiered prices count 0). */
  monthly: number;
  period: BillingPeriod | null;
  product: string | null;
  currency: string | null;
}

/** The price (or the legacy plan) of one subscription item, read the same way. */
function itemRecurring(item: unknown): Recurring {
  const price = objectAt(item, "price") ?? objectAt(item, "plan");
  const recurring = objectAt(price, "recurring") ?? price;
  const interval = textAt(recurring, "interval");
  const period = isBillingPeriod(interval) ? interval : null;
  const product = textAt(price, "product") ?? textAt(objectAt(price, "product"), "id") ?? textAt(price, "id");
  const unitAmount = numberAt(price, "unit_amount") ?? numberAt(price, "amount");
  const count = numberAt(recurring, "interval_count") ?? 1;
  const quantity = numberAt(item, "quantity") ?? 1;
  const metered = textAt(recurring, "usage_type") === "metered";
  const currency = textAt(price, "currency");
  if (period === null || unitAmount === null || metered || count <= 0) return { monthly: 0, period, product, currency };
  return { monthly: monthlyShare(unitAmount * quantity, period, count), period, product, currency };
}

/** The summed recurring price of a list of subscription items (a `{data: [...]}` list). */
function itemsRecurring(items: unknown): Recurring | null {
  const data = isPlainObject(items) ? items.data : undefined;
  if (!Array.isArray(data)) return null;
  const parts = data.map(itemRecurring);
  const first = parts[0];
  return { monthly: parts.reduce((sum, part) => sum + part.monthly, 0), period: first?.period ?? null, product: first?.product ?? null, currency: first?.currency ?? null };
}

/** The earliest current_period_start of a subscription (top level before API 2025-03-31, on its items since). */
function periodStart(subscription: JsonObject | null): number | null {
  const topLevel = numberAt(subscription, "current_period_start");
  if (topLevel !== null) return topLevel;
  const data = objectAt(subscription, "items")?.data;
  if (!Array.isArray(data)) return null;
  const starts = data.map((item) => numberAt(item, "current_period_start")).filter((start): start is number => start !== null);
  return starts.length === 0 ? null : Math.min(...starts);
}

const cancellationScheduled = (subscription: JsonObject): boolean =>
  subscription.cancel_at_period_end === true || numberAt(subscription, "cancel_at") !== null;

/** The person: the Subscription's metadata.distinct_id when usable, else its Customer (`cus_…`). */
function subscriptionPerson(subscription: JsonObject): { distinctId: string; customer: string } {
  const customer = textAt(subscription, "customer") ?? textAt(objectAt(subscription, "customer"), "id");
  if (customer === null) throw new WebhookPayloadError("the subscription has no customer");
  return { distinctId: usableDistinctId(objectAt(subscription, "metadata")?.distinct_id) ?? customer, customer };
}

/** Adds the events of one customer.subscription.* event to `drafts`. */
export function mapSubscriptionEvent(type: string, subscription: JsonObject, previous: JsonObject | null, drafts: DraftList): void {
  const subscriptionId = textAt(subscription, "id");
  if (subscriptionId === null) throw new WebhookPayloadError("the subscription has no id");
  const status = textAt(subscription, "status");
  const { distinctId, customer } = subscriptionPerson(subscription);
  const recurring = itemsRecurring(subscription.items) ?? itemRecurring(subscription);
  const currency = (textAt(subscription, "currency") ?? recurring.currency)?.toUpperCase() ?? null;
  const properties = (mrr: number): DraftProperties => ({
    mrr,
    currency,
    subscription_id: subscriptionId,
    product: recurring.product,
    period: recurring.period,
    customer,
  });
  const add = (event: Parameters<DraftList["add"]>[0], mrr: number) => drafts.add(event, distinctId, properties(mrr));
  const mrrNow = status === "trialing" ? 0 : roundMinor(recurring.monthly);

  if (type === "customer.subscription.deleted") return add(revenueEvents.subscriptionExpired, 0);
  if (type === "customer.subscription.created") {
    if (status === "trialing") add(revenueEvents.trialStarted, 0);
    else if (status === "active") add(revenueEvents.subscriptionStarted, mrrNow);
    // `incomplete` waits for its first payment: the update to `active` starts it.
    return;
  }
  const before = previous ?? {};
  const previousStatus = textAt(before, "status");
  let started = false;
  // A start already states the MRR and the first period: no plan change or renewal besides it.
  if (status === "active" && previousStatus === "trialing") {
    add(revenueEvents.trialConverted, mrrNow);
    started = true;
  } else if (status === "active" && previousStatus === "incomplete") {
    add(revenueEvents.subscriptionStarted, mrrNow);
    started = true;
  } else if (status === "trialing" && previousStatus === "incomplete") {
    add(revenueEvents.trialStarted, 0);
    started = true;
  }
  if (!started && status === "active") {
    const previousItems = itemsRecurring(before.items) ?? ("plan" in before || "quantity" in before
      ? itemRecurring({ plan: "plan" in before ? before.plan : subscription.plan, quantity: "quantity" in before ? before.quantity : subscription.quantity })
      : null);
    if (previousItems !== null) {
      const mrrBefore = roundMinor(previousItems.monthly);
      if (mrrNow > mrrBefore) add(revenueEvents.subscriptionUpgraded, mrrNow);
      else if (mrrNow < mrrBefore) add(revenueEvents.subscriptionDowngraded, mrrNow);
    }
    const startBefore = periodStart(before);
    const startNow = periodStart(subscription);
    if (startBefore !== null && startNow !== null && startNow > startBefore) add(revenueEvents.subscriptionRenewed, mrrNow);
  }
  // Cancelling at the period's end (or at a date) turns auto-renewal off: the subscription
  // still counts until `customer.subscription.deleted`.
  const cancellationChanged = "cancel_at_period_end" in before || "cancel_at" in before;
  if (cancellationChanged && status !== "canceled" && cancellationScheduled(subscription) && !cancellationScheduled({ ...subscription, ...before })) {
    add(revenueEvents.subscriptionCancelled, mrrNow);
  }
}
