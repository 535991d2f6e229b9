// Billing's review fixes: the period of a live subscription whose renewal webhook is late, a
// change of a subscription other than the one on record, concurrent cap changes, a region whose
// usage cannot be read, and Checkout Sessions keyed so that a second click does not make a
// second one. Payments go through the shipped Stripe provider against the fake Stripe API.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { billingPeriod, type OrgBillingRow } from "../../../server/control/billing/billing-account.ts";
import { applySubscriptionChange } from "../../../server/control/billing/billing-writes.ts";
import { checkoutIdempotencyWindowMs } from "../../../server/control/billing/stripe-provider.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { call } from "../../helpers/client.ts";
import type { StripeObject } from "../../helpers/fake-stripe-api.ts";
import { stripeFixture, type StripeFixture } from "../../helpers/stripe-provider-fixture.ts";
import { nativeBody, nativeEvents, ok, postIngest } from "../../ingest/helpers.ts";

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
const secret = "internal-secret-for-billing-review-tests";

function row(changes: Partial<OrgBillingRow>): OrgBillingRow {
  return {
    orgId: "org", plan: "starter", customerId: "cus_1", subscriptionId: "sub_1", subscriptionStatus: "active",
    currentPeriodStart: "2026-11-15T10:00:00.000Z", currentPeriodEnd: "2026-12-15T10:00:00.000Z", spendCapMinor: null, updatedAt: "2026-11-15T10:00:00.000Z",
    ...changes,
  } as OrgBillingRow;
}
const at = (iso: string) => Date.parse(iso);
const period = (start: string, end: string, source: "subscription" | "calendar_month") => ({ startMs: at(start), endMs: at(end), source });

describe("billingPeriod", () => {
  test("inside the stored period: that period, to its last millisecond", () => {
    expect(billingPeriod(row({}), at("2026-11-15T10:00:00.000Z"))).toEqual(period("2026-11-15T10:00:00.000Z", "2026-12-15T10:00:00.000Z", "subscription"));
    expect(billingPeriod(row({}), at("2026-12-15T09:59:59.999Z"))).toEqual(period("2026-11-15T10:00:00.000Z", "2026-12-15T10:00:00.000Z", "subscription"));
  });

  test("past the stored period, renewal webhook not yet in: rolled forward by its length from its end, never the calendar month", () => {
    const next = period("2026-12-15T10:00:00.000Z", "2027-01-14T10:00:00.000Z", "subscription");
    expect(billingPeriod(row({}), at("2026-12-15T10:00:00.000Z"))).toEqual(next);
    expect(billingPeriod(row({}), at("2026-12-15T10:30:00.000Z"))).toEqual(next);
    expect(billingPeriod(row({}), at("2027-01-14T09:59:59.999Z"))).toEqual(next);
    expect(billingPeriod(row({}), at("2027-01-14T10:00:00.000Z"))).toEqual(period("2027-01-14T10:00:00.000Z", "2027-02-13T10:00:00.000Z", "subscription"));
    // past_due keeps the plan while the provider retries the payment: its period rolls too.
    expect(billingPeriod(row({ subscriptionStatus: "past_due" }), at("2026-12-15T10:30:00.000Z"))).toEqual(next);
  });

  test("no live subscription, no stored period, or a period not begun: the calendar month", () => {
    const december = period("2026-12-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z", "calendar_month");
    expect(billingPeriod(row({ subscriptionStatus: "canceled" }), at("2026-12-15T10:30:00.000Z"))).toEqual(december);
    expect(billingPeriod(row({ currentPeriodEnd: null }), at("2026-12-15T10:30:00.000Z"))).toEqual(december);
    expect(billingPeriod(null, at("2026-12-15T10:30:00.000Z"))).toEqual(december);
    expect(billingPeriod(row({}), at("2026-11-15T09:59:59.999Z"))).toEqual(period("2026-11-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z", "calendar_month"));
  });
});

describe("with the Stripe provider", () => {
  let service: TestService;
  let fx: StripeFixture;
  let owner: SignedUpUser;

  beforeEach(async () => {
    fx = stripeFixture();
    service = await startTestService();
    service.ctx.payments = fx.provider;
    owner = await signUp(service, "Billing owner");
  });
  afterEach(async () => {
    await service.close();
    await fx.fake.stop();
  });

  async function checkout(plan: string): Promise<string> {
    const reply = await owner.client.post(`/app/orgs/${owner.orgId}/billing/checkout`, { plan });
    expect([reply.status, reply.body.kind]).toEqual([200, "redirect"]);
    return reply.body.url.split("/").at(-1);
  }
  async function deliver(events: StripeObject[]): Promise<boolean[]> {
    const applied: boolean[] = [];
    for (const event of events) {
      const delivery = await fx.fake.deliver(event);
      const reply = await call(service.url, "POST", "/billing/webhooks/stripe", { rawBody: delivery.body, headers: Object.fromEntries(delivery.headers) });
      expect(reply.status).toBe(200);
      applied.push(reply.body.applied);
    }
    return applied;
  }
  const recorded = () => {
    const { subscriptionId, subscriptionStatus, plan } = service.ctx.db.$client
      .query("SELECT subscription_id AS subscriptionId, subscription_status AS subscriptionStatus, plan FROM org_billing WHERE org_id = ?")
      .get(owner.orgId) as { subscriptionId: string; subscriptionStatus: string; plan: string };
    return { subscriptionId, subscriptionStatus, plan };
  };

  test("a late, retried `deleted` of the old subscription after a re-subscribe is ignored; the recorded one's changes always apply", async () => {
    const first = fx.fake.completeCheckout(await checkout("starter"));
    await deliver(fx.fake.takeEvents());
    fx.fake.cancelSubscription(first.id as string);
    const deleted = fx.fake.takeEvents();
    expect(await deliver(deleted)).toEqual([true]);
    expect(recorded()).toEqual({ subscriptionId: first.id, subscriptionStatus: "canceled", plan: "starter" });
    // Re-subscribed in the same idempotency window: the completed session is not answered again.
    const second = fx.fake.completeCheckout(await checkout("starter"));
    expect(second.id).not.toBe(first.id);
    await deliver(fx.fake.takeEvents());
    expect(recorded()).toEqual({ subscriptionId: second.id, subscriptionStatus: "active", plan: "starter" });
    expect(await deliver(deleted)).toEqual([false]);
    expect(recorded()).toEqual({ subscriptionId: second.id, subscriptionStatus: "active", plan: "starter" });
    expect((await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body.subscription).toEqual({ status: "active" });
    fx.fake.updateSubscription(second.id as string, { status: "past_due" });
    expect(await deliver(fx.fake.takeEvents())).toEqual([true]);
    expect(recorded()).toEqual({ subscriptionId: second.id, subscriptionStatus: "past_due", plan: "starter" });
  });

  test("two checkout tabs: a live subscription replaces the recorded one, the other's cancellation is ignored", async () => {
    const starterSession = await checkout("starter");
    const growthSession = await checkout("growth");
    const a = fx.fake.completeCheckout(starterSession);
    const b = fx.fake.completeCheckout(growthSession);
    await deliver(fx.fake.takeEvents());
    expect(recorded()).toEqual({ subscriptionId: b.id, subscriptionStatus: "active", plan: "growth" });
    fx.fake.cancelSubscription(a.id as string);
    expect(await deliver(fx.fake.takeEvents())).toEqual([false]);
    expect(recorded()).toEqual({ subscriptionId: b.id, subscriptionStatus: "active", plan: "growth" });
  });

  test("more clicks on checkout in one window: one Checkout Session, keyed by organisation, customer, plan and window", async () => {
    const one = await checkout("starter");
    expect(await Promise.all([checkout("starter"), checkout("starter")])).toEqual([one, one]);
    const sessions = fx.fake.requests.filter((request) => request.path === "/v1/checkout/sessions");
    const customerId = fx.fake.sessions.get(one)!.session.customer as string;
    const window = Math.floor((fx.clock.seconds * 1000) / checkoutIdempotencyWindowMs);
    expect(sessions.map((request) => request.idempotencyKey)).toEqual(sessions.map(() => `checkout-session:${owner.orgId}:${customerId}:starter:${window}`));
    expect(fx.fake.sessions.size).toBe(1);
    // The next window: a new session.
    fx.clock.seconds += checkoutIdempotencyWindowMs / 1000;
    expect(await checkout("starter")).not.toBe(one);
    expect(fx.fake.sessions.size).toBe(2);
  });

  test("two concurrent cap changes: each answers and audits the cap it replaced", async () => {
    const patch = (cap: number) => owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: cap });
    expect((await patch(3000)).body).toEqual({ spend_cap_minor: 3000, previous_spend_cap_minor: 0 });
    // Both PATCHes have read usage before either writes: each one's read waits for the other's.
    const evaluate = service.ctx.billing.evaluate.bind(service.ctx.billing);
    const waiting: (() => void)[] = [];
    service.ctx.billing.evaluate = async (ctx, orgId, options) => {
      const evaluation = await evaluate(ctx, orgId, options);
      if (options?.fresh && waiting.length < 2) {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          if (waiting.length === 2) for (const release of waiting) release();
        });
      }
      return evaluation;
    };
    const replies = await Promise.all([patch(4000), patch(5000)]);
    expect(waiting.length).toBe(2);
    expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
    const answers = replies.map((reply) => reply.body as { spend_cap_minor: number; previous_spend_cap_minor: number });
    const [firstApplied, lastApplied] = answers[0]!.previous_spend_cap_minor === 3000 ? answers : [answers[1]!, answers[0]!];
    expect([firstApplied, lastApplied]).toEqual([
      { spend_cap_minor: firstApplied!.spend_cap_minor, previous_spend_cap_minor: 3000 },
      { spend_cap_minor: lastApplied!.spend_cap_minor, previous_spend_cap_minor: firstApplied!.spend_cap_minor },
    ]);
    const audit = (service.ctx.db.$client.query("SELECT before, after FROM audit_log WHERE action = 'billing.cap' AND target_id = ? ORDER BY id").all(owner.orgId) as { before: string; after: string }[])
      .map((entry) => [JSON.parse(entry.before).spend_cap_minor, JSON.parse(entry.after).spend_cap_minor]);
    expect(audit).toEqual([[null, 3000], [3000, firstApplied!.spend_cap_minor], [firstApplied!.spend_cap_minor, lastApplied!.spend_cap_minor]]);
    expect((await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body.spend_cap_minor).toBe(lastApplied!.spend_cap_minor);
  });

  test("a cap change is checked against the plan in force when it is written, not when its usage was read", async () => {
    // A growth subscription arrives while the PATCH reads usage: the starter price no longer suffices.
    const evaluate = service.ctx.billing.evaluate.bind(service.ctx.billing);
    let raced = false;
    service.ctx.billing.evaluate = async (ctx, orgId, options) => {
      const evaluation = await evaluate(ctx, orgId, options);
      if (!raced) {
        raced = true;
        await applySubscriptionChange(ctx, {
          orgId, customerId: "cus_race", subscriptionId: "sub_race", plan: "growth", status: "active",
          currentPeriodStart: new Date(Date.now() - hourMs).toISOString(), currentPeriodEnd: new Date(Date.now() + 29 * dayMs).toISOString(),
        });
      }
      return evaluation;
    };
    const reply = await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 3000 });
    expect([reply.status, reply.body]).toEqual([400, {
      error: { code: "validation", message: "spend_cap_minor must be at least 9900 (the plan price plus overage already billed this period, in usd minor units)" },
    }]);
  });
});

describe("a region whose usage cannot be read", () => {
  let regionNode: TestService;
  let control: TestService;
  let fx: StripeFixture;
  let owner: SignedUpUser;
  let regionUp = true;

  beforeAll(async () => {
    fx = stripeFixture();
    regionNode = await startTestService({ REGIONS: "us", REGION_SECRET: secret });
    control = await startTestService({ REGIONS: "eu,us", REMOTE_REGIONS: `us=${regionNode.url}/region/us`, REGION_SECRET: secret });
    control.ctx.payments = fx.provider;
    owner = await signUp(control, "Remote owner");
  });
  afterAll(async () => {
    await control.close();
    if (regionUp) await regionNode.close();
    await fx.fake.stop();
  });

  test("the pass keeps the keep ratio last pushed, the overview names the region, and a cap change answers 503 naming it", async () => {
    const local = await createProject(owner, "Local", "eu");
    const remote = await createProject(owner, "Remote", "us");
    await applySubscriptionChange(control.ctx, {
      orgId: owner.orgId, customerId: "cus_remote", subscriptionId: "sub_remote", plan: "starter", status: "active",
      currentPeriodStart: new Date(Date.now() - hourMs).toISOString(), currentPeriodEnd: new Date(Date.now() + 84 * dayMs).toISOString(),
    });
    for (let sent = 0; sent < 2000; sent += 1000) {
      const reply = await postIngest(regionNode.url, nativeBody(remote.public_keys[0].key, nativeEvents(1000)), { region: "us" });
      expect([reply.status, reply.body]).toEqual([200, ok(1000)]);
    }
    expect((await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 2900 })).status).toBe(200);
    const sampling = (await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body.ingest;
    expect(sampling.stage).toBe("sampling");
    const localNode = control.nodes.get("eu")!;
    expect(localNode.keepRatio(local.project.id)).toBe(sampling.keep_ratio);

    await regionNode.close();
    regionUp = false;
    await control.ctx.billing.pass(control.ctx);
    // Without the remote usage the org would look idle (ratio 1): the ratio in force stays.
    expect(localNode.keepRatio(local.project.id)).toBe(sampling.keep_ratio);
    const overview = await owner.client.get(`/app/orgs/${owner.orgId}/billing`);
    expect([overview.status, overview.body.usage.unreachable_regions, overview.body.ingest]).toEqual([200, ["us"], sampling]);
    const refused = await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 2900 });
    expect([refused.status, refused.body]).toEqual([503, {
      error: { code: "unavailable", message: "the usage of region(s) us cannot be read right now, so the lowest cap allowed is unknown; try again later" },
    }]);
    expect(overview.body.spend_cap_minor).toBe(2900);
  });
});
