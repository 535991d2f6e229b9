// RevenueCat webhooks (docs/revenue.md, "RevenueCat"): RevenueCat posts `{api_version, event}`
// with the Authorization header value set in its dashboard, which is the integration's secret
// (compared in constant time). It signs nothing else and carries no timestamp to expire:
// a replayed notification is the same event id, which the route stores once.
// The person is `app_user_id`; the subscription is `original_transaction_id`; money is
// `price_in_purchased_currency` of `currency`. RevenueCat has no billing-period field: the
// period is read from `expiration_at_ms - purchased_at_ms` (billingPeriodOf).
import { createHash, timingSafeEqual } from "node:crypto";
import { revenueEvents, type RevenueEventName } from "../../../../engine/revenue-events.ts";
import { WebhookAuthError, WebhookPayloadError, type RevenueEventDraft, type RevenueProviderModule, type WebhookOutcome } from "../provider.ts";
import { toMinorUnits } from "../money.ts";
import { monthlyMinor, type BillingPeriod } from "./mrr.ts";

const dayMs = 86_400_000;

/**
 * A subscription's billing period from the length of the period a transaction bought, with
 * room for months of 28 to 31 days and for store grace: [upper bound in days, unit, count].
 * Sandbox periods are accelerated (a month lasts minutes) and read as days.
 */
const periodBuckets: [number, BillingPeriod, number][] = [
  [2, "day", 1], [10, "week", 1], [20, "week", 2], [45, "month", 1], [75, "month", 2], [135, "month", 3], [270, "month", 6],
];

export function billingPeriodOf(purchasedAtMs: number, expirationAtMs: number): { period: BillingPeriod; count: number } | null {
  const days = (expirationAtMs - purchasedAtMs) / dayMs;
  if (!(days > 0)) return null;
  for (const [upTo, period, count] of periodBuckets) if (days < upTo) return { period, count };
  return { period: "year", count: 1 };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const digest = (text: string) => createHash("sha256").update(text).digest();

function checkAuthorization(expected: string | null, given: string | null): void {
  if (given === null || given === "") throw new WebhookAuthError("missing_signature", "the Authorization header is missing");
  // Digests have one length, so the comparison takes the same time whatever was sent.
  if (expected === null || !timingSafeEqual(digest(expected), digest(given))) {
    throw new WebhookAuthError("bad_signature", "the Authorization header is not the value configured for this integration");
  }
}

function parseEvent(body: Uint8Array): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookPayloadError("the body is not JSON");
  }
  if (!isObject(parsed) || !isObject(parsed.event)) throw new WebhookPayloadError("the body has no event object");
  const event = parsed.event;
  if (typeof event.id !== "string" || event.id === "") throw new WebhookPayloadError("event.id is missing");
  if (typeof event.type !== "string" || event.type === "") throw new WebhookPayloadError("event.type is missing");
  if (typeof event.event_timestamp_ms !== "number" || !Number.isFinite(event.event_timestamp_ms)) throw new WebhookPayloadError("event.event_timestamp_ms is missing");
  return event;
}

const text = (event: Json, name: string): string | null => (typeof event[name] === "string" && event[name] !== "" ? (event[name] as string) : null);
const millis = (event: Json, name: string): number | null => (typeof event[name] === "number" && Number.isFinite(event[name]) ? (event[name] as number) : null);

/** The transaction's price in minor units of its currency (negative for a refund). */
function priceOf(event: Json): { amount: number; currency: string } {
  const currency = text(event, "currency")?.toUpperCase() ?? null;
  const price = event.price_in_purchased_currency;
  if (currency === null || typeof price !== "number") throw new WebhookPayloadError(`event.currency and event.price_in_purchased_currency are required for ${String(event.type)}`);
  const amount = toMinorUnits(price, currency);
  if (amount === null) throw new WebhookPayloadError("event.currency is not an ISO 4217 currency code");
  return { amount, currency };
}

/** Event types that move money or a subscription's state; any other type is acknowledged and ignored. */
const mappedTypes: ReadonlySet<string> = new Set(["INITIAL_PURCHASE", "RENEWAL", "NON_RENEWING_PURCHASE", "CANCELLATION", "EXPIRATION", "REFUND_REVERSED"]);

export function mapRevenueCatEvent(event: Json): RevenueEventDraft[] {
  const type = event.type as string;
  const distinctId = text(event, "app_user_id");
  if (distinctId === null) throw new WebhookPayloadError(`event.app_user_id is required for ${type}`);
  const subscriptionId = text(event, "original_transaction_id") ?? text(event, "transaction_id");
  const purchasedAt = millis(event, "purchased_at_ms");
  const expiresAt = millis(event, "expiration_at_ms");
  const billing = purchasedAt !== null && expiresAt !== null ? billingPeriodOf(purchasedAt, expiresAt) : null;
  const trial = event.period_type === "TRIAL";
  const common = {
    provider: "revenuecat",
    provider_event_id: event.id as string,
    customer: distinctId,
    product: text(event, "product_id"),
  };
  const drafts: RevenueEventDraft[] = [];
  const add = (name: RevenueEventName, properties: RevenueEventDraft["properties"]) =>
    drafts.push({
      event: name,
      distinctId,
      timestamp: event.event_timestamp_ms as number,
      uuidSeed: `${event.id as string}:${drafts.length}`,
      properties: { ...common, ...properties },
    });
  const subscription = (name: RevenueEventName, mrr: number, currency: string) =>
    add(name, { subscription_id: subscriptionId, mrr, currency, ...(billing ? { period: billing.period } : {}) });
  const mrrOf = (amount: number) => (billing && !trial && amount > 0 ? monthlyMinor(amount, billing.period, billing.count) : 0);

  switch (type) {
    case "INITIAL_PURCHASE":
    case "RENEWAL": {
      const { amount, currency } = priceOf(event);
      if (amount > 0) add(revenueEvents.charge, { amount, currency, subscription_id: subscriptionId });
      const name = trial
        ? revenueEvents.trialStarted
        : type === "INITIAL_PURCHASE" ? revenueEvents.subscriptionStarted
        : event.is_trial_conversion === true ? revenueEvents.trialConverted : revenueEvents.subscriptionRenewed;
      subscription(name, mrrOf(amount), currency);
      break;
    }
    case "NON_RENEWING_PURCHASE": {
      const { amount, currency } = priceOf(event);
      if (amount > 0) add(revenueEvents.charge, { amount, currency });
      break;
    }
    case "CANCELLATION": {
      const { amount, currency } = priceOf(event);
      // RevenueCat reports a refund as a cancellation by customer support with a negative price;
      // auto-renewal may still be on, so the subscription's state is left as it is.
      if (event.cancel_reason === "CUSTOMER_SUPPORT" || amount < 0) {
        if (amount !== 0) add(revenueEvents.refund, { amount: Math.abs(amount), currency, ...(expiresAt !== null ? { subscription_id: subscriptionId } : {}) });
      } else if (expiresAt !== null) {
        // Auto-renewal off: the subscription runs (and counts in MRR) until EXPIRATION.
        subscription(revenueEvents.subscriptionCancelled, mrrOf(amount), currency);
      }
      break;
    }
    case "EXPIRATION": {
      const currency = text(event, "currency")?.toUpperCase();
      add(revenueEvents.subscriptionExpired, { subscription_id: subscriptionId, mrr: 0, ...(currency ? { currency } : {}), ...(billing ? { period: billing.period } : {}) });
      break;
    }
    case "REFUND_REVERSED": {
      const { amount, currency } = priceOf(event);
      if (amount !== 0) add(revenueEvents.charge, { amount: Math.abs(amount), currency, ...(expiresAt !== null ? { subscription_id: subscriptionId } : {}) });
      break;
    }
  }
  return drafts;
}

export const revenueCat: RevenueProviderModule = {
  provider: "revenuecat",
  async handle(integration, request): Promise<WebhookOutcome> {
    checkAuthorization(integration.secret, request.headers.get("authorization"));
    const event = parseEvent(request.body);
    const type = event.type as string;
    const id = event.id as string;
    if (!mappedTypes.has(type)) return { kind: "ignored", notificationId: id, notificationType: type };
    if (event.environment === "SANDBOX" && integration.config.accept_sandbox !== true) {
      return { kind: "ignored", notificationId: id, notificationType: `${type} (sandbox)` };
    }
    return { kind: "events", notificationId: id, notificationType: type, events: mapRevenueCatEvent(event) };
  },
};
