// Billing with a payment provider (a fake behind the PaymentProvider interface: Stripe's API
// cannot be reached here; the Stripe implementation is tested at merge), over real HTTP: the
// default starter plan, the spend cap at its edges (minimum = plan price + overage billed,
// maximum spendCapMinorMax) and its audit rows, checkout (redirect, then an in-place plan
// change), the portal, and the provider webhook (signature, provider name, unknown orgs).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { call, isoPattern, type Reply } from "../../helpers/client.ts";
import { auditLog } from "../../../server/control/db/schema.ts";
import { spendCapMinorMax } from "../../../server/control/billing/plans.ts";
import { paymentWebhookBodyBytesMax } from "../../../server/control/routes/billing.ts";
import type { SubscriptionChange } from "../../../server/control/billing/payment-provider.ts";
import { FakePayments, fakeSignature, fakeSignatureHeader, subscriptionWebhook } from "./fake-payments.ts";

let service: TestService;
let payments: FakePayments;
let owner: SignedUpUser;
let admin: SignedUpUser;

beforeAll(async () => {
  service = await startTestService();
  payments = new FakePayments();
  service.ctx.payments = payments;
  owner = await signUp(service, "Olivia Owner");
  admin = await addMember(service, owner, "admin");
});
afterAll(async () => {
  await service.close();
});

const expectError = (reply: Reply, status: number, code: string, message: unknown = expect.any(String)) =>
  expect({ status: reply.status, body: reply.body }).toEqual({ status, body: { error: { code, message } } });

let orgCounter = 0;
async function newOrg(): Promise<string> {
  const reply = await owner.client.post("/app/orgs", { name: `Billing ${++orgCounter}` });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

const webhook = (body: string, headers: Record<string, string> = { [fakeSignatureHeader]: fakeSignature }, provider = "fake") =>
  call(service.url, "POST", `/billing/webhooks/${provider}`, { rawBody: body, headers: { "content-type": "application/json", ...headers } });

const subscription = (orgId: string, overrides: Partial<SubscriptionChange> = {}): SubscriptionChange => ({
  orgId,
  customerId: `cus_${orgId.slice(0, 8)}`,
  subscriptionId: `sub_${orgId.slice(0, 8)}`,
  plan: "growth",
  status: "active",
  currentPeriodStart: "2026-11-10T00:00:00.000Z",
  currentPeriodEnd: "2099-12-10T00:00:00.000Z",
  ...overrides,
});

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
  payment_provider: { configured: true, name: "fake", has_customer: false },
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

describe("the provider webhook", () => {
  test("a bad signature is 400, another provider's path 404, and neither changes anything", async () => {
    const orgId = await newOrg();
    expectError(await webhook(subscriptionWebhook(subscription(orgId)), { [fakeSignatureHeader]: "forged" }), 400, "validation",
      "the webhook signature did not verify: the fake signature header is missing or wrong");
    expectError(await webhook(subscriptionWebhook(subscription(orgId)), undefined, "stripe"), 404, "not_found", "payment provider not found");
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.plan.name).toBe("starter");
  });

  test("a body of paymentWebhookBodyBytesMax bytes is read; one byte more is 413", async () => {
    const padded = (bytes: number) => {
      const head = JSON.stringify({ type: "invoice.paid", pad: "" });
      return `${head.slice(0, -2)}${"a".repeat(bytes - head.length)}"}`;
    };
    expect(padded(paymentWebhookBodyBytesMax).length).toBe(paymentWebhookBodyBytesMax);
    const most = await webhook(padded(paymentWebhookBodyBytesMax));
    expect({ status: most.status, body: most.body }).toEqual({ status: 200, body: { received: true, applied: false } });
    expectError(await webhook(padded(paymentWebhookBodyBytesMax + 1)), 413, "payload_too_large", `request body exceeds ${paymentWebhookBodyBytesMax} bytes`);
  });

  test("events that change no subscription, and unknown organisations, are acknowledged without effect", async () => {
    const other = await webhook(JSON.stringify({ type: "invoice.paid" }));
    expect({ status: other.status, body: other.body }).toEqual({ status: 200, body: { received: true, applied: false } });
    const unknown = await webhook(subscriptionWebhook(subscription(crypto.randomUUID())));
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 200, body: { received: true, applied: false } });
  });

  test("a subscription change sets the plan and its period (audited); a cancellation falls back to the default plan", async () => {
    const orgId = await newOrg();
    const change = subscription(orgId);
    const applied = await webhook(subscriptionWebhook(change));
    expect({ status: applied.status, body: applied.body }).toEqual({ status: 200, body: { received: true, applied: true } });
    const overview = (await owner.client.get(`/app/orgs/${orgId}/billing`)).body;
    expect({ plan: overview.plan, subscription: overview.subscription, period: overview.period, invoice: overview.invoice, payment_provider: overview.payment_provider }).toEqual({
      plan: { name: "growth", price_minor: 9900, events: { included: 5_000_000, overage_per_1000_minor: 4 }, replay_recordings: { included: 25_000, overage_per_1000_minor: 400 } },
      subscription: { status: "active" },
      period: { start: change.currentPeriodStart, end: change.currentPeriodEnd, source: "subscription" },
      invoice: { current_minor: 9900, projected_minor: 9900 },
      payment_provider: { configured: true, name: "fake", has_customer: true },
    });
    await webhook(subscriptionWebhook({ ...change, status: "canceled" }));
    const cancelled = (await owner.client.get(`/app/orgs/${orgId}/billing`)).body;
    expect({ plan: cancelled.plan.name, subscription: cancelled.subscription, period: cancelled.period }).toEqual({ plan: "starter", subscription: null, period: calendarMonth() });
    expect(auditRows(orgId, "billing.subscription")).toEqual([
      { actorType: "anonymous", actorId: null, before: null, after: { plan: "growth", subscription_status: "active", current_period_end: change.currentPeriodEnd } },
      {
        actorType: "anonymous", actorId: null,
        before: { plan: "growth", subscription_status: "active", current_period_end: change.currentPeriodEnd },
        after: { plan: "growth", subscription_status: "canceled", current_period_end: change.currentPeriodEnd },
      },
    ]);
  });
});

describe("a plan change above the cap", () => {
  test("raises the cap to the new plan's price in the same audited write; a cap already above it stays", async () => {
    const orgId = await newOrg();
    expect((await owner.client.patch(`/app/orgs/${orgId}/billing/cap`, { spend_cap_minor: 2900 })).status).toBe(200);
    await webhook(subscriptionWebhook(subscription(orgId, { plan: "growth" })));
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.spend_cap_minor).toBe(9900);
    expect(auditRows(orgId, "billing.subscription").map((row) => row.after)).toEqual([
      { plan: "growth", subscription_status: "active", current_period_end: "2099-12-10T00:00:00.000Z", spend_cap_minor: 9900 },
    ]);

    expect((await owner.client.patch(`/app/orgs/${orgId}/billing/cap`, { spend_cap_minor: 60_000 })).status).toBe(200);
    const changed = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "scale" });
    expect(changed.body.kind).toBe("plan_changed");
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.spend_cap_minor).toBe(60_000);
    await webhook(subscriptionWebhook(subscription(orgId, { plan: "growth" })));
    const downgraded = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "scale" });
    expect(downgraded.status).toBe(200);
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.spend_cap_minor).toBe(60_000);

    expect((await owner.client.patch(`/app/orgs/${orgId}/billing/cap`, { spend_cap_minor: 49_900 })).status).toBe(200);
    await webhook(subscriptionWebhook(subscription(orgId, { plan: "growth" })));
    expect((await owner.client.patch(`/app/orgs/${orgId}/billing/cap`, { spend_cap_minor: 9_900 })).status).toBe(200);
    const upgraded = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "scale" });
    expect(upgraded.status).toBe(200);
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.spend_cap_minor).toBe(49_900);
    expect(auditRows(orgId, "billing.plan_change").map((row) => [row.before, row.after])).toEqual([
      [{ plan: "growth" }, { plan: "scale", proration: { amount_minor: 1234, currency: "usd" } }],
      [{ plan: "growth" }, { plan: "scale", proration: { amount_minor: 1234, currency: "usd" } }],
      [{ plan: "growth", spend_cap_minor: 9_900 }, { plan: "scale", proration: { amount_minor: 1234, currency: "usd" }, spend_cap_minor: 49_900 }],
    ]);
  });
});

describe("checkout and portal", () => {
  test("portal before checkout is 409; checkout redirects and records the customer; then the portal opens", async () => {
    const orgId = await newOrg();
    expectError(await owner.client.post(`/app/orgs/${orgId}/billing/portal`), 409, "conflict", "the organisation is not a customer of the payment provider yet: start a checkout first");
    const checkout = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" });
    expect({ status: checkout.status, body: checkout.body }).toEqual({ status: 200, body: { kind: "redirect", url: `https://payments.example/checkout/${orgId}/growth` } });
    expect(payments.checkouts.at(-1)).toEqual({
      customer: { orgId, orgName: `Billing ${orgCounter}`, email: owner.email, customerId: null, subscriptionId: null },
      plan: "growth",
      urls: { successUrl: `${service.url}/orgs/${orgId}/billing?checkout=success`, cancelUrl: `${service.url}/orgs/${orgId}/billing?checkout=cancelled` },
    });
    const portal = await owner.client.post(`/app/orgs/${orgId}/billing/portal`);
    expect({ status: portal.status, body: portal.body }).toEqual({ status: 200, body: { url: `https://payments.example/portal/cus_${orgId.slice(0, 8)}` } });
    expect(payments.portals.at(-1)).toEqual({ customerId: `cus_${orgId.slice(0, 8)}`, returnUrl: `${service.url}/orgs/${orgId}/billing` });
    expect(auditRows(orgId, "billing.checkout")).toEqual([
      { actorType: "user", actorId: owner.userId, before: { customer_id: null }, after: { customer_id: `cus_${orgId.slice(0, 8)}`, plan: "growth" } },
    ]);
  });

  test("with a live subscription: the same plan is 409, another is changed in place with the provider's proration", async () => {
    const orgId = await newOrg();
    await webhook(subscriptionWebhook(subscription(orgId)));
    expectError(await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" }), 409, "conflict", "the organisation is already on the growth plan");
    const changed = await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "scale" });
    expect({ status: changed.status, body: changed.body }).toEqual({ status: 200, body: { kind: "plan_changed", plan: "scale", proration: { amount_minor: 1234, currency: "usd" } } });
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.plan.name).toBe("scale");
    expect(auditRows(orgId, "billing.plan_change")).toEqual([
      { actorType: "user", actorId: owner.userId, before: { plan: "growth" }, after: { plan: "scale", proration: { amount_minor: 1234, currency: "usd" } } },
    ]);
  });

  test("a provider that fails is 503 unavailable with its reason, and nothing is stored", async () => {
    const orgId = await newOrg();
    payments.failNext = { reason: "the card network is down" };
    expectError(await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" }), 503, "unavailable",
      "the payment provider did not complete the request: the card network is down");
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.payment_provider.has_customer).toBe(false);
    expect(auditRows(orgId, "billing.checkout")).toEqual([]);
  });

  test("a customer the provider created before failing is kept, and the next checkout reuses it", async () => {
    const orgId = await newOrg();
    payments.failNext = { reason: "the session could not be created", customerId: "cus_made_first" };
    expectError(await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" }), 503, "unavailable",
      "the payment provider did not complete the request: the session could not be created");
    expect((await owner.client.get(`/app/orgs/${orgId}/billing`)).body.payment_provider.has_customer).toBe(true);
    expect((await owner.client.post(`/app/orgs/${orgId}/billing/checkout`, { plan: "growth" })).status).toBe(200);
    expect(payments.checkouts.at(-1)!.customer.customerId).toBe("cus_made_first");
    expect(auditRows(orgId, "billing.checkout")).toEqual([
      { actorType: "user", actorId: owner.userId, before: { customer_id: null }, after: { customer_id: "cus_made_first", plan: "growth" } },
    ]);
  });

  test("admins lack billing.write for checkout and portal", async () => {
    expectError(await admin.client.post(`/app/orgs/${owner.orgId}/billing/checkout`, { plan: "growth" }), 403, "missing_scope");
    expectError(await admin.client.post(`/app/orgs/${owner.orgId}/billing/portal`), 403, "missing_scope");
  });
});
