// A StripePaymentProvider talking over HTTP to the fake Stripe API, on a clock the test moves.
import { StripePaymentProvider } from "../../server/control/billing/stripe-provider.ts";
import type { BillingCustomer } from "../../server/control/billing/payment-provider.ts";
import { startFakeStripeApi, type FakePrice, type FakeStripeApi } from "./fake-stripe-api.ts";

export const stripeTestKey = "sk_test_51FakeKeyForTheseTests";
export const stripeTestWebhookSecret = "whsec_fakeSigningSecretForTheseTests";

export const fakePrices: FakePrice[] = [
  { id: "price_starter", unit_amount: 2900, currency: "usd", interval: "month" },
  { id: "price_growth", unit_amount: 9900, currency: "usd", interval: "month" },
  { id: "price_scale", unit_amount: 29900, currency: "usd", interval: "month" },
  /** A price set by hand in the dashboard, none of the plans'. */
  { id: "price_legacy", unit_amount: 5000, currency: "usd", interval: "month" },
];
export const planPrices = { starter: "price_starter", growth: "price_growth", scale: "price_scale" };

/** 2026-11-01T00:00:00Z: a subscription started then runs to 2026-12-01, 30 days. */
export const novemberFirst = Date.UTC(2026, 10, 1) / 1000;
export const daySeconds = 86_400;

export const orgId = "5b0f3c1e-8d2a-4c7b-9e61-2f4a8b9c0d13";
export const newCustomer: BillingCustomer = {
  orgId,
  orgName: "Acme Analytics",
  email: "owner@acme.test",
  customerId: null,
  subscriptionId: null,
};
export const urls = { successUrl: "https://console.acme.test/billing?checkout=done", cancelUrl: "https://console.acme.test/billing" };

type ProviderOptions = { secretKey?: string; maxNetworkRetries?: number; requestTimeoutMs?: number; apiBase?: URL };

export interface StripeFixture {
  fake: FakeStripeApi;
  provider: StripePaymentProvider;
  /** Unix seconds, shared by the fake and the provider. */
  clock: { seconds: number };
  providerWith(options: ProviderOptions): StripePaymentProvider;
}

export function stripeFixture(): StripeFixture {
  const clock = { seconds: novemberFirst };
  const fake = startFakeStripeApi({ secretKey: stripeTestKey, webhookSecret: stripeTestWebhookSecret, prices: fakePrices, now: () => clock.seconds });
  const providerWith = (options: ProviderOptions) =>
    new StripePaymentProvider({
      secretKey: options.secretKey ?? stripeTestKey,
      webhookSecret: stripeTestWebhookSecret,
      prices: planPrices,
      apiBase: options.apiBase ?? fake.url,
      // The client's back-off is half a second and more: only the retry test waits for it.
      maxNetworkRetries: options.maxNetworkRetries ?? 0,
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      now: () => clock.seconds * 1000,
    });
  return { fake, provider: providerWith({}), clock, providerWith };
}
