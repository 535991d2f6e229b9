// The revenue kind's answer: rows per currency (and per label where a measure has several
// rows per currency), ordered by currency with the target currency of a conversion first.
import type { Query } from "../ir/query.ts";
import type { RevenueMeasure } from "../ir/schema.ts";

export interface RevenueRow {
  currency: string | null;
  /** What the row counts where a measure has several rows per currency (mrr_movements, churn_rate). */
  label?: string;
  /** Minor units per interval (churn_rate: ratios). */
  values: number[];
  total: number;
}

export interface RevenueResult {
  kind: "revenue";
  interval: string;
  time_zone: string;
  /** The measure, when the document named one. */
  measure?: RevenueMeasure;
  /** The currency amounts were converted into, when the document named one. */
  currency?: string;
  buckets: string[];
  /** One row per currency seen (per label within it, in the measure's label order), by currency code (the target currency first, null last). */
  rows: RevenueRow[];
}

const currencyRank = (query: Query, currency: string | null) => (currency === null ? 2 : currency === query.revenue.currency ? 0 : 1);

export function revenueFrom(query: Query, labels: string[], rows: RevenueRow[]): RevenueResult {
  const ordered = [...rows].sort((a, b) => {
    const rank = currencyRank(query, a.currency) - currencyRank(query, b.currency);
    if (rank !== 0 || a.currency === b.currency) return rank;
    return a.currency! < b.currency! ? -1 : 1;
  });
  const options = query.revenue;
  return {
    kind: "revenue",
    interval: query.interval,
    time_zone: query.timeZone,
    ...(options.measureNamed ? { measure: options.measure } : {}),
    ...(options.currency !== null ? { currency: options.currency } : {}),
    buckets: labels,
    rows: ordered,
  };
}

