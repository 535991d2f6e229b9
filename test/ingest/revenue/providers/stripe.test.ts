import { describe, expect, test } from "bun:test";
import Stripe from "stripe";
import { stripeModule } from "../../../../server/ingest/revenue/providers/stripe.ts";
import { stripeSignatureToleranceMs } from "../../../../server/ingest/revenue/providers/stripe-signature.ts";
import type { RevenueEventName } from "../../../../engine/revenue-events.ts";
import { WebhookAuthError, WebhookPayloadError, type RevenueEventDraft, type WebhookIntegration } from "../../../../server/ingest/revenue/provider.ts";

const secret = "whsec_test_5f8d0c6a1b2e4f7a9c3d";
const stripe = new Stripe("sk_test_not_used_for_network");
const integration: WebhookIntegration = { id: "int_1", projectId: "proj_1", provider: "stripe", status: "active", secret, config: {} };
const now = Date.UTC(2026, 10, 28, 3, 0, 0);
const nowSeconds = now / 1000;

// Under Bun the package signs with Web Crypto, which is asynchronous only.
function signed(payload: string, options: { secret?: string; timestamp?: number } = {}): Promise<string> {
  return stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: options.secret ?? secret, timestamp: options.timestamp ?? nowSeconds });
}

function request(payload: string, header: string | null, receivedAt = now) {
  const headers = new Headers({ "content-type": "application/json" });
  if (header !== null) headers.set("Stripe-Signature", header);
  return { headers, body: new TextEncoder().encode(payload), receivedAt };
}

const deliver = async (payload: string, header?: string | null, receivedAt = now) =>
  stripeModule.handle(integration, request(payload, header === undefined ? await signed(payload) : header, receivedAt));

async function authError(promise: Promise<unknown>): Promise<{ reason: string; message: string }> {
  const error = await promise.then(() => null, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(WebhookAuthError);
  return { reason: (error as WebhookAuthError).reason, message: (error as WebhookAuthError).message };
}

const event = (id: string, type: string, object: object, previous?: object) =>
  JSON.stringify({
    id, object: "event", api_version: "2026-10-28.endive", created: nowSeconds - 2, livemode: false, pending_webhooks: 1,
    request: { id: "req_1", idempotency_key: null }, type,
    data: previous === undefined ? { object } : { object, previous_attributes: previous },
  });

const charge = (fields: object = {}) => ({
  id: "ch_3Q", object: "charge", amount: 2999, amount_captured: 2999, amount_refunded: 0, captured: true, paid: true,
  status: "succeeded", currency: "usd", customer: "cus_Alice", payment_intent: "pi_3Q", metadata: {}, refunded: false,
  created: nowSeconds - 3, description: null, livemode: false, ...fields,
});

const price = (id: string, unitAmount: number, interval: string, intervalCount = 1, usageType = "licensed") => ({
  id, object: "price", active: true, currency: "usd", product: `prod_${id}`, type: "recurring", unit_amount: unitAmount,
  billing_scheme: "per_unit", recurring: { interval, interval_count: intervalCount, usage_type: usageType, meter: null },
});

const item = (itemPrice: object, quantity = 1, periodStart = nowSeconds - 60) => ({
  id: "si_1", object: "subscription_item", price: itemPrice, quantity, current_period_start: periodStart,
  current_period_end: periodStart + 30 * 86_400, subscription: "sub_1",
});

const subscription = (fields: object = {}, items: object[] = [item(price("price_pro", 2000, "month"))]) => ({
  id: "sub_1", object: "subscription", customer: "cus_Alice", status: "active", currency: "usd", cancel_at_period_end: false,
  cancel_at: null, canceled_at: null, metadata: {}, created: nowSeconds - 60, trial_start: null, trial_end: null,
  items: { object: "list", data: items, has_more: false, url: "/v1/subscription_items?subscription=sub_1" }, ...fields,
});

const base = (eventId: string) => ({ provider: "stripe", provider_event_id: eventId });
const draft = (eventId: string, i: number, eventName: RevenueEventName, distinctId: string, properties: RevenueEventDraft["properties"]): RevenueEventDraft => ({
  event: eventName, distinctId, timestamp: (nowSeconds - 2) * 1000, uuidSeed: `${eventId}:${i}`, properties: { ...properties, ...base(eventId) },
});
const subscriptionProperties = (mrr: number, extra: RevenueEventDraft["properties"] = {}): RevenueEventDraft["properties"] => ({
  mrr, currency: "USD", subscription_id: "sub_1", product: "prod_price_pro", period: "month", customer: "cus_Alice", ...extra,
});

describe("Stripe-Signature, checked by our code against signatures made by the stripe package", () => {
  const payload = event("evt_sig", "charge.succeeded", charge());

  test("a good signature is accepted", async () => {
    expect((await deliver(payload)).kind).toBe("events");
  });

  test("a signature made with another secret is bad_signature", async () => {
    expect(await authError(deliver(payload, await signed(payload, { secret: "whsec_other" })))).toEqual({
      reason: "bad_signature", message: "no v1 signature of the Stripe-Signature header matches the body",
    });
  });

  test("a tampered body is bad_signature", async () => {
    const tampered = payload.replace('"amount":2999', '"amount":2');
    expect(tampered).not.toBe(payload);
    expect((await authError(deliver(tampered, await signed(payload)))).reason).toBe("bad_signature");
  });

  test("a missing or empty header is missing_signature", async () => {
    expect(await authError(deliver(payload, null))).toEqual({ reason: "missing_signature", message: "the request has no Stripe-Signature header" });
    expect((await authError(deliver(payload, " "))).reason).toBe("missing_signature");
  });

  test("a header without a timestamp or without v1 is bad_signature", async () => {
    const v1 = (await signed(payload)).split(",").find((part) => part.startsWith("v1="))!;
    expect(await authError(deliver(payload, v1))).toEqual({ reason: "bad_signature", message: "the Stripe-Signature header has no timestamp" });
    expect(await authError(deliver(payload, `t=${nowSeconds},v0=abc`))).toEqual({ reason: "bad_signature", message: "the Stripe-Signature header has no v1 signature" });
  });

  test("the timestamp is accepted up to the tolerance and refused one second past it, both ways", async () => {
    const toleranceS = stripeSignatureToleranceMs / 1000;
    for (const timestamp of [nowSeconds - toleranceS, nowSeconds + toleranceS]) {
      expect((await deliver(payload, await signed(payload, { timestamp }))).kind).toBe("events");
    }
    expect(await authError(deliver(payload, await signed(payload, { timestamp: nowSeconds - toleranceS - 1 })))).toEqual({
      reason: "expired_signature", message: "the Stripe-Signature timestamp is 301 s old, beyond the 300 s tolerance",
    });
    expect(await authError(deliver(payload, await signed(payload, { timestamp: nowSeconds + toleranceS + 1 })))).toEqual({
      reason: "expired_signature", message: "the Stripe-Signature timestamp is 301 s in the future, beyond the 300 s tolerance",
    });
  });

  test("a replay after the tolerance is expired_signature, even though its signature is good", async () => {
    const header = await signed(payload);
    expect((await deliver(payload, header, now)).kind).toBe("events");
    expect((await authError(deliver(payload, header, now + stripeSignatureToleranceMs + 1000))).reason).toBe("expired_signature");
  });

  test("any of several v1 values may match (a secret being rolled), other schemes are ignored", async () => {
    const good = (await signed(payload)).split(",").find((part) => part.startsWith("v1="))!;
    const other = (await signed(payload, { secret: "whsec_old" })).split(",").find((part) => part.startsWith("v1="))!;
    expect((await deliver(payload, `t=${nowSeconds},v0=${"0".repeat(64)},${other},${good}`)).kind).toBe("events");
    expect((await deliver(payload, `t=${nowSeconds},${good},${other}`)).kind).toBe("events");
    expect((await authError(deliver(payload, `t=${nowSeconds},${other},v1=${"a".repeat(64)}`))).reason).toBe("bad_signature");
  });

  test("our check agrees with the stripe package's own constructEventAsync (except that we also refuse the far future)", async () => {
    const toleranceS = stripeSignatureToleranceMs / 1000;
    const cases = [
      await signed(payload), await signed(payload, { secret: "whsec_other" }), await signed(payload, { timestamp: nowSeconds - toleranceS - 1 }),
      await signed(payload, { timestamp: nowSeconds - toleranceS }), `t=${nowSeconds},v1=${"0".repeat(64)}`, "t=abc,v1=zz",
    ];
    for (const header of cases) {
      const ours = await deliver(payload, header).then(() => true, () => false);
      const theirs = await stripe.webhooks.constructEventAsync(payload, header, secret, toleranceS, undefined, now).then(() => true, () => false);
      expect([header, ours]).toEqual([header, theirs]);
    }
  });

  test("an integration without a signing secret refuses every request", async () => {
    const error = await stripeModule.handle({ ...integration, secret: null }, request(payload, await signed(payload))).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(WebhookAuthError);
    expect((error as WebhookAuthError).reason).toBe("bad_signature");
  });

  test("an oversized header is refused without hashing", async () => {
    expect(await authError(deliver(payload, `t=${nowSeconds},` + "v1=00,".repeat(400)))).toEqual({ reason: "bad_signature", message: "the Stripe-Signature header is too long" });
  });
});

describe("Stripe payloads", () => {
  test("a signed body that is not JSON, or not an event, is WebhookPayloadError", async () => {
    for (const [payload, message] of [
      ["{not json", "the Stripe event is not JSON"],
      ["[1,2]", "the Stripe event is not a JSON object"],
      [JSON.stringify({ id: "evt_1", type: "charge.succeeded" }), "the Stripe event lacks its id, type, created time or data.object"],
    ] as const) {
      const error = await deliver(payload).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(WebhookPayloadError);
      expect((error as Error).message).toBe(message);
    }
  });

  test("unknown and unmapped types are acknowledged and ignored", async () => {
    for (const type of ["invoice.paid", "customer.subscription.trial_will_end", "refund.created", "product.created", "<script>alert(1)</script>"]) {
      expect(await deliver(event("evt_x", type, { id: "x" }))).toEqual({ kind: "ignored", notificationId: "evt_x", notificationType: type });
    }
  });
});

describe("Stripe charges and refunds", () => {
  test("charge.succeeded is a $charge for the Customer", async () => {
    expect(await deliver(event("evt_c1", "charge.succeeded", charge()))).toEqual({
      kind: "events", notificationId: "evt_c1", notificationType: "charge.succeeded",
      events: [draft("evt_c1", 0, "$charge", "cus_Alice", { amount: 2999, currency: "USD", customer: "cus_Alice" })],
    });
  });

  test("metadata.distinct_id is the person when set; a guest charge is its PaymentIntent", async () => {
    const chosen = await deliver(event("evt_c2", "charge.succeeded", charge({ metadata: { distinct_id: "user-42" } })));
    expect(chosen.kind === "events" && chosen.events.map((e) => [e.distinctId, e.properties.customer])).toEqual([["user-42", "cus_Alice"]]);
    const guest = await deliver(event("evt_c3", "charge.succeeded", charge({ customer: null })));
    expect(guest.kind === "events" && guest.events.map((e) => [e.distinctId, e.properties.customer])).toEqual([["pi_3Q", null]]);
    const tooLong = await deliver(event("evt_c4", "charge.succeeded", charge({ metadata: { distinct_id: "x".repeat(201) } })));
    expect(tooLong.kind === "events" && tooLong.events.map((e) => e.distinctId)).toEqual(["cus_Alice"]);
  });

  test("an authorisation is no money until charge.captured, which counts what was captured", async () => {
    expect(await deliver(event("evt_a1", "charge.succeeded", charge({ captured: false, amount_captured: 0 })))).toEqual({
      kind: "events", notificationId: "evt_a1", notificationType: "charge.succeeded", events: [],
    });
    expect(await deliver(event("evt_a2", "charge.captured", charge({ amount: 5000, amount_captured: 4000 }), { amount_captured: 0, captured: false }))).toEqual({
      kind: "events", notificationId: "evt_a2", notificationType: "charge.captured",
      events: [draft("evt_a2", 0, "$charge", "cus_Alice", { amount: 4000, currency: "USD", customer: "cus_Alice" })],
    });
  });

  test("charge.refunded is a $refund of what this refund added, so partial refunds add up", async () => {
    const first = await deliver(event("evt_r1", "charge.refunded", charge({ amount_refunded: 1000 }), { amount_refunded: 0, refunded: false }));
    expect(first).toEqual({
      kind: "events", notificationId: "evt_r1", notificationType: "charge.refunded",
      events: [draft("evt_r1", 0, "$refund", "cus_Alice", { amount: 1000, currency: "USD", customer: "cus_Alice" })],
    });
    const second = await deliver(event("evt_r2", "charge.refunded", charge({ amount_refunded: 2999, refunded: true }), { amount_refunded: 1000, refunded: false }));
    expect(second.kind === "events" && second.events.map((e) => e.properties.amount)).toEqual([1999]);
  });

  test("charge.refunded without previous_attributes: the newest expanded refund, else the whole amount refunded", async () => {
    const expanded = charge({ amount_refunded: 2999, refunded: true, refunds: { object: "list", data: [{ id: "re_2", amount: 1999 }, { id: "re_1", amount: 1000 }] } });
    const fromList = await deliver(event("evt_r3", "charge.refunded", expanded));
    expect(fromList.kind === "events" && fromList.events.map((e) => e.properties.amount)).toEqual([1999]);
    const bare = await deliver(event("evt_r4", "charge.refunded", charge({ amount_refunded: 1000 })));
    expect(bare.kind === "events" && bare.events.map((e) => e.properties.amount)).toEqual([1000]);
  });

  test("hostile metadata and ids pass through as plain data", async () => {
    const hostile = "<script>alert(1)</script>'; DROP TABLE events; --";
    const outcome = await deliver(event("evt_h", "charge.succeeded", charge({ metadata: { distinct_id: hostile }, customer: "cus_<b>x</b>" })));
    expect(outcome.kind === "events" && outcome.events.map((e) => [e.distinctId, e.properties.customer])).toEqual([[hostile, "cus_<b>x</b>"]]);
    const notText = await deliver(event("evt_h2", "charge.succeeded", charge({ metadata: { distinct_id: { toString: "x" } }, amount_captured: "999" })));
    expect(notText.kind === "events" && notText.events.map((e) => [e.distinctId, e.properties.amount])).toEqual([["cus_Alice", 2999]]);
  });

  test("a zero-decimal currency keeps its amount (Stripe's amounts are already minor units)", async () => {
    const yen = await deliver(event("evt_y", "charge.succeeded", charge({ amount: 1200, amount_captured: 1200, currency: "jpy" })));
    expect(yen.kind === "events" && yen.events.map((e) => [e.properties.amount, e.properties.currency])).toEqual([[1200, "JPY"]]);
  });

  test("redelivery of the same event gives the same drafts (the route deduplicates by uuid seed)", async () => {
    const payload = event("evt_same", "charge.succeeded", charge());
    const first = await deliver(payload, await signed(payload, { timestamp: nowSeconds - 100 }));
    const second = await deliver(payload, await signed(payload, { timestamp: nowSeconds }));
    expect(second).toEqual(first);
    expect(first.kind === "events" && first.events.map((e) => e.uuidSeed)).toEqual(["evt_same:0"]);
  });
});

describe("Stripe subscriptions", () => {
  test("created active is $subscription_started with its MRR; created trialing is $trial_started with MRR 0", async () => {
    expect(await deliver(event("evt_s1", "customer.subscription.created", subscription()))).toEqual({
      kind: "events", notificationId: "evt_s1", notificationType: "customer.subscription.created",
      events: [draft("evt_s1", 0, "$subscription_started", "cus_Alice", subscriptionProperties(2000))],
    });
    expect(await deliver(event("evt_s2", "customer.subscription.created", subscription({ status: "trialing", metadata: { distinct_id: "user-42" } })))).toEqual({
      kind: "events", notificationId: "evt_s2", notificationType: "customer.subscription.created",
      events: [draft("evt_s2", 0, "$trial_started", "user-42", subscriptionProperties(0))],
    });
    const incomplete = await deliver(event("evt_s3", "customer.subscription.created", subscription({ status: "incomplete" })));
    expect(incomplete.kind === "events" && incomplete.events).toEqual([]);
  });

  test("MRR normalises every interval to a month and sums items times quantities; metered items count 0", async () => {
    const items = [
      item(price("price_year", 12_000, "year"), 2),        // 24,000 a year: 2,000 a month
      item(price("price_week", 1_000, "week")),             // 1,000 * 52 / 12 = 4,333.33
      item(price("price_quarter", 3_000, "month", 3)),      // 1,000
      item(price("price_day", 100, "day")),                 // 100 * 365 / 12 = 3,041.67
      item(price("price_metered", 5, "month", 1, "metered")),
    ];
    const started = await deliver(event("evt_m", "customer.subscription.created", subscription({}, items)));
    // 2,000 + 4,333.33 + 1,000 + 3,041.67 = 10,375 (rounded once, after the sum)
    expect(started.kind === "events" && started.events.map((e) => [e.properties.mrr, e.properties.period, e.properties.product])).toEqual([[10_375, "year", "prod_price_year"]]);
  });

  test("a trial turning active is $trial_converted", async () => {
    const converted = await deliver(event("evt_t", "customer.subscription.updated", subscription(), { status: "trialing" }));
    expect(converted).toEqual({
      kind: "events", notificationId: "evt_t", notificationType: "customer.subscription.updated",
      events: [draft("evt_t", 0, "$trial_converted", "cus_Alice", subscriptionProperties(2000))],
    });
  });

  test("an incomplete subscription paid is $subscription_started", async () => {
    const started = await deliver(event("evt_i", "customer.subscription.updated", subscription(), { status: "incomplete" }));
    expect(started.kind === "events" && started.events.map((e) => [e.event, e.properties.mrr])).toEqual([["$subscription_started", 2000]]);
  });

  test("a price change is upgraded or downgraded by comparing the MRR with previous_attributes", async () => {
    const before = { items: { object: "list", data: [item(price("price_basic", 1000, "month"))] } };
    const up = await deliver(event("evt_u", "customer.subscription.updated", subscription(), before));
    expect(up).toEqual({
      kind: "events", notificationId: "evt_u", notificationType: "customer.subscription.updated",
      events: [draft("evt_u", 0, "$subscription_upgraded", "cus_Alice", subscriptionProperties(2000))],
    });
    const down = await deliver(event("evt_d", "customer.subscription.updated",
      subscription({}, [item(price("price_basic", 1000, "month"))]), { items: { object: "list", data: [item(price("price_pro", 2000, "month"))] } }));
    expect(down.kind === "events" && down.events.map((e) => [e.event, e.properties.mrr, e.properties.product])).toEqual([["$subscription_downgraded", 1000, "prod_price_basic"]]);
    const yearly = await deliver(event("evt_y", "customer.subscription.updated",
      subscription({}, [item(price("price_pro_year", 24_000, "year"))]), before));
    expect(yearly.kind === "events" && yearly.events.map((e) => [e.event, e.properties.mrr, e.properties.period])).toEqual([["$subscription_upgraded", 2000, "year"]]);
    const quantity = await deliver(event("evt_q", "customer.subscription.updated",
      subscription({}, [item(price("price_pro", 2000, "month"), 3)]), { items: { object: "list", data: [item(price("price_pro", 2000, "month"), 1)] } }));
    expect(quantity.kind === "events" && quantity.events.map((e) => [e.event, e.properties.mrr])).toEqual([["$subscription_upgraded", 6000]]);
  });

  test("the period moving on is $subscription_renewed (on the items since 2025-03-31, at the top level before)", async () => {
    const periodStart = nowSeconds - 60;
    const renewed = await deliver(event("evt_n", "customer.subscription.updated", subscription(),
      { items: { object: "list", data: [item(price("price_pro", 2000, "month"), 1, periodStart - 30 * 86_400)] }, latest_invoice: "in_old" }));
    expect(renewed).toEqual({
      kind: "events", notificationId: "evt_n", notificationType: "customer.subscription.updated",
      events: [draft("evt_n", 0, "$subscription_renewed", "cus_Alice", subscriptionProperties(2000))],
    });
    const legacy = await deliver(event("evt_l", "customer.subscription.updated",
      subscription({ current_period_start: periodStart, current_period_end: periodStart + 30 * 86_400 }),
      { current_period_start: periodStart - 30 * 86_400, current_period_end: periodStart }));
    expect(legacy.kind === "events" && legacy.events.map((e) => e.event)).toEqual(["$subscription_renewed"]);
  });

  test("cancel_at_period_end turning true (or cancel_at being set) is $subscription_cancelled, still counting its MRR", async () => {
    const cancelled = await deliver(event("evt_x1", "customer.subscription.updated", subscription({ cancel_at_period_end: true }), { cancel_at_period_end: false }));
    expect(cancelled).toEqual({
      kind: "events", notificationId: "evt_x1", notificationType: "customer.subscription.updated",
      events: [draft("evt_x1", 0, "$subscription_cancelled", "cus_Alice", subscriptionProperties(2000))],
    });
    const at = await deliver(event("evt_x2", "customer.subscription.updated", subscription({ cancel_at: nowSeconds + 86_400 }), { cancel_at: null }));
    expect(at.kind === "events" && at.events.map((e) => e.event)).toEqual(["$subscription_cancelled"]);
    const resumed = await deliver(event("evt_x3", "customer.subscription.updated", subscription(), { cancel_at_period_end: true }));
    expect(resumed.kind === "events" && resumed.events).toEqual([]);
    const unrelated = await deliver(event("evt_x4", "customer.subscription.updated", subscription({ cancel_at_period_end: true }), { metadata: {} }));
    expect(unrelated.kind === "events" && unrelated.events).toEqual([]);
  });

  test("several changes in one update are several events, numbered in order", async () => {
    const both = await deliver(event("evt_b", "customer.subscription.updated", subscription({ cancel_at_period_end: true }),
      { cancel_at_period_end: false, items: { object: "list", data: [item(price("price_basic", 1000, "month"))] } }));
    expect(both.kind === "events" && both.events.map((e) => [e.event, e.uuidSeed])).toEqual([["$subscription_upgraded", "evt_b:0"], ["$subscription_cancelled", "evt_b:1"]]);
  });

  test("past_due and its recovery write nothing; a plan change at the recovery is still one", async () => {
    const late = await deliver(event("evt_p1", "customer.subscription.updated", subscription({ status: "past_due" }), { status: "active" }));
    expect(late.kind === "events" && late.events).toEqual([]);
    const recovered = await deliver(event("evt_p2", "customer.subscription.updated", subscription(), { status: "past_due" }));
    expect(recovered.kind === "events" && recovered.events).toEqual([]);
    const both = await deliver(event("evt_p3", "customer.subscription.updated", subscription(),
      { status: "past_due", items: { object: "list", data: [item(price("price_basic", 1000, "month"))] } }));
    expect(both.kind === "events" && both.events.map((e) => e.event)).toEqual(["$subscription_upgraded"]);
  });

  test("deleted is $subscription_expired with MRR 0", async () => {
    expect(await deliver(event("evt_e", "customer.subscription.deleted", subscription({ status: "canceled", ended_at: nowSeconds })))).toEqual({
      kind: "events", notificationId: "evt_e", notificationType: "customer.subscription.deleted",
      events: [draft("evt_e", 0, "$subscription_expired", "cus_Alice", subscriptionProperties(0))],
    });
  });

  test("a subscription without a customer is WebhookPayloadError", async () => {
    const error = await deliver(event("evt_bad", "customer.subscription.created", subscription({ customer: null }))).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(WebhookPayloadError);
  });
});
