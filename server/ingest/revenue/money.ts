// Money and MRR as revenue events carry them (engine/revenue-events.ts): integer minor units
// of an ISO 4217 currency, and the recurring price normalised to a month.
import { minorDigits } from "../minor-units.ts";

export type BillingPeriod = "day" | "week" | "month" | "year";

/** Months in one billing period of each kind (a week is 12/52 of a month, a day 12/365). */
const monthsPer: Record<BillingPeriod, number> = { day: 12 / 365, week: 12 / 52, month: 1, year: 12 };

/** Half away from zero, as engine/revenue-events.ts says MRR is rounded. */
export const roundHalfAway = (value: number) => Math.sign(value) * Math.round(Math.abs(value));

/** `amount` major units of `currency` in minor units; null for a code that is not ISO 4217 or an amount that is not finite. */
export function toMinorUnits(amount: number, currency: string): number | null {
  const digits = minorDigits(currency);
  if (digits === null || !Number.isFinite(amount)) return null;
  return roundHalfAway(amount * 10 ** digits);
}

/** The monthly recurring revenue of `amountMinor` charged every `count` `period`s. */
export function monthlyRecurring(amountMinor: number, period: BillingPeriod, count = 1): number {
  return roundHalfAway(amountMinor / (monthsPer[period] * count));
}
