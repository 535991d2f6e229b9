import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { RevenueEventName } from "../../../../engine/revenue-events.ts";
import { playDistinctId, playMessageDataCharsMax, playStoreModule } from "../../../../server/ingest/revenue/providers/play-store.ts";
import { WebhookAuthError, WebhookPayloadError, type RevenueEventDraft, type WebhookIntegration, type WebhookOutcome } from "../../../../server/ingest/revenue/provider.ts";

const eventTime = Date.UTC(2026, 10, 28, 2, 59, 0);
const token = "opaque-token-up-to-150-characters.AO-J1OyExampleExampleExample_abc123";
const person = `play:${createHash("sha256").update(token).digest("hex").slice(0, 32)}`;
const products = {
  "pro_monthly": { amount_minor: 999, currency: "usd", period: "month" },
  "pro_yearly": { amount_minor: 9999, currency: "EUR", period: "year" },
  "pro_trial": { amount_minor: 999, currency: "USD", period: "month", free_trial: true },
  "coins_100": { amount_minor: 199, currency: "USD" },
  "broken": { amount_minor: 9.5, currency: "USD", period: "month" },
};
const integration: WebhookIntegration = { id: "int_play", projectId: "proj_1", provider: "play_store", status: "active", secret: null, config: { package_name: "com.example.app", products } };

const developerNotification = (inner: object, packageName = "com.example.app") => ({ version: "1.0", packageName, eventTimeMillis: String(eventTime), ...inner });
const push = (data: string, messageId = "136969346945") =>
  JSON.stringify({ message: { attributes: {}, data, messageId, message_id: messageId, publishTime: "2026-11-28T02:59:01.123Z", publish_time: "2026-11-28T02:59:01.123Z" }, subscription: "projects/example/subscriptions/play-rtdn" });
const encode = (notification: object) => Buffer.from(JSON.stringify(notification)).toString("base64");
const deliverRaw = (text: string, config: Record<string, unknown> = integration.config) =>
  playStoreModule.handle({ ...integration, config }, { headers: new Headers({ "content-type": "application/json" }), body: new TextEncoder().encode(text), receivedAt: eventTime + 2000 });
const deliver = (inner: object, options: { packageName?: string; messageId?: string; config?: Record<string, unknown> } = {}) =>
  deliverRaw(push(encode(developerNotification(inner, options.packageName)), options.messageId), options.config);
const subscriptionNotification = (notificationType: number, subscriptionId = "pro_monthly") =>
  ({ subscriptionNotification: { version: "1.0", notificationType, purchaseToken: token, subscriptionId } });

const eventsOf = (outcome: WebhookOutcome) => (outcome.kind === "events" ? outcome.events : null);
const draft = (i: number, event: RevenueEventName, properties: RevenueEventDraft["properties"]): RevenueEventDraft => ({
  event, distinctId: person, timestamp: eventTime, uuidSeed: `136969346945:${i}`, properties: { ...properties, provider: "play_store", provider_event_id: "136969346945" },
});
const subscriptionProperties = (extra: RevenueEventDraft["properties"]) => ({ product: "pro_monthly", subscription_id: person, customer: person, currency: "USD", period: "month", ...extra });

async function failure(promise: Promise<unknown>) {
  return promise.then(() => null, (thrown: unknown) => thrown);
}

describe("Play notifications: authentication and payloads", () => {
  test("the distinct id is play: and the first 32 hex digits of the token's SHA-256", () => {
    expect(playDistinctId(token)).toBe(person);
    expect(person).toMatch(/^play:[0-9a-f]{32}$/);
  });

  test("a notification for another package is refused as bad_signature; so is an integration without package_name", async () => {
    const other = await failure(deliver(subscriptionNotification(2), { packageName: "com.other.app" }));
    expect(other).toBeInstanceOf(WebhookAuthError);
    expect([(other as WebhookAuthError).reason, (other as WebhookAuthError).message]).toEqual(["bad_signature", "the notification is for another app (its packageName is not the integration's package_name)"]);
    const unset = await failure(deliver(subscriptionNotification(2), { config: {} }));
    expect((unset as WebhookAuthError).reason).toBe("bad_signature");
  });

  test("bad JSON, a missing message, bad base64 or data that is not a JSON object is WebhookPayloadError", async () => {
    const cases: Array<[string, string]> = [
      ["{", "the Pub/Sub push body is not JSON"],
      [JSON.stringify({ subscription: "x" }), "the Pub/Sub push body has no message with messageId and data"],
      [JSON.stringify({ message: { data: encode(developerNotification(subscriptionNotification(2))) } }), "the Pub/Sub push body has no message with messageId and data"],
      [push("!!not base64!!"), "message.data is not base64"],
      [push(Buffer.from("not json").toString("base64")), "message.data is not JSON"],
      [push(Buffer.from("[1]").toString("base64")), "message.data is not a JSON object"],
      [push("A".repeat(playMessageDataCharsMax + 1)), `message.data is longer than ${playMessageDataCharsMax} characters`],
    ];
    for (const [text, message] of cases) {
      const error = await failure(deliverRaw(text));
      expect([error instanceof WebhookPayloadError, (error as Error).message]).toEqual([true, message]);
    }
    const noToken = await failure(deliver({ subscriptionNotification: { version: "1.0", notificationType: 2, subscriptionId: "pro_monthly" } }));
    expect(noToken).toBeInstanceOf(WebhookPayloadError);
  });

  test("message.data at its bound is read", async () => {
    const notification = developerNotification({ ...subscriptionNotification(2), padding: "" });
    const bare = encode(notification).length;
    // Pad the JSON so its base64 is exactly the bound (a multiple of 4 characters).
    const padded = encode({ ...notification, padding: "x".repeat(((playMessageDataCharsMax - bare) / 4) * 3) });
    expect(padded.length).toBe(playMessageDataCharsMax);
    expect((await deliverRaw(push(padded))).kind).toBe("events");
  });

  test("a replayed message gives the same drafts (idempotent by messageId)", async () => {
    const first = await deliver(subscriptionNotification(2));
    expect(await deliver(subscriptionNotification(2))).toEqual(first);
    expect(eventsOf(first)?.map((event) => event.uuidSeed)).toEqual(["136969346945:0", "136969346945:1"]);
  });

  test("test notifications and unknown types are acknowledged and ignored", async () => {
    expect(await deliver({ testNotification: { version: "1.0" } })).toEqual({ kind: "ignored", notificationId: "136969346945", notificationType: "testNotification" });
    expect(await deliver(subscriptionNotification(99))).toEqual({ kind: "ignored", notificationId: "136969346945", notificationType: "subscriptionNotification/99" });
    expect(await deliver({ subscriptionNotification: { notificationType: "<img src=x>", purchaseToken: token } })).toEqual({ kind: "ignored", notificationId: "136969346945", notificationType: "subscriptionNotification/?" });
    expect(await deliver({ somethingNew: {} })).toEqual({ kind: "ignored", notificationId: "136969346945", notificationType: "unknown" });
  });
});

describe("Play notifications as revenue events", () => {
  test("PURCHASED (4) is a $charge at the configured price and $subscription_started", async () => {
    expect(await deliver(subscriptionNotification(4))).toEqual({
      kind: "events", notificationId: "136969346945", notificationType: "SUBSCRIPTION_PURCHASED",
      events: [
        draft(0, "$charge", { product: "pro_monthly", customer: person, currency: "USD", amount: 999 }),
        draft(1, "$subscription_started", subscriptionProperties({ mrr: 999 })),
      ],
    });
  });

  test("PURCHASED of a product configured with a free trial is $trial_started with MRR 0", async () => {
    expect(eventsOf(await deliver(subscriptionNotification(4, "pro_trial")))).toEqual([draft(0, "$trial_started", subscriptionProperties({ product: "pro_trial", mrr: 0 }))]);
  });

  test("RENEWED (2) and RECOVERED (1) are a $charge and $subscription_renewed; a yearly price is MRR / 12", async () => {
    for (const type of [2, 1]) {
      expect(eventsOf(await deliver(subscriptionNotification(type)))?.map((e) => [e.event, e.properties.amount ?? null, e.properties.mrr ?? null])).toEqual([["$charge", 999, null], ["$subscription_renewed", null, 999]]);
    }
    expect(eventsOf(await deliver(subscriptionNotification(2, "pro_yearly")))?.map((e) => [e.properties.amount ?? null, e.properties.mrr ?? null, e.properties.currency])).toEqual([[9999, null, "EUR"], [null, 833, "EUR"]]);
  });

  test("CANCELED (3) is $subscription_cancelled still counting; EXPIRED (13) and REVOKED (12) are $subscription_expired", async () => {
    expect(eventsOf(await deliver(subscriptionNotification(3)))).toEqual([draft(0, "$subscription_cancelled", subscriptionProperties({ mrr: 999 }))]);
    for (const type of [13, 12]) expect(eventsOf(await deliver(subscriptionNotification(type)))).toEqual([draft(0, "$subscription_expired", subscriptionProperties({ mrr: 0 }))]);
  });

  test("known types that move no money are understood with no events", async () => {
    for (const type of [5, 6, 7, 8, 9, 10, 11, 19, 20]) expect(eventsOf(await deliver(subscriptionNotification(type)))).toEqual([]);
  });

  test("a product without a (valid) configured price gives events without amount or MRR", async () => {
    for (const product of ["unlisted", "broken", "__proto__"]) {
      expect(eventsOf(await deliver(subscriptionNotification(2, product)))).toEqual([
        draft(0, "$charge", { product, customer: person, currency: null }),
        draft(1, "$subscription_renewed", { product, subscription_id: person, customer: person, currency: null, period: null }),
      ]);
    }
  });

  test("a one-time purchase is a $charge; its cancellation (a pending purchase dropped) is nothing", async () => {
    const purchase = { oneTimeProductNotification: { version: "1.0", notificationType: 1, purchaseToken: token, sku: "coins_100" } };
    expect(await deliver(purchase)).toEqual({
      kind: "events", notificationId: "136969346945", notificationType: "ONE_TIME_PRODUCT_PURCHASED",
      events: [draft(0, "$charge", { product: "coins_100", customer: person, currency: "USD", amount: 199 })],
    });
    expect(eventsOf(await deliver({ oneTimeProductNotification: { version: "1.0", notificationType: 2, purchaseToken: token, sku: "coins_100" } }))).toEqual([]);
  });

  test("a voided purchase is a $refund without an amount (Play names neither product nor price)", async () => {
    const voided = { voidedPurchaseNotification: { purchaseToken: token, orderId: "GS.0000-0000-0000", productType: 1, refundType: 1 } };
    expect(await deliver(voided)).toEqual({
      kind: "events", notificationId: "136969346945", notificationType: "VOIDED_PURCHASE",
      events: [draft(0, "$refund", { customer: person })],
    });
  });

  test("eventTimeMillis is the timestamp; publishTime stands in when it is missing", async () => {
    const data = encode({ version: "1.0", packageName: "com.example.app", ...subscriptionNotification(3) });
    expect(eventsOf(await deliverRaw(push(data)))?.map((e) => e.timestamp)).toEqual([Date.parse("2026-11-28T02:59:01.123Z")]);
  });
});
