// createPaymentProvider: no provider without STRIPE_SECRET_KEY; with it, every Stripe setting
// present and well formed or a start-up error naming the setting (never echoing a secret).
import { afterAll, describe, expect, test } from "bun:test";
import {
  createPaymentProvider,
  parseStripeSettings,
  PaymentProviderSettingsError,
} from "../../../server/control/billing/payment-provider-config.ts";
import { StripePaymentProvider } from "../../../server/control/billing/stripe-provider.ts";
import { startFakeStripeApi } from "../../helpers/fake-stripe-api.ts";
import { fakePrices, stripeTestKey, stripeTestWebhookSecret } from "../../helpers/stripe-provider-fixture.ts";

const complete = {
  STRIPE_SECRET_KEY: stripeTestKey,
  STRIPE_WEBHOOK_SECRET: stripeTestWebhookSecret,
  STRIPE_PRICE_STARTER: "price_starter",
  STRIPE_PRICE_GROWTH: "price_growth",
  STRIPE_PRICE_SCALE: "price_scale",
};

function refusal(env: Record<string, string | undefined>): string {
  try {
    createPaymentProvider(env);
  } catch (error) {
    expect(error).toBeInstanceOf(PaymentProviderSettingsError);
    return (error as Error).message;
  }
  throw new Error("expected a settings error");
}

const fake = startFakeStripeApi({ secretKey: stripeTestKey, webhookSecret: stripeTestWebhookSecret, prices: fakePrices });
afterAll(() => fake.stop());

describe("createPaymentProvider", () => {
  test("no STRIPE_SECRET_KEY (unset or blank): no provider, whatever else is set", () => {
    expect(createPaymentProvider({})).toBeNull();
    expect(createPaymentProvider({ ...complete, STRIPE_SECRET_KEY: "  " })).toBeNull();
  });

  test("complete settings: the Stripe provider, trimmed, on api.stripe.com unless STRIPE_API_BASE says otherwise", () => {
    const provider = createPaymentProvider({ ...complete, STRIPE_PRICE_SCALE: " price_scale\n" });
    expect(provider).toBeInstanceOf(StripePaymentProvider);
    expect(provider!.name).toBe("stripe");
    expect(parseStripeSettings({ ...complete, STRIPE_PRICE_SCALE: " price_scale\n" })).toEqual({
      secretKey: stripeTestKey,
      webhookSecret: stripeTestWebhookSecret,
      prices: { starter: "price_starter", growth: "price_growth", scale: "price_scale" },
      apiBase: null,
    });
    expect(parseStripeSettings({ ...complete, STRIPE_SECRET_KEY: "rk_live_restricted123" })?.secretKey).toBe("rk_live_restricted123");
  });

  test("STRIPE_API_BASE: the provider talks to that server", async () => {
    const provider = createPaymentProvider({ ...complete, STRIPE_API_BASE: fake.url.href });
    const result = await provider!.checkout({ orgId: "5b0f3c1e-8d2a-4c7b-9e61-2f4a8b9c0d13", orgName: "Acme", email: "a@acme.test", customerId: null, subscriptionId: null }, "growth", {
      successUrl: "https://console.acme.test/ok",
      cancelUrl: "https://console.acme.test/cancel",
    });
    expect(result.kind).toBe("redirect");
    expect(fake.requests.map((request) => request.path)).toEqual(["/v1/customers", "/v1/checkout/sessions"]);
  });

  test("a key that is not a Stripe secret key: refused without quoting it", () => {
    for (const key of ["pk_test_publishableKey", "sk_prod_abc", "hunter2", "sk_test_has space"]) {
      const message = refusal({ ...complete, STRIPE_SECRET_KEY: key });
      expect(message).toBe("STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_test_…, rk_live_…)");
    }
  });

  test("the webhook secret: missing or malformed", () => {
    expect(refusal({ ...complete, STRIPE_WEBHOOK_SECRET: undefined })).toBe(
      "STRIPE_SECRET_KEY is set without STRIPE_WEBHOOK_SECRET (the endpoint's signing secret, whsec_…)",
    );
    expect(refusal({ ...complete, STRIPE_WEBHOOK_SECRET: "secret123" })).toBe("STRIPE_WEBHOOK_SECRET must be the endpoint's signing secret (whsec_…)");
  });

  test("prices: every missing one named, malformed quoted up to 60 characters, no two plans on one price", () => {
    expect(refusal({ ...complete, STRIPE_PRICE_STARTER: undefined, STRIPE_PRICE_SCALE: "" })).toBe(
      "STRIPE_SECRET_KEY is set without STRIPE_PRICE_STARTER, STRIPE_PRICE_SCALE (each plan's Stripe price id, price_…)",
    );
    expect(refusal({ ...complete, STRIPE_PRICE_GROWTH: "prod_growth" })).toBe('STRIPE_PRICE_GROWTH must be a Stripe price id (price_…), got "prod_growth"');
    expect(refusal({ ...complete, STRIPE_PRICE_GROWTH: `x${"y".repeat(100)}` })).toBe(
      `STRIPE_PRICE_GROWTH must be a Stripe price id (price_…), got "x${"y".repeat(59)}"`,
    );
    expect(refusal({ ...complete, STRIPE_PRICE_SCALE: "price_growth" })).toBe("STRIPE_PRICE_SCALE repeats another plan's price; each plan needs its own price");
  });

  test("STRIPE_API_BASE: an http(s) origin only", () => {
    expect(parseStripeSettings({ ...complete, STRIPE_API_BASE: "http://localhost:12111" })?.apiBase?.href).toBe("http://localhost:12111/");
    expect(parseStripeSettings({ ...complete, STRIPE_API_BASE: "https://stripe-mock.internal/" })?.apiBase?.href).toBe("https://stripe-mock.internal/");
    expect(refusal({ ...complete, STRIPE_API_BASE: "localhost:12111" })).toBe('STRIPE_API_BASE must be an http:// or https:// URL, got "localhost:12111"');
    expect(refusal({ ...complete, STRIPE_API_BASE: "not a url" })).toBe('STRIPE_API_BASE must be an http:// or https:// URL, got "not a url"');
    for (const base of ["http://localhost:12111/v1", "http://user:pw@localhost:12111", "http://localhost:12111?x=1"]) {
      expect(refusal({ ...complete, STRIPE_API_BASE: base })).toBe(
        `STRIPE_API_BASE must be a scheme, host and optional port only (like http://localhost:12111), got "${base}"`,
      );
    }
  });
});
