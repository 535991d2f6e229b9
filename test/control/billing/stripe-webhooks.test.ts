// StripePaymentProvider.subscriptionChange: Stripe-Signature verification (and its tolerance at
// the edge), and what each event Stripe sends means for the organisation's subscription.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import Stripe from "stripe";
import { PaymentWebhookSignatureError, type SubscriptionChange } from "../../../server/control/billing/payment-provider.ts";
import { PaymentProviderError } from "../../../server/control/billing/payment-provider-error.ts";
import { signatureToleranceSeconds } from "../../../server/control/billing/stripe-provider.ts";
import type { StripeObject } from "../../helpers/fake-stripe-api.ts";
import { daySeconds, newCustomer, novemberFirst, orgId, stripeFixture, stripeTestKey, urls, type StripeFixture } from "../../helpers/stripe-provider-fixture.ts";

let fx: StripeFixture;
beforeEach(() => {
  fx = stripeFixture();
});
afterEach(async () => {
  await fx.fake.stop();
});

async function change(event: StripeObject, options: { timestamp?: number } = {}): Promise<SubscriptionChange | null> {
  const delivery = await fx.fake.deliver(event, options);
  return fx.provider.subscriptionChange(delivery.body, delivery.headers);
}

async function refused(body: string, headers: Headers): Promise<string> {
  const error = await fx.provider.subscriptionChange(body, headers).then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PaymentWebhookSignatureError);
  return (error as Error).message;
}

/** Checkout on `plan`, paid: the subscription and the events Stripe sent meanwhile. */
async function paidCheckout(plan: "starter" | "growth" = "starter") {
  const result = await fx.provider.checkout(newCustomer, plan, urls);
  if (result.kind !== "redirect") throw new Error("expected a redirect");
  const subscription = fx.fake.completeCheckout(result.url.split("/").at(-1)!);
  return { customerId: result.customerId!, subscription, events: fx.fake.takeEvents() };
}

const november = { currentPeriodStart: "2026-11-01T00:00:00.000Z", currentPeriodEnd: "2026-12-01T00:00:00.000Z" };

describe("events", () => {
  test("a paid checkout: customer.created changes nothing; the subscription's creation and the completed session name the organisation's plan", async () => {
    const { customerId, subscription, events } = await paidCheckout();
    expect(events.map((event) => event.type)).toEqual(["customer.created", "customer.subscription.created", "checkout.session.completed"]);
    const expected: SubscriptionChange = { orgId, customerId, subscriptionId: subscription.id, plan: "starter", status: "active", ...november };
    expect(await change(events[0]!)).toBeNull();
    expect(await change(events[1]!)).toEqual(expected);
    expect(await change(events[2]!)).toEqual(expected);
  });

  test("a plan change: invoice.paid changes nothing; customer.subscription.updated names the new plan", async () => {
    const { customerId, subscription } = await paidCheckout();
    fx.clock.seconds = novemberFirst + 10 * daySeconds;
    await fx.provider.checkout({ ...newCustomer, customerId, subscriptionId: subscription.id }, "scale", urls);
    const events = fx.fake.takeEvents();
    expect(events.map((event) => event.type)).toEqual(["invoice.paid", "customer.subscription.updated"]);
    expect(await change(events[0]!)).toBeNull();
    expect(await change(events[1]!)).toEqual({ orgId, customerId, subscriptionId: subscription.id, plan: "scale", status: "active", ...november });
  });

  test("past_due, then deleted: the status follows, the plan stays", async () => {
    const { customerId, subscription } = await paidCheckout("growth");
    fx.fake.updateSubscription(subscription.id, { status: "past_due" });
    const [pastDue] = fx.fake.takeEvents();
    expect(await change(pastDue!)).toEqual({ orgId, customerId, subscriptionId: subscription.id, plan: "growth", status: "past_due", ...november });
    fx.fake.cancelSubscription(subscription.id);
    const [deleted] = fx.fake.takeEvents();
    expect(deleted!.type).toBe("customer.subscription.deleted");
    expect(await change(deleted!)).toEqual({ orgId, customerId, subscriptionId: subscription.id, plan: "growth", status: "canceled", ...november });
  });

  test("a price that is none of the plans' (set in the dashboard): plan null", async () => {
    const { customerId, subscription } = await paidCheckout();
    const dashboard = new Stripe(stripeTestKey, { host: fx.fake.url.hostname, port: fx.fake.url.port, protocol: "http", maxNetworkRetries: 0 });
    const item = (subscription.items as { data: { id: string }[] }).data[0]!;
    await dashboard.subscriptions.update(subscription.id, { items: [{ id: item.id, price: "price_legacy" }], proration_behavior: "none" });
    const [updated] = fx.fake.takeEvents();
    expect(await change(updated!)).toEqual({ orgId, customerId, subscriptionId: subscription.id, plan: null, status: "active", ...november });
  });

  test("several items, none on a plan's price: plan null, the status still counts", async () => {
    const { customerId, subscription } = await paidCheckout();
    const copy: StripeObject = { ...structuredClone(subscription), id: "sub_twoItemsGone", status: "canceled" };
    const items = (copy.items as { data: { id: string; price: { id: string } }[] }).data;
    items[0]!.price.id = "price_legacy";
    items.push({ ...structuredClone(items[0]!), id: "si_second" });
    expect(await change(fx.fake.event("customer.subscription.deleted", copy))).toEqual({
      orgId,
      customerId,
      subscriptionId: "sub_twoItemsGone",
      plan: null,
      status: "canceled",
      ...november,
    });
  });

  test("events arrive out of order: a late one answers the subscription as it is now", async () => {
    const { subscription, events } = await paidCheckout();
    fx.fake.cancelSubscription(subscription.id);
    const created = events.find((event) => event.type === "customer.subscription.created")!;
    expect((created.data as { object: { status: string } }).object.status).toBe("active");
    expect((await change(created))?.status).toBe("canceled");
  });

  test("a subscription Stripe no longer has: the event's own copy is used", async () => {
    const { customerId, subscription } = await paidCheckout();
    const gone = { ...structuredClone(subscription), id: "sub_goneFromStripe" };
    expect(await change(fx.fake.event("customer.subscription.updated", gone))).toEqual({
      orgId,
      customerId,
      subscriptionId: "sub_goneFromStripe",
      plan: "starter",
      status: "active",
      ...november,
    });
  });

  test("a subscription this service did not start (no organisation, or a hostile one): nothing changes", async () => {
    const { subscription } = await paidCheckout();
    for (const metadata of <Record<string, string>[]>[{}, { org_id: "<script>alert(1)</script>' OR 1=1 --" }, { org_id: `${orgId}\n` }]) {
      fx.fake.updateSubscription(subscription.id, { metadata });
      const [updated] = fx.fake.takeEvents();
      expect(await change(updated!)).toBeNull();
    }
  });

  test("a completed session names the organisation when its subscription does not", async () => {
    const { customerId, subscription, events } = await paidCheckout();
    fx.fake.updateSubscription(subscription.id, { metadata: {} });
    const completed = events.find((event) => event.type === "checkout.session.completed")!;
    expect(await change(completed)).toEqual({ orgId, customerId, subscriptionId: subscription.id, plan: "starter", status: "active", ...november });
  });

  test("a completed payment-mode session, and event types not handled: null", async () => {
    const { events } = await paidCheckout();
    const session = (events.find((event) => event.type === "checkout.session.completed")!.data as { object: StripeObject }).object;
    expect(await change(fx.fake.event("checkout.session.completed", { ...session, mode: "payment", subscription: null }))).toBeNull();
    expect(await change(fx.fake.event("charge.refunded", { id: "ch_1", object: "charge" }))).toBeNull();
  });

  test("Stripe unreachable while reading the subscription: 503, so Stripe delivers again later", async () => {
    const { events } = await paidCheckout();
    fx.fake.failNext(503, { type: "api_error", message: "Service unavailable" });
    const delivery = await fx.fake.deliver(events[1]!);
    const error = await fx.provider.subscriptionChange(delivery.body, delivery.headers).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaymentProviderError);
    expect((error as PaymentProviderError).failure).toBe("failed");
  });
});

describe("signatures", () => {
  const event = () => fx.fake.event("customer.created", { id: "cus_1", object: "customer" });

  test("missing header", async () => {
    const delivery = await fx.fake.deliver(event());
    expect(await refused(delivery.body, new Headers({ "content-type": "application/json" }))).toBe("missing Stripe-Signature header");
  });

  test("signed with another secret", async () => {
    const delivery = await fx.fake.deliver(event(), { secret: "whsec_someoneElse" });
    expect(await refused(delivery.body, delivery.headers)).toBe("Stripe-Signature does not verify: No signatures found matching the expected signature for payload.");
  });

  test("a body changed after signing", async () => {
    const delivery = await fx.fake.deliver(event());
    const tampered = delivery.body.replace('"cus_1"', '"cus_2"');
    expect(tampered).not.toBe(delivery.body);
    expect(await refused(tampered, delivery.headers)).toBe("Stripe-Signature does not verify: No signatures found matching the expected signature for payload.");
  });

  test("a header that is not Stripe's format", async () => {
    const delivery = await fx.fake.deliver(event());
    expect(await refused(delivery.body, new Headers({ "stripe-signature": "sha256=abc" }))).toBe(
      "Stripe-Signature does not verify: Unable to extract timestamp and signatures from header",
    );
  });

  test(`signed ${signatureToleranceSeconds} s ago is accepted, one second more is not`, async () => {
    expect(await change(event(), { timestamp: fx.clock.seconds - signatureToleranceSeconds })).toBeNull();
    const delivery = await fx.fake.deliver(event(), { timestamp: fx.clock.seconds - signatureToleranceSeconds - 1 });
    expect(await refused(delivery.body, delivery.headers)).toBe("Stripe-Signature does not verify: Timestamp outside the tolerance zone");
  });

  test("signed, but not JSON", async () => {
    const delivery = await fx.fake.deliver(event(), { body: "<html>not an event</html>" });
    expect(await refused(delivery.body, delivery.headers)).toBe("webhook body is not a JSON event");
  });
});
