// Numbers as a person reads them: grouped digits, money in the project's currency (amounts
// arrive in integer minor units, as the engine and the spec keep them), shares as percentages.

const plain = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });

export const formatNumber = (value: number) => plain.format(value);

/** 1.2K, 3.4M: for axes and tight tiles. */
export const formatCompact = (value: number) => compact.format(value);

/** A ratio (0.25) as "25%". */
export const formatPercent = (ratio: number) => percent.format(ratio);

const currencyFormats = new Map<string, Intl.NumberFormat>();

function currencyFormat(currency: string): Intl.NumberFormat {
  let format = currencyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { style: "currency", currency });
    currencyFormats.set(currency, format);
  }
  return format;
}

/** An amount in minor units (cents) of `currency`, e.g. 12345 EUR → "€123.45"; JPY has no minor unit. */
export function formatMoney(minorUnits: number, currency: string): string {
  const format = currencyFormat(currency);
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minorUnits / 10 ** digits);
}
