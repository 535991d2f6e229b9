// A StripePaymentProvider talking over HTTP to the fake Stripe API, on a clock the test moves.
import { StripePaymentProvider } from "../../server/control/billing/stripe-provider.ts";
import { paidPlans, type BillingCustomer } from "../../server/control/billing/payment-provider.ts";
import { paidPlanTerms } from "../../server/control/billing/plans.ts";
import { startFakeStripeApi, type FakePrice, type FakeStripeApi, type StripeObject, type WebhookDelivery } from "./fake-stripe-api.ts";
import { call } from "./client.ts";

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

/** The fake Stripe API on the real clock, for a service configured through STRIPE_* (stop it when done). */
export function startStripeForService(): FakeStripeApi {
  return startFakeStripeApi({ secretKey: stripeTestKey, webhookSecret: stripeTestWebhookSecret, prices: servicePrices });
}

/** The plans' prices as docs/billing.md requires them in the Stripe account: monthly, USD, the plan table's amounts. */
export const servicePrices: FakePrice[] = paidPlans.map((plan) => ({ id: planPrices[plan], unit_amount: paidPlanTerms[plan].priceMinor, currency: "usd", interval: "month" }));

/** The prorated amount of the invoice the fake raised for the last plan change (the sum of its proration lines). */
export function lastProration(fake: FakeStripeApi): { amount_minor: number; currency: string } {
  const invoice = fake.invoices.at(-1);
  if (!invoice) throw new Error("the fake raised no invoice");
  const lines = (invoice.lines as { data: { amount: number; parent: { subscription_item_details: { proration: boolean } } }[] }).data;
  return {
    amount_minor: lines.filter((line) => line.parent.subscription_item_details.proration).reduce((sum, line) => sum + line.amount, 0),
    currency: String(invoice.currency).toUpperCase(),
  };
}

/** The settings a service reads at start to charge through the fake (pass to `startTestService`). */
export function stripeServiceEnv(fake: FakeStripeApi): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: stripeTestKey,
    STRIPE_WEBHOOK_SECRET: stripeTestWebhookSecret,
    STRIPE_PRICE_STARTER: planPrices.starter,
    STRIPE_PRICE_GROWTH: planPrices.growth,
    STRIPE_PRICE_SCALE: planPrices.scale,
    STRIPE_API_BASE: fake.url.origin,
  };
}

/** POSTs a signed webhook delivery to the service as Stripe would. */
export const postWebhook = (serviceUrl: string, delivery: WebhookDelivery) =>
  call(serviceUrl, "POST", "/billing/webhooks/stripe", { rawBody: delivery.body, headers: Object.fromEntries(delivery.headers) });

/** Delivers every event Stripe would have sent since the last call, oldest first; each event's type and whether it was applied. */
export async function deliverEvents(serviceUrl: string, fake: FakeStripeApi): Promise<{ type: unknown; status: number; applied: unknown }[]> {
  const answers = [];
  for (const event of fake.takeEvents()) {
    const reply = await postWebhook(serviceUrl, await fake.deliver(event));
    answers.push({ type: event.type, status: reply.status, applied: reply.body?.applied });
  }
  return answers;
}

/**
 * The owner subscribes the organisation over HTTP: checkout, the customer pays (the fake's
 * clock at `paidAtSeconds`, when given: the subscription's period starts then), and Stripe's
 * events reach the webhook. Answers the subscription as the fake keeps it.
 */
export async function subscribe(serviceUrl: string, fake: FakeStripeApi, owner: { client: { post(path: string, body?: unknown): Promise<{ status: number; body: any }> } }, orgId: string, plan: keyof typeof planPrices, paidAtSeconds?: number): Promise<StripeObject> {
  const checkout = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan });
  if (checkout.status !== 200 || checkout.body.kind !== "redirect") throw new Error(`checkout answered ${checkout.status} ${JSON.stringify(checkout.body)}`);
  const session = [...fake.sessions.values()].find((state) => state.session.url === checkout.body.url);
  if (!session) throw new Error(`no checkout session has the URL ${checkout.body.url}`);
  const clock = fake.now;
  if (paidAtSeconds !== undefined) fake.now = () => paidAtSeconds;
  const subscription = (() => {
    try {
      return fake.completeCheckout(session.session.id);
    } finally {
      fake.now = clock;
    }
  })();
  const answers = await deliverEvents(serviceUrl, fake);
  if (answers.some((answer) => answer.status !== 200)) throw new Error(`webhooks answered ${JSON.stringify(answers)}`);
  return subscription;
}
