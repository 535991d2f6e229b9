// Google Play real-time developer notifications, delivered by a Pub/Sub push subscription:
// `{message: {data: base64(DeveloperNotification), messageId, publishTime, attributes}, subscription}`.
// Play does not sign them: the unguessable token in the push endpoint's path authenticates (the
// route found the integration by it), and the notification's `packageName` must be the
// integration's `config.package_name` (another app's is refused as bad_signature, 401, so the
// mismatch shows as an ingestion warning). Idempotent by the Pub/Sub `messageId`.
// Play notifications carry no prices (the Play Developer API has them, but calling it needs the
// app's Google credentials and the network): amounts and MRR come from `config.products`
// (`{[productId]: {amount_minor, currency, period, period_count?, free_trial?}}`) when the
// product is listed there, else the events carry none.
import { createHash } from "node:crypto";
import { revenueEvents, type RevenueEventName } from "../../../../engine/revenue-events.ts";
import { minorDigits } from "../../minor-units.ts";
import { WebhookAuthError, WebhookPayloadError, type RevenueProviderModule, type WebhookOutcome } from "../provider.ts";
import { DraftList, isPlainObject, numberAt, objectAt, parseJsonObject, textAt, type DraftProperties, type JsonObject } from "./drafts.ts";
import { isBillingPeriod, monthlyMinor, type BillingPeriod } from "./mrr.ts";

/** SubscriptionNotification.notificationType values (developer.android.com, RTDN reference). */
export const playSubscriptionTypes: Readonly<Record<number, string>> = {
  1: "SUBSCRIPTION_RECOVERED", 2: "SUBSCRIPTION_RENEWED", 3: "SUBSCRIPTION_CANCELED", 4: "SUBSCRIPTION_PURCHASED",
  5: "SUBSCRIPTION_ON_HOLD", 6: "SUBSCRIPTION_IN_GRACE_PERIOD", 7: "SUBSCRIPTION_RESTARTED", 8: "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED",
  9: "SUBSCRIPTION_DEFERRED", 10: "SUBSCRIPTION_PAUSED", 11: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED", 12: "SUBSCRIPTION_REVOKED",
  13: "SUBSCRIPTION_EXPIRED", 19: "SUBSCRIPTION_PRICE_CHANGE_UPDATED", 20: "SUBSCRIPTION_PENDING_PURCHASE_CANCELED",
};
/** OneTimeProductNotification.notificationType values. */
export const playOneTimeTypes: Readonly<Record<number, string>> = { 1: "ONE_TIME_PRODUCT_PURCHASED", 2: "ONE_TIME_PRODUCT_CANCELED" };
/** Bound of the base64 `message.data` (a DeveloperNotification is well under 1 KB). */
export const playMessageDataCharsMax = 64 * 1024;

const base64Text = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The person of a purchase: Play names none, only the purchase token (the same across a
 * subscription's renewals, a new one for a new purchase or a plan change). The token is kept as
 * `play:` + the first 32 hex digits of its SHA-256, never itself: an app links it to its user by
 * sending `$create_alias` with that value, computed from the token the billing library gave it.
 */
export const playDistinctId = (purchaseToken: string): string =>
  `play:${createHash("sha256").update(purchaseToken).digest("hex").slice(0, 32)}`;

interface ProductPrice {
  amountMinor: number;
  currency: string;
  period: BillingPeriod | null;
  count: number;
  freeTrial: boolean;
}

/** The price `config.products[productId]` gives, when it is complete and well-formed. */
function productPrice(config: JsonObject, productId: string | null): ProductPrice | null {
  const products = objectAt(config, "products");
  const entry = productId !== null && products !== null && Object.hasOwn(products, productId) ? products[productId] : undefined;
  if (!isPlainObject(entry)) return null;
  const amountMinor = numberAt(entry, "amount_minor");
  const currency = textAt(entry, "currency")?.toUpperCase() ?? null;
  const period = isBillingPeriod(entry.period) ? entry.period : null;
  const count = numberAt(entry, "period_count") ?? 1;
  if (amountMinor === null || !Number.isInteger(amountMinor) || amountMinor < 0 || currency === null || minorDigits(currency) === null) return null;
  if (!Number.isInteger(count) || count < 1) return null;
  return { amountMinor, currency, period, count, freeTrial: entry.free_trial === true };
}

/** Epoch ms of a Play `long` (sent as a JSON string or number), or null. */
function epochMs(value: unknown): number | null {
  const number = typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : typeof value === "number" ? value : NaN;
  return Number.isFinite(number) ? number : null;
}

function mapSubscription(notification: JsonObject, config: JsonObject, drafts: DraftList): string | null {
  const type = numberAt(notification, "notificationType");
  const name = type === null ? undefined : playSubscriptionTypes[type];
  if (name === undefined) return null;
  const purchaseToken = textAt(notification, "purchaseToken");
  if (purchaseToken === null) throw new WebhookPayloadError("the subscription notification has no purchaseToken");
  const product = textAt(notification, "subscriptionId");
  const price = productPrice(config, product);
  const distinctId = playDistinctId(purchaseToken);
  const properties: DraftProperties = { product, subscription_id: distinctId, customer: distinctId, currency: price?.currency ?? null, period: price?.period ?? null };
  const mrr = price?.period ? monthlyMinor(price.amountMinor, price.period, price.count) : null;
  const money = () => drafts.add(revenueEvents.charge, distinctId, { product, customer: distinctId, currency: price?.currency ?? null, ...(price && price.amountMinor > 0 ? { amount: price.amountMinor } : {}) });
  const state = (event: RevenueEventName, value: number | null) => drafts.add(event, distinctId, { ...properties, ...(value === null ? {} : { mrr: value }) });
  switch (type) {
    case 4: // PURCHASED
      if (price?.freeTrial) {
        state(revenueEvents.trialStarted, 0);
        break;
      }
      money();
      state(revenueEvents.subscriptionStarted, mrr);
      break;
    case 1: // RECOVERED: a payment went through after a hold or grace period, or a pause ended
    case 2: // RENEWED
      money();
      state(revenueEvents.subscriptionRenewed, mrr);
      break;
    case 3: // CANCELED: auto-renewal off, it runs until it expires
      state(revenueEvents.subscriptionCancelled, mrr);
      break;
    case 12: // REVOKED: refunded and ended now; the refund itself is the voided-purchase notification's
    case 13: // EXPIRED
      state(revenueEvents.subscriptionExpired, 0);
      break;
    // ON_HOLD, IN_GRACE_PERIOD, RESTARTED, DEFERRED, PAUSED, PAUSE_SCHEDULE_CHANGED, price changes,
    // PENDING_PURCHASE_CANCELED move no money and end nothing.
  }
  return name;
}

function mapOneTime(notification: JsonObject, config: JsonObject, drafts: DraftList): string | null {
  const type = numberAt(notification, "notificationType");
  const name = type === null ? undefined : playOneTimeTypes[type];
  if (name === undefined) return null;
  const purchaseToken = textAt(notification, "purchaseToken");
  if (purchaseToken === null) throw new WebhookPayloadError("the one-time product notification has no purchaseToken");
  if (type === 1) {
    const product = textAt(notification, "sku");
    const price = productPrice(config, product);
    const distinctId = playDistinctId(purchaseToken);
    drafts.add(revenueEvents.charge, distinctId, { product, customer: distinctId, currency: price?.currency ?? null, ...(price && price.amountMinor > 0 ? { amount: price.amountMinor } : {}) });
  }
  return name;
}

function mapVoided(notification: JsonObject, drafts: DraftList): string {
  const purchaseToken = textAt(notification, "purchaseToken");
  if (purchaseToken === null) throw new WebhookPayloadError("the voided purchase notification has no purchaseToken");
  // It names neither the product nor the amount: the refund is recorded without an amount.
  const distinctId = playDistinctId(purchaseToken);
  drafts.add(revenueEvents.refund, distinctId, { customer: distinctId });
  return "VOIDED_PURCHASE";
}

export const playStoreModule: RevenueProviderModule = {
  provider: "play_store",
  async handle(integration, request): Promise<WebhookOutcome> {
    const body = parseJsonObject(request.body, "the Pub/Sub push body");
    const message = objectAt(body, "message");
    const messageId = textAt(message, "messageId") ?? textAt(message, "message_id");
    const data = message?.data;
    if (messageId === null || typeof data !== "string") throw new WebhookPayloadError("the Pub/Sub push body has no message with messageId and data");
    if (data.length > playMessageDataCharsMax) throw new WebhookPayloadError(`message.data is longer than ${playMessageDataCharsMax} characters`);
    if (!base64Text.test(data)) throw new WebhookPayloadError("message.data is not base64");
    const notification = parseJsonObject(Buffer.from(data, data.includes("-") || data.includes("_") ? "base64url" : "base64").toString("utf8"), "message.data");

    const expected = textAt(integration.config, "package_name");
    if (expected === null) throw new WebhookAuthError("bad_signature", "the integration has no package_name to match notifications with");
    if (textAt(notification, "packageName") !== expected) throw new WebhookAuthError("bad_signature", "the notification is for another app (its packageName is not the integration's package_name)");

    const timestamp = epochMs(notification.eventTimeMillis) ?? Date.parse(textAt(message, "publishTime") ?? "");
    if (!Number.isFinite(timestamp)) throw new WebhookPayloadError("the notification has no eventTimeMillis");
    const drafts = new DraftList("play_store", messageId, timestamp);
    const subscription = objectAt(notification, "subscriptionNotification");
    const oneTime = objectAt(notification, "oneTimeProductNotification");
    const voided = objectAt(notification, "voidedPurchaseNotification");
    let mapped: string | null = null;
    if (subscription !== null) mapped = mapSubscription(subscription, integration.config, drafts);
    else if (oneTime !== null) mapped = mapOneTime(oneTime, integration.config, drafts);
    else if (voided !== null) mapped = mapVoided(voided, drafts);
    if (mapped === null) {
      const kind = subscription !== null ? `subscriptionNotification/${numberAt(subscription, "notificationType") ?? "?"}`
        : oneTime !== null ? `oneTimeProductNotification/${numberAt(oneTime, "notificationType") ?? "?"}`
        : objectAt(notification, "testNotification") !== null ? "testNotification" : "unknown";
      return { kind: "ignored", notificationId: messageId, notificationType: kind };
    }
    return { kind: "events", notificationId: messageId, notificationType: mapped, events: drafts.events };
  },
};
