// The revenue events the payment-provider webhooks write (and that a project may also send
// itself): their names and the properties they carry. The webhook mapping writes them; the
// revenue measures (MRR, its movements, churn) read them. Money is always integer minor units
// of `currency` (ISO 4217, upper case).

export const revenueEvents = {
  /** Money taken: a one-off purchase or a subscription's payment. `amount` > 0. */
  charge: "$charge",
  /** Money given back. `amount` > 0 (revenue series mark refunds with `refund: true` to count them negative). */
  refund: "$refund",
  trialStarted: "$trial_started",
  /** A trial became a paid subscription. */
  trialConverted: "$trial_converted",
  subscriptionStarted: "$subscription_started",
  subscriptionRenewed: "$subscription_renewed",
  subscriptionUpgraded: "$subscription_upgraded",
  subscriptionDowngraded: "$subscription_downgraded",
  /** Auto-renewal was turned off: the subscription still runs (and counts in MRR) until it expires. */
  subscriptionCancelled: "$subscription_cancelled",
  /** The subscription ended: its MRR is 0 from here on. */
  subscriptionExpired: "$subscription_expired",
} as const;

export type RevenueEventName = (typeof revenueEvents)[keyof typeof revenueEvents];

export const revenueEventNames: ReadonlySet<string> = new Set(Object.values(revenueEvents));

/** The events that carry a subscription's state (`subscription_id` and `mrr`). */
export const subscriptionEventNames: ReadonlySet<string> = new Set([
  revenueEvents.trialStarted,
  revenueEvents.trialConverted,
  revenueEvents.subscriptionStarted,
  revenueEvents.subscriptionRenewed,
  revenueEvents.subscriptionUpgraded,
  revenueEvents.subscriptionDowngraded,
  revenueEvents.subscriptionCancelled,
  revenueEvents.subscriptionExpired,
]);

/** Property names on revenue events. */
export const revenueProperties = {
  /** Integer minor units charged or refunded by this event (absent when the event moves no money). */
  amount: "amount",
  /** ISO 4217 code, upper case, of `amount` and `mrr`. */
  currency: "currency",
  /**
   * Integer minor units of monthly recurring revenue of this subscription right after the event:
   * the recurring price normalised to a month (a yearly price / 12, a weekly one * 52 / 12,
   * rounded half away from zero); 0 during a trial and after expiry.
   */
  mrr: "mrr",
  /** The provider's subscription reference: MRR is tracked per subscription and summed per person. */
  subscriptionId: "subscription_id",
  /** The provider's product or price reference. */
  product: "product",
  /** Billing period of the recurring price: `day`, `week`, `month` or `year`. */
  period: "period",
  /** `stripe`, `revenuecat`, `app_store` or `play_store`. */
  provider: "provider",
  /** The provider's id of the notification the event came from (events are idempotent by it). */
  providerEventId: "provider_event_id",
  /** The provider's customer reference the event's distinct id was taken from. */
  customer: "customer",
} as const;
