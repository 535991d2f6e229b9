// StripePaymentProvider over real HTTP to the fake Stripe API: hosted checkout, in-place plan
// changes with the proration Stripe previews, the portal, and Stripe's failures as 503s.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import Stripe from "stripe";
import { PaymentProviderError } from "../../../server/control/billing/payment-provider-error.ts";
import { checkoutIdempotencyKey } from "../../../server/control/billing/stripe-provider.ts";
import { daySeconds, newCustomer, novemberFirst, orgId, stripeFixture, stripeTestKey, urls, type StripeFixture } from "../../helpers/stripe-provider-fixture.ts";

let fx: StripeFixture;
beforeEach(() => {
  fx = stripeFixture();
});
afterEach(async () => {
  await fx.fake.stop();
});

const calls = (): unknown[] => fx.fake.requests.map((request) => [request.method, request.path, request.params]);

async function failure(promise: Promise<unknown>): Promise<PaymentProviderError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PaymentProviderError);
  return error as PaymentProviderError;
}

const errorFields = (error: PaymentProviderError) => ({
  status: error.status,
  code: error.code,
  failure: error.failure,
  message: error.message,
  headers: error.headers,
  customerId: error.customerId,
});

/** A customer who paid for `starter` on November 1st. */
async function subscribed() {
  const first = await fx.provider.checkout(newCustomer, "starter", urls);
  if (first.kind !== "redirect") throw new Error("expected a redirect");
  const sessionId = first.url.split("/").at(-1)!;
  const subscription = fx.fake.completeCheckout(sessionId);
  fx.fake.requests.length = 0;
  return { ...newCustomer, customerId: first.customerId, subscriptionId: subscription.id };
}

describe("checkout", () => {
  test("without a customer: creates one with the organisation, then a subscription Checkout Session", async () => {
    const result = await fx.provider.checkout(newCustomer, "growth", urls);
    const [customer] = [...fx.fake.customers.values()];
    const [state] = [...fx.fake.sessions.values()];
    expect(result).toEqual({ kind: "redirect", url: `https://checkout.stripe.com/c/pay/${state!.session.id}`, customerId: customer!.id });
    expect(calls()).toEqual([
      ["POST", "/v1/customers", { email: "owner@acme.test", name: "Acme Analytics", metadata: { org_id: orgId } }],
      [
        "POST",
        "/v1/checkout/sessions",
        {
          mode: "subscription",
          customer: customer!.id,
          line_items: [{ price: "price_growth", quantity: "1" }],
          client_reference_id: orgId,
          metadata: { org_id: orgId },
          subscription_data: { metadata: { org_id: orgId } },
          success_url: urls.successUrl,
          cancel_url: urls.cancelUrl,
        },
      ],
    ]);
    // The client pins its API version and sends an idempotency key with every POST (its retries
    // reuse it); the Checkout Session's is ours, so a second click in the window gets the same session.
    expect(fx.fake.requests.map((request) => [request.stripeVersion, request.idempotencyKey])).toEqual([
      [Stripe.API_VERSION, expect.stringMatching(/^stripe-node-retry-[0-9a-f-]{36}$/)],
      [Stripe.API_VERSION, checkoutIdempotencyKey(orgId, customer!.id as string, "growth", novemberFirst * 1000)],
    ]);
    expect(customer).toMatchObject({ object: "customer", email: "owner@acme.test", name: "Acme Analytics", metadata: { org_id: orgId } });
    expect(state!.session).toEqual({
      id: state!.session.id,
      object: "checkout.session",
      amount_subtotal: 9900,
      amount_total: 9900,
      cancel_url: urls.cancelUrl,
      client_reference_id: orgId,
      created: novemberFirst,
      currency: "usd",
      customer: customer!.id,
      expires_at: novemberFirst + daySeconds,
      livemode: false,
      metadata: { org_id: orgId },
      mode: "subscription",
      payment_status: "unpaid",
      status: "open",
      subscription: null,
      success_url: urls.successUrl,
      url: result.kind === "redirect" ? result.url : "",
    });
    expect(state!.subscriptionMetadata).toEqual({ org_id: orgId });
  });

  test("with a customer: only the session, for that customer", async () => {
    const first = await fx.provider.checkout(newCustomer, "starter", urls);
    const customerId = first.kind === "redirect" ? first.customerId : null;
    fx.fake.requests.length = 0;
    const result = await fx.provider.checkout({ ...newCustomer, customerId }, "scale", urls);
    expect(result).toEqual({ kind: "redirect", url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_\w+$/), customerId });
    expect(calls()).toEqual([
      [
        "POST",
        "/v1/checkout/sessions",
        {
          mode: "subscription",
          customer: customerId,
          line_items: [{ price: "price_scale", quantity: "1" }],
          client_reference_id: orgId,
          metadata: { org_id: orgId },
          subscription_data: { metadata: { org_id: orgId } },
          success_url: urls.successUrl,
          cancel_url: urls.cancelUrl,
        },
      ],
    ]);
    expect(fx.fake.customers.size).toBe(1);
  });

  test("a stored customer deleted in Stripe is replaced by a new one", async () => {
    const result = await fx.provider.checkout({ ...newCustomer, customerId: "cus_deletedInDashboard" }, "starter", urls);
    const [customer] = [...fx.fake.customers.values()];
    expect(result).toEqual({ kind: "redirect", url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\//), customerId: customer!.id });
    expect(fx.fake.requests.map((request) => [request.path, request.params.customer ?? null])).toEqual([
      ["/v1/checkout/sessions", "cus_deletedInDashboard"],
      ["/v1/customers", null],
      ["/v1/checkout/sessions", customer!.id],
    ]);
  });

  test("a subscription that ended or no longer exists starts a new checkout", async () => {
    const customer = await subscribed();
    fx.fake.cancelSubscription(customer.subscriptionId);
    const afterCancel = await fx.provider.checkout(customer, "growth", urls);
    expect(afterCancel).toEqual({ kind: "redirect", url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//), customerId: customer.customerId });
    fx.fake.requests.length = 0;
    const unknown = await fx.provider.checkout({ ...customer, subscriptionId: "sub_neverExisted" }, "growth", urls);
    expect(unknown).toEqual({ kind: "redirect", url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//), customerId: customer.customerId });
    expect(fx.fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/subscriptions/sub_neverExisted", "POST /v1/checkout/sessions"]);
  });

  test("a live subscription changes price in place, prorated and invoiced at once", async () => {
    const customer = await subscribed();
    const item = (fx.fake.subscriptions.get(customer.subscriptionId)!.items as { data: { id: string }[] }).data[0]!;
    fx.clock.seconds = novemberFirst + 10 * daySeconds;
    const result = await fx.provider.checkout(customer, "growth", urls);
    // 20 of 30 days left: -2900 × 2/3 = -1933 for starter, +9900 × 2/3 = 6600 for growth.
    expect(result).toEqual({ kind: "plan_changed", plan: "growth", proration: { amount_minor: 4667, currency: "USD" } });
    const changes = { items: [{ id: item.id, price: "price_growth" }], proration_behavior: "always_invoice", proration_date: String(fx.clock.seconds) };
    expect(calls()).toEqual([
      ["GET", `/v1/subscriptions/${customer.subscriptionId}`, {}],
      ["POST", "/v1/invoices/create_preview", { customer: customer.customerId, subscription: customer.subscriptionId, subscription_details: changes }],
      ["POST", `/v1/subscriptions/${customer.subscriptionId}`, changes],
    ]);
    const subscription = fx.fake.subscriptions.get(customer.subscriptionId)!;
    expect((subscription.items as { data: { id: string; price: { id: string } }[] }).data.map((entry) => [entry.id, entry.price.id])).toEqual([[item.id, "price_growth"]]);
    // What checkout answered is what Stripe invoiced.
    expect(fx.fake.invoices.map((invoice) => [invoice.total, invoice.currency, invoice.status])).toEqual([[4667, "usd", "paid"]]);
  });

  test("moving down answers the credit as a negative proration", async () => {
    const customer = await subscribed();
    fx.clock.seconds = novemberFirst + 10 * daySeconds;
    await fx.provider.checkout(customer, "scale", urls);
    fx.clock.seconds = novemberFirst + 25 * daySeconds;
    const result = await fx.provider.checkout(customer, "starter", urls);
    // 5 of 30 days left: -29900 / 6 = -4983, +2900 / 6 = 483.
    expect(result).toEqual({ kind: "plan_changed", plan: "starter", proration: { amount_minor: -4500, currency: "USD" } });
  });

  test("the plan already held: nothing changes, proration 0", async () => {
    const customer = await subscribed();
    const result = await fx.provider.checkout(customer, "starter", urls);
    expect(result).toEqual({ kind: "plan_changed", plan: "starter", proration: { amount_minor: 0, currency: "USD" } });
    expect(fx.fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([`GET /v1/subscriptions/${customer.subscriptionId}`]);
  });

  test("a live subscription with several items, none on a plan's price: refused, nothing changed", async () => {
    const customer = await subscribed();
    const subscription = fx.fake.subscriptions.get(customer.subscriptionId)!;
    const items = (subscription.items as { data: { id: string; price: { id: string } }[] }).data;
    items[0]!.price.id = "price_legacy";
    items.push({ ...structuredClone(items[0]!), id: "si_second" });
    const error = await failure(fx.provider.checkout(customer, "growth", urls));
    expect(errorFields(error)).toEqual({
      status: 503,
      code: "unavailable",
      failure: "rejected",
      message: `subscription ${customer.subscriptionId} has 2 items and none on a plan's price; change it in the Stripe dashboard`,
      headers: {},
      customerId: null,
    });
    expect(fx.fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([`GET /v1/subscriptions/${customer.subscriptionId}`]);
  });

  test("past_due and trialing subscriptions are live: changed in place", async () => {
    const customer = await subscribed();
    for (const status of ["past_due", "trialing"]) {
      fx.fake.updateSubscription(customer.subscriptionId, { status });
      const result = await fx.provider.checkout(customer, status === "past_due" ? "growth" : "scale", urls);
      expect(result.kind).toBe("plan_changed");
    }
  });
});

describe("portal", () => {
  test("a portal session for the customer, returning to the console", async () => {
    const first = await fx.provider.checkout(newCustomer, "starter", urls);
    const customerId = first.kind === "redirect" ? first.customerId! : "";
    fx.fake.requests.length = 0;
    const result = await fx.provider.portal(customerId, "https://console.acme.test/billing");
    const [session] = fx.fake.portalSessions;
    expect(result).toEqual({ url: session!.url as string });
    expect(session).toEqual({
      id: session!.id,
      object: "billing_portal.session",
      configuration: "bpc_fakedefault",
      created: novemberFirst,
      customer: customerId,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: "https://console.acme.test/billing",
      url: expect.stringMatching(/^https:\/\/billing\.stripe\.com\/p\/session\/test_[0-9a-f]{32}$/),
    });
    expect(calls()).toEqual([["POST", "/v1/billing_portal/sessions", { customer: customerId, return_url: "https://console.acme.test/billing" }]]);
  });

  test("an unknown customer: 503 quoting Stripe's refusal", async () => {
    const error = await failure(fx.provider.portal("cus_unknown", "https://console.acme.test/billing"));
    expect(errorFields(error)).toEqual({
      status: 503,
      code: "unavailable",
      failure: "rejected",
      message: "payment provider refused the request: No such customer: 'cus_unknown'",
      headers: {},
      customerId: null,
    });
    expect(error.providerRequestId).toMatch(/^req_\w+$/);
  });
});

describe("Stripe's failures", () => {
  test("5xx: transient, Retry-After", async () => {
    fx.fake.failNext(500, { type: "api_error", message: "An unknown error occurred" });
    const error = await failure(fx.provider.portal("cus_x", "https://console.acme.test/billing"));
    expect(errorFields(error)).toEqual({
      status: 503,
      code: "unavailable",
      failure: "failed",
      message: "payment provider failed (status 500); try again shortly",
      headers: { "Retry-After": "30" },
      customerId: null,
    });
  });

  test("429: throttled, Retry-After", async () => {
    fx.fake.failNext(429, { type: "invalid_request_error", code: "rate_limit", message: "Too many requests hit the API too quickly." });
    const error = await failure(fx.provider.checkout(newCustomer, "starter", urls));
    expect(errorFields(error)).toEqual({
      status: 503,
      code: "unavailable",
      failure: "rate_limited",
      message: "payment provider is throttling requests; try again shortly",
      headers: { "Retry-After": "30" },
      customerId: null,
    });
  });

  test("a refused key: the message names neither key nor Stripe's masked form of it", async () => {
    const provider = fx.providerWith({ secretKey: "sk_test_revokedKey0000000000" });
    const error = await failure(provider.checkout(newCustomer, "starter", urls));
    expect(errorFields(error)).toEqual({
      status: 503,
      code: "unavailable",
      failure: "credentials",
      message: "payment provider refused this service's credentials",
      headers: {},
      customerId: null,
    });
    expect(fx.fake.customers.size).toBe(0);
  });

  test("a key-like string in Stripe's message is redacted", async () => {
    fx.fake.failNext(400, { type: "invalid_request_error", message: `The key ${stripeTestKey} and whsec_abc123 cannot be used here.` });
    const error = await failure(fx.provider.portal("cus_x", "https://console.acme.test/billing"));
    expect(error.message).toBe("payment provider refused the request: The key [redacted] and [redacted] cannot be used here.");
  });

  test("Stripe's message is quoted up to its bound", async () => {
    fx.fake.failNext(400, { type: "invalid_request_error", message: "x".repeat(1000) });
    const error = await failure(fx.provider.portal("cus_x", "https://console.acme.test/billing"));
    expect(error.message).toBe(`payment provider refused the request: ${"x".repeat(300)}`);
  });

  test("nothing listening: unreachable", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const apiBase = new URL(`http://127.0.0.1:${closed.port}`);
    await closed.stop(true);
    const error = await failure(fx.providerWith({ apiBase }).portal("cus_x", "https://console.acme.test/billing"));
    expect(errorFields(error)).toEqual({
      status: 503,
      code: "unavailable",
      failure: "unreachable",
      message: "payment provider unreachable; try again shortly",
      headers: { "Retry-After": "30" },
      customerId: null,
    });
  });

  test("no answer within the time-out: unreachable", async () => {
    let answer: () => void = () => undefined;
    const silent = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>((resolve) => (answer = () => resolve(new Response("{}")))) });
    try {
      const provider = fx.providerWith({ apiBase: new URL(`http://127.0.0.1:${silent.port}`), requestTimeoutMs: 100 });
      const error = await failure(provider.portal("cus_x", "https://console.acme.test/billing"));
      expect(error.failure).toBe("unreachable");
    } finally {
      answer();
      await silent.stop(true);
    }
  });

  test("the session fails after the customer was created: the error carries the customer to keep", async () => {
    fx.fake.failNext(502, { type: "api_error", message: "Bad gateway" }, { path: "/v1/checkout/sessions" });
    const error = await failure(fx.provider.checkout(newCustomer, "starter", urls));
    const [customer] = [...fx.fake.customers.values()];
    expect(errorFields(error)).toEqual({
      status: 503,
      code: "unavailable",
      failure: "failed",
      message: "payment provider failed (status 502); try again shortly",
      headers: { "Retry-After": "30" },
      customerId: customer!.id,
    });
    const again = await fx.provider.checkout({ ...newCustomer, customerId: error.customerId }, "starter", urls);
    expect(again).toEqual({ kind: "redirect", url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//), customerId: customer!.id });
    expect(fx.fake.customers.size).toBe(1);
  });

  test("one retry after a 503, with the same idempotency key", async () => {
    const provider = fx.providerWith({ maxNetworkRetries: 1 });
    fx.fake.failNext(503, { type: "api_error", message: "Service unavailable" });
    const result = await provider.checkout(newCustomer, "starter", urls);
    expect(result.kind).toBe("redirect");
    const [first, retry, session] = fx.fake.requests;
    expect([first!.path, retry!.path, session!.path]).toEqual(["/v1/customers", "/v1/customers", "/v1/checkout/sessions"]);
    expect(retry!.idempotencyKey).toBe(first!.idempotencyKey);
    expect(fx.fake.customers.size).toBe(1);
  });
});
