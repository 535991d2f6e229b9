// RevenueCat's module on its own: the Authorization check and the mapping of each event type
// to revenue events (docs/revenue.md, "RevenueCat"). The route around it is tested over HTTP in
// webhook-route.test.ts.
import { describe, expect, test } from "bun:test";
import { billingPeriodOf, revenueCat } from "../../../server/ingest/revenue/providers/revenuecat.ts";
import { WebhookAuthError, WebhookPayloadError, type RevenueEventDraft, type WebhookIntegration } from "../../../server/ingest/revenue/provider.ts";

const dayMs = 86_400_000;
const purchased = Date.UTC(2026, 10, 1);
const integration: WebhookIntegration = {
  id: "00000000-0000-4000-8000-000000000001", projectId: "p", provider: "revenuecat", status: "active", secret: "Bearer configured-value", config: {},
};

const event = (fields: Record<string, unknown>) => ({
  id: "evt-1", type: "INITIAL_PURCHASE", app_user_id: "user-1", product_id: "pro", period_type: "NORMAL",
  purchased_at_ms: purchased, expiration_at_ms: purchased + 31 * dayMs, event_timestamp_ms: purchased + 1000, environment: "PRODUCTION",
  currency: "USD", price: 9.99, price_in_purchased_currency: 9.99, original_transaction_id: "sub-1", transaction_id: "tx-2", ...fields,
});

const handle = (fields: Record<string, unknown>, headers: Record<string, string> = { authorization: "Bearer configured-value" }, config = {}) =>
  revenueCat.handle({ ...integration, config }, {
    headers: new Headers(headers), body: new TextEncoder().encode(JSON.stringify({ api_version: "1.0", event: event(fields) })), receivedAt: Date.now(),
  });

const common = { provider: "revenuecat", provider_event_id: "evt-1", customer: "user-1", product: "pro" };
const drafted = (name: string, seed: number, properties: Record<string, unknown>): unknown => ({
  event: name, distinctId: "user-1", timestamp: purchased + 1000, uuidSeed: `evt-1:${seed}`, properties: { ...common, ...properties },
});
const eventsOf = async (fields: Record<string, unknown>): Promise<RevenueEventDraft[] | unknown[]> => {
  const outcome = await handle(fields);
  expect(outcome.kind).toBe("events");
  return outcome.kind === "events" ? outcome.events : [];
};

describe("RevenueCat authorization", () => {
  test("the configured Authorization value passes; a missing or different one is a WebhookAuthError", async () => {
    expect((await handle({})).kind).toBe("events");
    const missing = await handle({}, {}).catch((error) => error);
    expect([missing instanceof WebhookAuthError, missing.reason]).toEqual([true, "missing_signature"]);
    for (const value of ["Bearer configured-valuE", "Bearer configured-value-longer", "x"]) {
      const wrong = await handle({}, { authorization: value }).catch((error) => error);
      expect([value, wrong instanceof WebhookAuthError, wrong.reason]).toEqual([value, true, "bad_signature"]);
    }
    // Checked before the body is read: a forged request learns nothing of the payload rules.
    const forged = await revenueCat.handle(integration, { headers: new Headers({ authorization: "no" }), body: new TextEncoder().encode("{"), receivedAt: 0 }).catch((error) => error);
    expect(forged instanceof WebhookAuthError).toBe(true);
    const garbage = await revenueCat.handle(integration, { headers: new Headers({ authorization: "Bearer configured-value" }), body: new TextEncoder().encode("{"), receivedAt: 0 }).catch((error) => error);
    expect([garbage instanceof WebhookPayloadError, garbage.message]).toEqual([true, "the body is not JSON"]);
  });
});

describe("RevenueCat event mapping", () => {
  test("INITIAL_PURCHASE: a charge and a subscription start with its MRR", async () => {
    expect(await eventsOf({})).toEqual([
      drafted("$charge", 0, { amount: 999, currency: "USD", subscription_id: "sub-1" }),
      drafted("$subscription_started", 1, { subscription_id: "sub-1", mrr: 999, currency: "USD", period: "month" }),
    ]);
  });

  test("INITIAL_PURCHASE of a trial: a trial start with MRR 0 and no charge", async () => {
    expect(await eventsOf({ period_type: "TRIAL", price: 0, price_in_purchased_currency: 0, expiration_at_ms: purchased + 7 * dayMs })).toEqual([
      drafted("$trial_started", 0, { subscription_id: "sub-1", mrr: 0, currency: "USD", period: "week" }),
    ]);
  });

  test("RENEWAL: a charge and a renewal; after a trial, a trial conversion; a yearly price is a twelfth per month", async () => {
    expect(await eventsOf({ type: "RENEWAL", currency: "JPY", price_in_purchased_currency: 12000, expiration_at_ms: purchased + 365 * dayMs })).toEqual([
      drafted("$charge", 0, { amount: 12000, currency: "JPY", subscription_id: "sub-1" }),
      drafted("$subscription_renewed", 1, { subscription_id: "sub-1", mrr: 1000, currency: "JPY", period: "year" }),
    ]);
    expect(await eventsOf({ type: "RENEWAL", is_trial_conversion: true })).toEqual([
      drafted("$charge", 0, { amount: 999, currency: "USD", subscription_id: "sub-1" }),
      drafted("$trial_converted", 1, { subscription_id: "sub-1", mrr: 999, currency: "USD", period: "month" }),
    ]);
  });

  test("weekly and quarterly prices normalised to a month (half away from zero)", async () => {
    const weekly = await eventsOf({ type: "RENEWAL", price_in_purchased_currency: 2.99, expiration_at_ms: purchased + 7 * dayMs });
    expect((weekly[1] as RevenueEventDraft).properties).toMatchObject({ mrr: Math.round((299 * 52) / 12), period: "week" });
    const quarterly = await eventsOf({ type: "RENEWAL", price_in_purchased_currency: 25, expiration_at_ms: purchased + 92 * dayMs });
    expect((quarterly[1] as RevenueEventDraft).properties).toMatchObject({ mrr: 833, period: "month" });
  });

  test("NON_RENEWING_PURCHASE: a charge only; KWD has three decimals", async () => {
    expect(await eventsOf({ type: "NON_RENEWING_PURCHASE", currency: "KWD", price_in_purchased_currency: 1.234, expiration_at_ms: null })).toEqual([
      drafted("$charge", 0, { amount: 1234, currency: "KWD" }),
    ]);
  });

  test("CANCELLATION: auto-renewal off keeps its MRR; by customer support or with a negative price it is a refund", async () => {
    expect(await eventsOf({ type: "CANCELLATION", cancel_reason: "UNSUBSCRIBE" })).toEqual([
      drafted("$subscription_cancelled", 0, { subscription_id: "sub-1", mrr: 999, currency: "USD", period: "month" }),
    ]);
    expect(await eventsOf({ type: "CANCELLATION", cancel_reason: "CUSTOMER_SUPPORT", price: -9.99, price_in_purchased_currency: -9.99 })).toEqual([
      drafted("$refund", 0, { amount: 999, currency: "USD", subscription_id: "sub-1" }),
    ]);
    expect(await eventsOf({ type: "CANCELLATION", cancel_reason: "UNKNOWN", price_in_purchased_currency: -4.5, expiration_at_ms: null })).toEqual([
      drafted("$refund", 0, { amount: 450, currency: "USD" }),
    ]);
  });

  test("EXPIRATION: the subscription ends with MRR 0; REFUND_REVERSED: the money is charged again", async () => {
    expect(await eventsOf({ type: "EXPIRATION", expiration_reason: "UNSUBSCRIBE" })).toEqual([
      drafted("$subscription_expired", 0, { subscription_id: "sub-1", mrr: 0, currency: "USD", period: "month" }),
    ]);
    expect(await eventsOf({ type: "REFUND_REVERSED", price_in_purchased_currency: 9.99 })).toEqual([
      drafted("$charge", 0, { amount: 999, currency: "USD", subscription_id: "sub-1" }),
    ]);
  });

  test("types that move no money or state are ignored; sandbox events unless accept_sandbox", async () => {
    for (const type of ["TEST", "UNCANCELLATION", "PRODUCT_CHANGE", "BILLING_ISSUE", "SUBSCRIPTION_PAUSED", "TRANSFER", "SUBSCRIPTION_EXTENDED", "TEMPORARY_ENTITLEMENT_GRANT", "INVOICE_ISSUANCE", "FUTURE_TYPE"]) {
      expect(await handle({ type })).toEqual({ kind: "ignored", notificationId: "evt-1", notificationType: type });
    }
    expect(await handle({ environment: "SANDBOX" })).toEqual({ kind: "ignored", notificationId: "evt-1", notificationType: "INITIAL_PURCHASE (sandbox)" });
    expect((await handle({ environment: "SANDBOX" }, undefined, { accept_sandbox: true })).kind).toBe("events");
  });

  test("billing periods from the length a transaction bought", () => {
    const period = (days: number) => billingPeriodOf(0, days * dayMs);
    expect([1, 7, 14, 28, 31, 61, 92, 183, 365, 366].map(period)).toEqual([
      { period: "day", count: 1 }, { period: "week", count: 1 }, { period: "week", count: 2 }, { period: "month", count: 1 }, { period: "month", count: 1 },
      { period: "month", count: 2 }, { period: "month", count: 3 }, { period: "month", count: 6 }, { period: "year", count: 1 }, { period: "year", count: 1 },
    ]);
    expect(period(0)).toBeNull();
    expect(period(-1)).toBeNull();
  });
});
