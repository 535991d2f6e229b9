// The revenue insight's measure and target currency (docs/revenue-measures.md): which events a
// measure reads (only `revenue` takes series; the others read the events the payment-provider
// webhooks write, engine/revenue-events.ts), whether it reads history before the range (MRR is
// state: a subscription started a year ago counts today), and the currency check.
import { revenueEvents, revenueProperties, subscriptionEventNames } from "../revenue-events.ts";
import { referenceRates } from "../revenue/rates.ts";
import type { RevenueOptions, Series } from "./query.ts";
import type { InsightSpec, RevenueMeasure } from "./schema.ts";

/** The measures computed from subscription state (the `mrr` of each subscription's latest event). */
export const subscriptionMeasures: ReadonlySet<RevenueMeasure> = new Set(["mrr", "arr", "mrr_movements", "churn_rate"]);

/** Whether a revenue query reads every event before its range too. */
export const readsSubscriptionHistory = (options: RevenueOptions) => subscriptionMeasures.has(options.measure);

const series = (event: string, property: string, refund = false, filters: Series["filters"] = []): Series => ({
  event, math: "total", property, groupTypeIndex: null, filters, currencyProperty: revenueProperties.currency, refund,
});

/**
 * The series a measure reads in place of the document's: refunds the `$refund` amounts (counted
 * positive), revenue per person charges less refunds, the subscription measures every
 * subscription event's `mrr` (one series per event name, each needing a subscription id).
 */
export function measureSeries(measure: RevenueMeasure): Series[] | null {
  switch (measure) {
    case "revenue":
      return null;
    case "refunds":
      return [series(revenueEvents.refund, revenueProperties.amount)];
    case "revenue_per_person":
      return [series(revenueEvents.charge, revenueProperties.amount), series(revenueEvents.refund, revenueProperties.amount, true)];
    default:
      return [...subscriptionEventNames].map((event) =>
        series(event, revenueProperties.mrr, false, [{ type: "event", key: revenueProperties.subscriptionId, operator: "is_set" }]));
  }
}

const isoCurrencies = new Set(Intl.supportedValuesOf("currency"));

/** What is wrong with a target currency, or null (the code itself: upper case). */
export function currencyProblem(code: string): string | null {
  if (!/^[A-Z]{3}$/.test(code) || !isoCurrencies.has(code)) return `${JSON.stringify(code)} is not an ISO 4217 currency code`;
  const rates = referenceRates();
  if (!rates.has(code)) return `the reference rate table (ECB) has no rates for ${code}; it has ${rates.currencies.join(", ")}`;
  return null;
}

export function revenueOptions(insight: InsightSpec): RevenueOptions {
  return {
    measure: insight.revenue_measure ?? "revenue",
    measureNamed: insight.revenue_measure !== undefined,
    currency: insight.currency === undefined ? null : insight.currency.toUpperCase(),
  };
}
