// The fake Stripe API holds requests to what Stripe itself accepts, so a provider that passes
// against it sends what Stripe would parse: checked here with raw HTTP and the official client.
import { afterAll, describe, expect, test } from "bun:test";
import Stripe from "stripe";
import { startFakeStripeApi } from "../../helpers/fake-stripe-api.ts";
import { parseForm } from "../../helpers/fake-stripe-form.ts";
import { fakePrices, stripeTestKey, stripeTestWebhookSecret } from "../../helpers/stripe-provider-fixture.ts";

const fake = startFakeStripeApi({ secretKey: stripeTestKey, webhookSecret: stripeTestWebhookSecret, prices: fakePrices });
afterAll(() => fake.stop());

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, fake.url), {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${stripeTestKey}`, "content-type": "application/x-www-form-urlencoded", ...headers },
  });

describe("fake Stripe API", () => {
  test("nested form keys parse as Stripe parses them", () => {
    expect(parseForm("mode=subscription&line_items[0][price]=p1&line_items[1][price]=p2&line_items[1][quantity]=2&metadata%5Borg_id%5D=o&empty=")).toEqual({
      mode: "subscription",
      line_items: [{ price: "p1" }, { price: "p2", quantity: "2" }],
      metadata: { org_id: "o" },
      empty: "",
    });
  });

  test("no key, and a wrong key: 401 in Stripe's error shape", async () => {
    const none = await fetch(new URL("/v1/customers", fake.url), { method: "POST", body: "" });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      error: { type: "invalid_request_error", message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth." },
    });
    const wrong = await post("/v1/customers", "", { authorization: "Bearer sk_test_0123456789abcdef" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_************cdef" } });
  });

  test("an unknown parameter, a missing one, an unknown object: 400 and 404 naming the parameter", async () => {
    const unknown = await post("/v1/checkout/sessions", "mode=subscription&line_items[0][prise]=price_growth");
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      error: {
        type: "invalid_request_error",
        code: "parameter_unknown",
        param: "line_items[0][prise]",
        message: "Received unknown parameter: line_items[0][prise]",
        doc_url: "https://stripe.com/docs/error-codes/parameter-unknown",
      },
    });
    const noMode = await post("/v1/checkout/sessions", "line_items[0][price]=price_growth");
    expect(await noMode.json()).toEqual({
      error: {
        type: "invalid_request_error",
        code: "parameter_missing",
        param: "mode",
        message: "Missing required param: mode.",
        doc_url: "https://stripe.com/docs/error-codes/parameter-missing",
      },
    });
    const noPrice = await post("/v1/checkout/sessions", "mode=subscription&line_items[0][price]=price_nope");
    expect(noPrice.status).toBe(404);
    expect(await noPrice.json()).toEqual({
      error: {
        type: "invalid_request_error",
        code: "resource_missing",
        param: "line_items[0][price]",
        message: "No such price: 'price_nope'",
        doc_url: "https://stripe.com/docs/error-codes/resource-missing",
      },
    });
  });

  test("metadata held to Stripe's limits (values up to 500 characters)", async () => {
    const client = new Stripe(stripeTestKey, { host: "127.0.0.1", port: fake.url.port, protocol: "http", maxNetworkRetries: 0 });
    const atLimit = await client.customers.create({ metadata: { note: "v".repeat(500) } });
    expect(atLimit.metadata).toEqual({ note: "v".repeat(500) });
    const error = await client.customers.create({ metadata: { note: "v".repeat(501) } }).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect((error as Stripe.errors.StripeInvalidRequestError).param).toBe("metadata[note]");
  });

  test("an idempotency key replays the first answer; reused with other parameters, it is refused", async () => {
    const first = await post("/v1/customers", "email=a%40acme.test", { "idempotency-key": "key-1" });
    const again = await post("/v1/customers", "email=a%40acme.test", { "idempotency-key": "key-1" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    const other = await post("/v1/customers", "email=b%40acme.test", { "idempotency-key": "key-1" });
    expect(other.status).toBe(400);
    expect(await other.json()).toEqual({
      error: {
        type: "idempotency_error",
        message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'key-1' if you meant to execute a different request.",
      },
    });
  });

  test("an unknown route: 404 as Stripe answers it", async () => {
    const response = await post("/v1/charges", "amount=1");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        type: "invalid_request_error",
        message: "Unrecognized request URL (POST: /v1/charges). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.",
      },
    });
  });
});
