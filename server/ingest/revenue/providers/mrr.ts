// Monthly recurring revenue as engine/revenue-events.ts defines it: a recurring price
// normalised to a month (a yearly price / 12, a weekly one * 52 / 12, a daily one * 365 / 12),
// in integer minor units, rounded half away from zero once, after any sum (as the engine rounds).
import { roundMinor } from "../../../../engine/revenue/conversion.ts";

export type BillingPeriod = "day" | "week" | "month" | "year";
export const billingPeriods: readonly BillingPeriod[] = ["day", "week", "month", "year"];

const monthsPerPeriod: Record<BillingPeriod, number> = { day: 12 / 365, week: 12 / 52, month: 1, year: 12 };

/** The unrounded monthly share of `amountMinor` paid every `count` `period`s (sum these, then round). */
export function monthlyShare(amountMinor: number, period: BillingPeriod, count: number): number {
  return amountMinor / (monthsPerPeriod[period] * count);
}

/** Integer monthly minor units of one recurring price. */
export const monthlyMinor = (amountMinor: number, period: BillingPeriod, count: number): number =>
  roundMinor(monthlyShare(amountMinor, period, count));

export const isBillingPeriod = (value: unknown): value is BillingPeriod =>
  typeof value === "string" && (billingPeriods as readonly string[]).includes(value);
