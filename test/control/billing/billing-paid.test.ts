// Billing through the shipped StripePaymentProvider, configured by STRIPE_* at start and talking
// over HTTP to the fake Stripe API (Stripe's API cannot be reached here), over real HTTP: the
// default starter plan, the spend cap at its edges (minimum = plan price + overage billed,
// maximum spendCapMinorMax) and its audit rows, checkout (a Checkout Session, the customer
// paying, Stripe's signed webhooks, then an in-place prorated plan change), the portal,
// cancellation, Stripe failing, and the webhook (signature, provider name, unknown orgs).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { call, isoPattern, type Reply } from "../../helpers/client.ts";
import { auditLog } from "../../../server/control/db/schema.ts";
import { spendCapMinorMax } from "../../../server/control/billing/plans.ts";
import { paymentWebhookBodyBytesMax } from "../../../server/control/routes/billing.ts";
import { stripeNetworkRetries } from "../../../server/control/billing/stripe-provider.ts";
import { providerRetryAfterSeconds } from "../../../server/control/billing/payment-provider-error.ts";
import type { FakeStripeApi, StripeObject } from "../../helpers/fake-stripe-api.ts";
import { subscriptionObject } from "../../helpers/fake-stripe-objects.ts";
import { deliverEvents, lastProration, planPrices, postWebhook, servicePrices, startStripeForService, stripeServiceEnv, subscribe } from "../../helpers/stripe-provider-fixture.ts";

let service: TestService;
let stripe: FakeStripeApi;
let owner: SignedUpUser;
let admin: SignedUpUser;

beforeAll(async () => {
  stripe = startStripeForService();
  service = await startTestService(stripeServiceEnv(stripe));
  owner = await signUp(service, "Olivia Owner");
  admin = await addMember(service, owner, "admin");
});
afterAll(async () => {
  await service.close();
  await stripe.stop();
});

const expectError = (reply: Reply, status: number, code: string, message: unknown = expect.any(String)) =>
  expect({ status: reply.status, body: reply.body }).toEqual({ status, body: { error: { code, message } } });

let orgCounter = 0;
async function newOrg(): Promise<string> {
  const reply = await owner.client.post("/app/orgs", { name: `Billing ${++orgCounter}` });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

/** Stripe's webhook body for an event of this type about this object, signed with the endpoint secret (or another). */
const signed = async (type: string, object: StripeObject, options: { secret?: string; body?: string } = {}) => stripe.deliver(stripe.event(type, object), options);

/** The billing period of a subscription as the fake keeps it (on its item), as the overview answers it. */
const periodOf = (subscription: StripeObject) => {
  const item = (subscription.items as { data: { current_period_start: number; current_period_end: number }[] }).data[0]!;
  return { start: new Date(item.current_period_start * 1000).toISOString(), end: new Date(item.current_period_end * 1000).toISOString(), source: "subscription" };
};

const sessionWithUrl = (url: string) => [...stripe.sessions.values()].find((state) => state.session.url === url)!.session;

function calendarMonth() {
  const now = new Date();
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    source: "calendar_month",
  };
}

const starterOverview = (orgId: string, cap: number | null) => ({
  org_id: orgId,
  currency: "usd",
  plan: { name: "starter", price_minor: 2900, events: { included: 1_000_000, overage_per_1000_minor: 5 }, replay_recordings: { included: 5_000, overage_per_1000_minor: 500 } },
  subscription: null,
  period: calendarMonth(),
  usage: { events: 0, events_received: 0, replay_recordings: 0, read_at: expect.stringMatching(isoPattern), unreachable_regions: [] },
  invoice: { current_minor: 2900, projected_minor: 2900 },
  spend_cap_minor: cap,
  spend_cap_min_minor: 2900,
  spend_cap_max_minor: spendCapMinorMax,
  ingest: { stage: "full", keep_ratio: 1 },
  payment_provider: { configured: true, name: "stripe", has_customer: false },
});

const auditRows = (orgId: string, action: string) =>
  service.ctx.db.select({ actorType: auditLog.actorType, actorId: auditLog.actorId, before: auditLog.before, after: auditLog.after })
    .from(auditLog).where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, action))).orderBy(asc(auditLog.id)).all();

describe("the default plan with a provider", () => {
  test("an organisation without a subscription is metered on starter over the calendar month", async () => {
    const orgId = await newOrg();
    const reply = await owner.client.get(`/app/orgs/${orgId}/billing`);
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 200, body: starterOverview(orgId, null) });
  });
});

describe("PATCH …/billing/cap", () => {
  test("at its edges: one below the plan price and one above the maximum are 400 naming the bound; the bounds themselves are accepted", async () => {
    const orgId = await newOrg();
    const path = `/app/orgs/${orgId}/billing/cap`;
    expectError(await owner.client.patch(path, { spend_cap_minor: 2899 }), 400, "validation",
      "spend_cap_minor must be at least 2900 (the plan price plus overage already billed this period, in usd minor units)");
    expectError(await owner.client.patch(path, { spend_cap_minor: spendCapMinorMax + 1 }), 400, "validation", `spend_cap_minor must be at most ${spendCapMinorMax}`);
    const first = await owner.client.patch(path, { spend_cap_minor: 2900 });
    expect({ status: first.status, body: first.body }).toEqual({ status: 200, body: { spend_cap_minor: 2900, previous_spend_cap_minor: 0 } });
    const second = await owner.client.patch(path, { spend_cap_minor: spendCapMinorMax });
    expect({ status: second.status, body: second.body }).toEqual({ status: 200, body: { spend_cap_minor: spendCapMinorMax, previous_spend_cap_minor: 2900 } });
    const overview = await owner.client.get(`/app/orgs/${orgId}/billing`);
    expect(overview.body).toEqual(starterOverview(orgId, spendCapMinorMax));
    expect(auditRows(orgId, "billing.cap")).toEqual([
      { actorType: "user", actorId: owner.userId, before: { spend_cap_minor: null }, after: { spend_cap_minor: 2900 } },
      { actorType: "user", actorId: owner.userId, before: { spend_cap_minor: 2900 }, after: { spend_cap_minor: spendCapMinorMax } },
    ]);
  });

  test("an organisation without a cap is left alone: its projects' ratios are never written by billing", async () => {
    const { project } = await createProject(owner, "Operator sampled");
    service.nodes.get("eu")!.setKeepRatio(project.id, 0.5);
    expect((await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body.spend_cap_minor).toBe(null);
    await service.ctx.billing.pass(service.ctx);
    expect(service.nodes.get("eu")!.keepRatio(project.id)).toBe(0.5);
  });

  test("admins lack billing.write: 403 and nothing changes", async () => {
    expectError(await admin.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 5000 }), 403, "missing_scope");
    expect(auditRows(owner.orgId, "billing.cap")).toEqual([]);
  });
});

describe("the Stripe webhook", () => {
  test("a bad signature is 400, another provider's path 404, and neither changes anything", async () => {
    const orgId = await newOrg();
    const checkout = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" });
    stripe.completeCheckout(sessionWithUrl(checkout.body.url).id);
    const events = stripe.takeEvents();
    expect(events.map((event) => event.type)).toEqual(["customer.created", "customer.subscription.created", "checkout.session.completed"]);
    for (const event of events) {
      expectError(await postWebhook(service.url, await stripe.deliver(event, { secret: "whsec_notTheEndpointSecret" })), 400, "validation",
        "the webhook signature did not verify: Stripe-Signature does not verify: No signatures found matching the expected signature for payload.");
    }
    const valid = await stripe.deliver(events[1]!);
    const otherProvider = await call(service.url, "POST", "/billing/webhooks/fake", { rawBody: valid.body, headers: Object.fromEntries(valid.headers) });
    expectError(otherProvider, 404, "not_found", "payment provider not found");
    const overview = (await owner.client.get(`/app/orgs/${orgId}/billing`)).body;
    expect({ plan: overview.plan.name, subscription: overview.subscription, period: overview.period }).toEqual({ plan: "starter", subscription: null, period: calendarMonth() });
    expect(auditRows(orgId, "billing.subscription")).toEqual([]);
  });

  test("a body of paymentWebhookBodyBytesMax bytes is read; one byte more is 413", async () => {
    const padded = (bytes: number) => {
      const head = JSON.stringify({ id: "evt_padded", object: "event", type: "invoice.paid", pad: "" });
      return `${head.slice(0, -2)}${"a".repeat(bytes - head.length)}"}`;
    };
    expect(padded(paymentWebhookBodyBytesMax).length).toBe(paymentWebhookBodyBytesMax);
    const event = stripe.event("invoice.paid", { id: "in_padded", object: "invoice" });
    const most = await postWebhook(service.url, await stripe.deliver(event, { body: padded(paymentWebhookBodyBytesMax) }));
    expect({ status: most.status, body: most.body }).toEqual({ status: 200, body: { received: true, applied: false } });
    expectError(await postWebhook(service.url, await stripe.deliver(event, { body: padded(paymentWebhookBodyBytesMax + 1) })), 413, "payload_too_large",
      `request body exceeds ${paymentWebhookBodyBytesMax} bytes`);
  });

  test("events that change no subscription, and unknown organisations, are acknowledged without effect", async () => {
    const other = await postWebhook(service.url, await signed("invoice.paid", { id: "in_elsewhere", object: "invoice" }));
    expect({ status: other.status, body: other.body }).toEqual({ status: 200, body: { received: true, applied: false } });
    // A subscription of an organisation this deployment does not have (another service on the same Stripe account).
    const foreign = subscriptionObject("cus_elsewhere", servicePrices[1]!, { org_id: crypto.randomUUID() }, Math.floor(Date.now() / 1000));
    const unknown = await postWebhook(service.url, await signed("customer.subscription.updated", foreign));
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 200, body: { received: true, applied: false } });
  });
});

describe("checkout, payment, plan change, portal and cancellation end to end", () => {
  test("checkout -> Checkout Session -> paid -> webhooks -> the plan and period from Stripe; a plan change prorated; the portal; past_due; a cancellation, and a late event that cannot undo it", async () => {
    const orgId = await newOrg();
    expectError(await owner.client.post(`/app/orgs/${orgId}/billing/portal`), 409, "conflict", "the organisation is not a customer of the payment provider yet: start a checkout first");

    const checkout = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" });
    const session = [...stripe.sessions.values()].at(-1)!.session;
    expect({ status: checkout.status, body: checkout.body }).toEqual({ status: 200, body: { kind: "redirect", url: session.url } });
    const customerId = session.customer as string;
    expect(stripe.customers.get(customerId)).toMatchObject({ email: owner.email, name: `Billing ${orgCounter}`, metadata: { org_id: orgId } });
    expect(session).toMatchObject({
      mode: "subscription",
      client_reference_id: orgId,
      metadata: { org_id: orgId },
      success_url: `${service.url}/orgs/${orgId}/billing?checkout=success`,
      cancel_url: `${service.url}/orgs/${orgId}/billing?checkout=cancelled`,
      amount_total: 9900,
      currency: "usd",
    });
    expect(auditRows(orgId, "billing.checkout")).toEqual([
      { actorType: "user", actorId: owner.userId, before: { customer_id: null }, after: { customer_id: customerId, plan: "growth" } },
    ]);
    // Not paid yet: still metered on starter, but a customer of Stripe.
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body).toEqual({ ...starterOverview(orgId, null), payment_provider: { configured: true, name: "stripe", has_customer: true } });

    const subscription = stripe.completeCheckout(session.id as string);
    expect(await deliverEvents(service.url, stripe)).toEqual([
      { type: "customer.created", status: 200, applied: false },
      { type: "customer.subscription.created", status: 200, applied: true },
      { type: "checkout.session.completed", status: 200, applied: true },
    ]);
    const overview = (await owner.client.get(`/app/orgs/${orgId}/billing`)).body;
    expect({ plan: overview.plan, subscription: overview.subscription, period: overview.period, invoice: overview.invoice, payment_provider: overview.payment_provider }).toEqual({
      plan: { name: "growth", price_minor: 9900, events: { included: 5_000_000, overage_per_1000_minor: 4 }, replay_recordings: { included: 25_000, overage_per_1000_minor: 400 } },
      subscription: { status: "active" },
      period: periodOf(subscription),
      invoice: { current_minor: 9900, projected_minor: 9900 },
      payment_provider: { configured: true, name: "stripe", has_customer: true },
    });
    const periodEnd = periodOf(subscription).end;
    const growthActive = { plan: "growth", subscription_status: "active", current_period_end: periodEnd };

    // The same plan again is 409 and asks Stripe nothing; another is changed in place, prorated by Stripe.
    const requestsBefore = stripe.requests.length;
    expectError(await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" }), 409, "conflict", "the organisation is already on the growth plan");
    expect(stripe.requests.length).toBe(requestsBefore);
    const changed = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "scale" });
    const proration = lastProration(stripe);
    expect(proration.amount_minor).toBeGreaterThan(0);
    expect({ status: changed.status, body: changed.body }).toEqual({ status: 200, body: { kind: "plan_changed", plan: "scale", proration } });
    expect(((stripe.subscriptions.get(subscription.id)!.items as { data: { price: { id: string } }[] }).data[0]!.price.id)).toBe(planPrices.scale);
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.plan.name).toBe("scale");
    expect(auditRows(orgId, "billing.plan_change")).toEqual([
      { actorType: "user", actorId: owner.userId, before: { plan: "growth" }, after: { plan: "scale", proration } },
    ]);
    expect(await deliverEvents(service.url, stripe)).toEqual([
      { type: "invoice.paid", status: 200, applied: false },
      { type: "customer.subscription.updated", status: 200, applied: true },
    ]);
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.plan.name).toBe("scale");
    const scaleActive = { ...growthActive, plan: "scale" };

    const portal = await owner.client.post(`/app/orgs/${orgId}/billing/portal`);
    const portalSession = stripe.portalSessions.at(-1)!;
    expect({ status: portal.status, body: portal.body }).toEqual({ status: 200, body: { url: portalSession.url } });
    expect({ customer: portalSession.customer, return_url: portalSession.return_url }).toEqual({ customer: customerId, return_url: `${service.url}/orgs/${orgId}/billing` });

    // A payment that failed (Stripe's dunning): past_due keeps the plan while Stripe retries.
    stripe.updateSubscription(subscription.id, { status: "past_due" });
    expect(await deliverEvents(service.url, stripe)).toEqual([{ type: "customer.subscription.updated", status: 200, applied: true }]);
    const pastDue = (await owner.client.get(`/app/orgs/${orgId}/billing`)).body;
    expect({ plan: pastDue.plan.name, subscription: pastDue.subscription, period: pastDue.period }).toEqual({ plan: "scale", subscription: { status: "past_due" }, period: periodOf(subscription) });
    const scalePastDue = { ...scaleActive, subscription_status: "past_due" };

    // Cancelled (in the portal, or by dunning): the organisation falls back to starter over the calendar month.
    stripe.cancelSubscription(subscription.id);
    expect(await deliverEvents(service.url, stripe)).toEqual([{ type: "customer.subscription.deleted", status: 200, applied: true }]);
    const cancelledOverview = { ...starterOverview(orgId, null), payment_provider: { configured: true, name: "stripe", has_customer: true } };
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body).toEqual(cancelledOverview);
    // Stripe does not deliver in order: the `created` event arriving late reads the subscription as it is now, still cancelled.
    const late = await postWebhook(service.url, await signed("customer.subscription.created", { ...subscription, status: "active" }));
    expect({ status: late.status, body: late.body }).toEqual({ status: 200, body: { received: true, applied: true } });
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body).toEqual(cancelledOverview);
    const scaleCanceled = { ...scaleActive, subscription_status: "canceled" };
    expect(auditRows(orgId, "billing.subscription")).toEqual([
      { actorType: "anonymous", actorId: null, before: { plan: "growth", subscription_status: null, current_period_end: null }, after: growthActive },
      { actorType: "anonymous", actorId: null, before: growthActive, after: growthActive },
      { actorType: "anonymous", actorId: null, before: scaleActive, after: scaleActive },
      { actorType: "anonymous", actorId: null, before: scaleActive, after: scalePastDue },
      { actorType: "anonymous", actorId: null, before: scalePastDue, after: scaleCanceled },
      { actorType: "anonymous", actorId: null, before: scaleCanceled, after: scaleCanceled },
    ]);
    // A new checkout after the cancellation is a new Checkout Session for the same customer.
    const again = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "starter" });
    const next = [...stripe.sessions.values()].at(-1)!.session;
    expect({ status: again.status, body: again.body, customer: next.customer }).toEqual({ status: 200, body: { kind: "redirect", url: next.url }, customer: customerId });
  });
});

describe("a plan change above the cap", () => {
  test("raises the cap to the new plan's price in the same audited write; a cap already above it stays", async () => {
    const orgId = await newOrg();
    expect((await owner.client.patch(`/app/orgs/${orgId}/billing/cap`, { spend_cap_minor: 2900 })).status).toBe(200);
    const subscription = await subscribe(service.url, stripe, owner, orgId, "growth");
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.spend_cap_minor).toBe(9900);
    const periodEnd = periodOf(subscription).end;
    expect(auditRows(orgId, "billing.subscription").map((row) => row.after)).toEqual([
      { plan: "growth", subscription_status: "active", current_period_end: periodEnd, spend_cap_minor: 9900 },
      { plan: "growth", subscription_status: "active", current_period_end: periodEnd },
    ]);
    const changeTo = async (plan: string) => {
      const reply = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan });
      expect({ status: reply.status, body: reply.body }).toEqual({ status: 200, body: { kind: "plan_changed", plan, proration: lastProration(stripe) } });
      expect((await deliverEvents(service.url, stripe)).map((answer) => answer.status)).toEqual([200, 200]);
      return lastProration(stripe);
    };

    expect((await owner.client.patch(`/app/orgs/${orgId}/billing/cap`, { spend_cap_minor: 60_000 })).status).toBe(200);
    const up1 = await changeTo("scale");
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.spend_cap_minor).toBe(60_000);
    const down = await changeTo("growth");
    const up2 = await changeTo("scale");
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.spend_cap_minor).toBe(60_000);

    expect((await owner.client.patch(`/app/orgs/${orgId}/billing/cap`, { spend_cap_minor: 49_900 })).status).toBe(200);
    const down2 = await changeTo("growth");
    expect((await owner.client.patch(`/app/orgs/${orgId}/billing/cap`, { spend_cap_minor: 9_900 })).status).toBe(200);
    const up3 = await changeTo("scale");
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.spend_cap_minor).toBe(49_900);
    expect(auditRows(orgId, "billing.plan_change").map((row) => [row.before, row.after])).toEqual([
      [{ plan: "growth" }, { plan: "scale", proration: up1 }],
      [{ plan: "scale" }, { plan: "growth", proration: down }],
      [{ plan: "growth" }, { plan: "scale", proration: up2 }],
      [{ plan: "scale" }, { plan: "growth", proration: down2 }],
      [{ plan: "growth", spend_cap_minor: 9_900 }, { plan: "scale", proration: up3, spend_cap_minor: 49_900 }],
    ]);
  });
});

describe("checkout and portal failures", () => {
  test("Stripe failing (500, through the client's retry) is 503 unavailable with the whole error body and Retry-After, and nothing is stored", async () => {
    const orgId = await newOrg();
    const customersBefore = stripe.customers.size;
    stripe.failNext(500, { type: "api_error", message: "An unknown error occurred" }, { times: stripeNetworkRetries + 1 });
    const reply = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" });
    expectError(reply, 503, "unavailable", "payment provider failed (status 500); try again shortly");
    expect(reply.headers.get("retry-after")).toBe(String(providerRetryAfterSeconds));
    expect(stripe.customers.size).toBe(customersBefore);
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.payment_provider.has_customer).toBe(false);
    expect(auditRows(orgId, "billing.checkout")).toEqual([]);
  });

  test("a customer Stripe created before the session failed is kept, and the next checkout reuses it", async () => {
    const orgId = await newOrg();
    stripe.failNext(500, { type: "api_error", message: "An unknown error occurred" }, { times: stripeNetworkRetries + 1, path: "/v1/checkout/sessions" });
    expectError(await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" }), 503, "unavailable", "payment provider failed (status 500); try again shortly");
    const created = [...stripe.customers.values()].filter((customer) => (customer.metadata as Record<string, string>).org_id === orgId);
    expect(created.length).toBe(1);
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.payment_provider.has_customer).toBe(true);
    const retried = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" });
    const session = [...stripe.sessions.values()].at(-1)!.session;
    expect({ status: retried.status, body: retried.body, customer: session.customer }).toEqual({ status: 200, body: { kind: "redirect", url: session.url }, customer: created[0]!.id });
    expect([...stripe.customers.values()].filter((customer) => (customer.metadata as Record<string, string>).org_id === orgId).length).toBe(1);
    expect(auditRows(orgId, "billing.checkout")).toEqual([
      { actorType: "user", actorId: owner.userId, before: { customer_id: null }, after: { customer_id: created[0]!.id, plan: "growth" } },
    ]);
  });

  test("Stripe failing the portal is 503 with the whole error body", async () => {
    const orgId = await newOrg();
    expect((await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" })).status).toBe(200);
    stripe.failNext(500, { type: "api_error", message: "An unknown error occurred" }, { times: stripeNetworkRetries + 1 });
    expectError(await owner.client.post(`/app/orgs/${orgId}/billing/portal`), 503, "unavailable", "payment provider failed (status 500); try again shortly");
  });

  test("admins lack billing.write for checkout and portal", async () => {
    const requestsBefore = stripe.requests.length;
    expectError(await admin.client.post(`/app/orgs/${owner.orgId}/billing/checkout`, { plan: "growth" }), 403, "missing_scope");
    expectError(await admin.client.post(`/app/orgs/${owner.orgId}/billing/portal`), 403, "missing_scope");
    expect(stripe.requests.length).toBe(requestsBefore);
  });
});
