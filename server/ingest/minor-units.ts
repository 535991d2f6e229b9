// Money as the drop-in formats send it, in major units (29.99 USD), turned into what native
// events carry: integer minor units of the currency (2999), by the currency's exponent in ISO
// 4217 (JPY 0, USD 2, KWD 3, as Intl knows them).
import { roundMinor } from "../../engine/revenue/conversion.ts";
import type { JsonObject } from "./json-values.ts";

/** ISO 4217 codes the runtime knows. */
export const currencyCodes: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));
const exponents = new Map<string, number>();

/** Decimal digits of a currency's minor unit (2 for USD, 0 for JPY), or null for a code that is not ISO 4217. */
export function minorDigits(currency: string): number | null {
  if (!currencyCodes.has(currency)) return null;
  let digits = exponents.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    exponents.set(currency, digits);
  }
  return digits;
}

/**
 * `value` major units as integer minor units with `digits` decimals, rounded half away from zero
 * as written in decimal: 1.005 USD is 101 cents, although 1.005 * 100 is 100.49999999999999 in
 * binary floating point (15 significant digits undo the multiplication's error).
 */
export function minorFromMajor(value: number, digits: number): number {
  return roundMinor(Number((value * 10 ** digits).toPrecision(15)));
}

/**
 * Turns the numeric amounts `names` of `properties` from major into minor units of
 * `properties.currency`, which is upper-cased, in place. Nothing changes without a currency
 * text; with one that is not ISO 4217 only its case does, and the native rules refuse it.
 */
export function amountsInMinorUnits(properties: JsonObject, names: readonly string[]): void {
  if (typeof properties.currency !== "string") return;
  const currency = properties.currency.toUpperCase();
  properties.currency = currency;
  const digits = minorDigits(currency);
  if (digits === null) return;
  for (const name of names) {
    const value = properties[name];
    if (typeof value === "number" && Number.isFinite(value)) properties[name] = minorFromMajor(value, digits);
  }
}
