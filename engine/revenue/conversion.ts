// Converting revenue amounts into one currency: each event's amount (integer minor units)
// times the ratio of the two currencies' reference rates on the event's UTC day, rounded half
// away from zero (as SQL's round), with the two currencies' minor units told apart (a yen has
// none, a euro 100 cents: ISO 4217's exponents as Intl knows them), so every converted amount is again integer minor units and
// the SQL compiler's DuckDB answer agrees to the unit. Amounts already in the target currency
// are not touched; amounts in a currency the table does not have (or none) stay as they are,
// in their own row of the answer, so no money is lost or invented.
import { dayText, type ReferenceRates, referenceRates, utcDay } from "./rates.ts";

/** Rounds half away from zero (as SQL's round). */
export const roundMinor = (value: number) => Math.sign(value) * Math.round(Math.abs(value)) + 0;

/** An amount that cannot be converted because the table has no rate on or before its day. */
export class RevenueRateError extends Error {
  readonly code = "invalid_query";
  readonly status = 400;
}

export const noRateMessage = (currency: string, day: number, rates: ReferenceRates) =>
  `no ECB reference rate for ${currency} on or before ${dayText(day)} (the rate table ${rates.file} starts ${dayText(rates.firstDayOf(currency))} for ${currency})`;

/** Digits of a currency's minor unit (ISO 4217 through Intl: JPY 0, EUR 2, KWD 3). */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * What a minor-unit amount of `source` is multiplied and then divided by, after the rate ratio,
 * to be in the target's minor units (one of them is 1; powers of ten written as integers so
 * SQL and JavaScript compute the same doubles).
 */
export function minorScale(source: string, target: string): { multiply: number; divide: number } {
  const shift = minorDigits(target) - minorDigits(source);
  return { multiply: shift > 0 ? 10 ** shift : 1, divide: shift < 0 ? 10 ** -shift : 1 };
}

export class CurrencyConversion {
  private readonly scales = new Map<string, { multiply: number; divide: number }>();

  constructor(readonly target: string, readonly rates: ReferenceRates) {}

  /** Whether amounts in `currency` (upper case) are converted into the target. */
  converts(currency: string | null): boolean {
    return currency !== null && (currency === this.target || this.rates.has(currency));
  }

  /** `amount` of a currency that converts(), at `instant`, in the target's minor units. */
  convert(amount: number, currency: string, instant: number): number {
    if (currency === this.target) return amount;
    const day = utcDay(instant);
    const target = this.rates.perEuro(this.target, day);
    if (target === null) throw new RevenueRateError(noRateMessage(this.target, day, this.rates));
    const source = this.rates.perEuro(currency, day);
    if (source === null) throw new RevenueRateError(noRateMessage(currency, day, this.rates));
    let scale = this.scales.get(currency);
    if (!scale) this.scales.set(currency, (scale = minorScale(currency, this.target)));
    return roundMinor(((amount * (target / source)) * scale.multiply) / scale.divide);
  }
}

/** The conversion into `target` with the process's rate table, or null without a target. */
export const conversionInto = (target: string | null) => (target === null ? null : new CurrencyConversion(target, referenceRates()));
