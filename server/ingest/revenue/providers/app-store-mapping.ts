// App Store Server Notifications V2, verified and decoded (app-store.ts), as revenue events.
// Prices: a transaction's `price` is in milliunits of its `currency` (9.99 USD is 9990), turned
// into minor units by the currency's ISO 4217 exponent. Notifications carry no billing period,
// so it is read from the transaction's own span (purchaseDate to expiresDate), matched to the
// nearest of the durations the App Store sells (1 week, 1, 2, 3 or 6 months, 1 year), with the
// sandbox's accelerated renewals (3 minutes for a week … 1 hour for a year) in the sandbox.
import { revenueEvents, type RevenueEventName } from "../../../../engine/revenue-events.ts";
import { minorDigits } from "../../minor-units.ts";
import { monthlyMinor, type BillingPeriod } from "./mrr.ts";
import { DraftList, numberAt, textAt, usableDistinctId, type DraftProperties, type JsonObject } from "./drafts.ts";
import { WebhookPayloadError } from "../provider.ts";

const minuteMs = 60_000;
const dayMs = 86_400_000;
/** [span of one period in ms, period, periods]: production, then the sandbox's accelerated ones. */
const productionSpans: ReadonlyArray<readonly [number, BillingPeriod, number]> = [
  [7 * dayMs, "week", 1], [30.44 * dayMs, "month", 1], [60.88 * dayMs, "month", 2], [91.31 * dayMs, "month", 3], [182.62 * dayMs, "month", 6], [365.25 * dayMs, "year", 1],
];
const sandboxSpans: ReadonlyArray<readonly [number, BillingPeriod, number]> = [
  [3 * minuteMs, "week", 1], [5 * minuteMs, "month", 1], [10 * minuteMs, "month", 2], [15 * minuteMs, "month", 3], [30 * minuteMs, "month", 6], [60 * minuteMs, "year", 1],
];

/** The billing period a transaction's span stands for, or null without an expiry. */
export function transactionPeriod(transaction: JsonObject): { period: BillingPeriod; count: number } | null {
  const start = numberAt(transaction, "purchaseDate");
  const end = numberAt(transaction, "expiresDate");
  if (start === null || end === null || end <= start) return null;
  const spans = textAt(transaction, "environment") === "Sandbox" ? sandboxSpans : productionSpans;
  let best = spans[0]!;
  for (const span of spans) if (Math.abs(Math.log((end - start) / span[0])) < Math.abs(Math.log((end - start) / best[0]))) best = span;
  return { period: best[1], count: best[2] };
}

/** Integer minor units of a milliunit price, or null when the price or its currency is unknown. */
export function milliunitsToMinor(price: number | null, currency: string | null): number | null {
  if (price === null || currency === null) return null;
  const digits = minorDigits(currency);
  return digits === null ? null : Math.round((price * 10 ** digits) / 1000);
}

const isFreeTrial = (transaction: JsonObject): boolean =>
  textAt(transaction, "offerDiscountType") === "FREE_TRIAL" || (numberAt(transaction, "offerType") === 1 && numberAt(transaction, "price") === 0);

/** The notification types written as events; any other is acknowledged and ignored. */
export const mappedAppStoreTypes: ReadonlySet<string> = new Set([
  "SUBSCRIBED", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "EXPIRED", "DID_FAIL_TO_RENEW",
  "REFUND", "REFUND_REVERSED", "ONE_TIME_CHARGE",
]);

export interface AppStoreNotification {
  type: string;
  subtype: string | null;
  transaction: JsonObject;
  renewal: JsonObject | null;
}

/** Adds the events of one verified notification to `drafts`. */
export function mapAppStoreNotification({ type, subtype, transaction, renewal }: AppStoreNotification, drafts: DraftList): void {
  const originalTransactionId = textAt(transaction, "originalTransactionId");
  if (originalTransactionId === null) throw new WebhookPayloadError("the transaction has no originalTransactionId");
  // The app's own id for the person (a UUID it passed at purchase) when it set one, else the
  // subscription's original transaction, stable across renewals.
  const customer = usableDistinctId(textAt(transaction, "appAccountToken") ?? textAt(renewal, "appAccountToken")) ?? originalTransactionId;
  const currency = textAt(transaction, "currency")?.toUpperCase() ?? null;
  const amount = milliunitsToMinor(numberAt(transaction, "price"), currency);
  const product = textAt(transaction, "productId");
  const recurring = textAt(transaction, "type") === "Auto-Renewable Subscription";
  const span = transactionPeriod(transaction);
  const common: DraftProperties = { currency, product, customer, ...(recurring ? { subscription_id: originalTransactionId } : {}) };

  const money = (event: RevenueEventName) => {
    if (amount !== null && amount > 0) drafts.add(event, customer, { ...common, amount });
  };
  const state = (event: RevenueEventName, mrr: number | null, overrides: DraftProperties = {}) =>
    drafts.add(event, customer, { ...common, period: span?.period ?? null, ...(mrr === null ? {} : { mrr }), ...overrides });
  const mrrOf = (minor: number | null) => (minor === null || span === null ? null : monthlyMinor(minor, span.period, span.count));

  switch (type) {
    case "SUBSCRIBED":
      if (isFreeTrial(transaction)) return state(revenueEvents.trialStarted, 0);
      money(revenueEvents.charge);
      return state(revenueEvents.subscriptionStarted, mrrOf(amount));
    case "DID_RENEW":
      money(revenueEvents.charge);
      return state(revenueEvents.subscriptionRenewed, mrrOf(amount));
    case "DID_CHANGE_RENEWAL_PREF":
      // An upgrade is immediate: its transaction is the new product's, charged now.
      if (subtype === "UPGRADE") {
        money(revenueEvents.charge);
        return state(revenueEvents.subscriptionUpgraded, mrrOf(amount));
      }
      // A downgrade renews into the other product: its price is the renewal's.
      if (subtype === "DOWNGRADE") {
        const renewalCurrency = textAt(renewal, "currency")?.toUpperCase() ?? currency;
        const renewalMinor = milliunitsToMinor(numberAt(renewal, "renewalPrice"), renewalCurrency);
        return state(revenueEvents.subscriptionDowngraded, mrrOf(renewalMinor), { currency: renewalCurrency, product: textAt(renewal, "autoRenewProductId") ?? product });
      }
      return; // No subtype: the customer went back to the current product (a downgrade undone).
    case "DID_CHANGE_RENEWAL_STATUS":
      if (subtype === "AUTO_RENEW_DISABLED") state(revenueEvents.subscriptionCancelled, mrrOf(amount));
      return;
    case "EXPIRED":
      return state(revenueEvents.subscriptionExpired, 0);
    case "REFUND":
      return money(revenueEvents.refund);
    case "REFUND_REVERSED":
      return money(revenueEvents.charge);
    case "ONE_TIME_CHARGE":
      return money(revenueEvents.charge);
    default:
      // DID_FAIL_TO_RENEW: billing retry; the subscription counts until EXPIRED says it ended.
      return;
  }
}
