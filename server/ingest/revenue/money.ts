// Money as revenue events carry it (engine/revenue-events.ts): integer minor units of an ISO
// 4217 currency (monthly normalisation is providers/mrr.ts).
import { minorDigits, minorFromMajor } from "../minor-units.ts";

/** `amount` major units of `currency` in minor units; null for a code that is not ISO 4217 or an amount that is not finite. */
export function toMinorUnits(amount: number, currency: string): number | null {
  const digits = minorDigits(currency);
  if (digits === null || !Number.isFinite(amount)) return null;
  return minorFromMajor(amount, digits);
}
