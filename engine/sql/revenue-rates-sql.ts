// Currency conversion in SQL, as revenue/conversion.ts converts: the reference rate table read
// from the same file the executor reads (read_csv of its absolute path, unpivoted to one row
// per day and currency, the euro at 1 on every day), each amount joined to its currency's and
// the target's latest rate on or before its UTC day (ASOF joins), the minor units' scale, and
// a rounding half away from zero per amount. An amount with no rate on or before its day fails
// the query, naming the currency and the day.
import { minorScale } from "../revenue/conversion.ts";
import { baseCurrency, type ReferenceRates } from "../revenue/rates.ts";
import { literal } from "./params.ts";

/** An instant's UTC day (days since 1970-01-01), as rates.ts utcDay. */
export const utcDaySql = (column: string) => `CAST(floor(epoch_ms(${column}) / 86400000) AS BIGINT)`;

/** CTEs `rate_file`, `rates` (day, currency, per_euro), `target_rates` (day, per_euro) and `minor_scales` (currency, multiply, divide). */
export function ratesCtes(target: string, rates: ReferenceRates): string {
  const scales = rates.currencies.map((currency) => ({ currency, ...minorScale(currency, target) })).filter((scale) => scale.multiply !== 1 || scale.divide !== 1);
  const scaleRows = scales.length === 0 ? `SELECT NULL::VARCHAR AS currency, 1 AS multiply, 1 AS divide WHERE FALSE` : `VALUES ${scales.map((scale) => `(${literal(scale.currency)}, ${scale.multiply}, ${scale.divide})`).join(", ")}`;
  return [
    `rate_file AS (SELECT * FROM read_csv(${literal(rates.file)}, header = true, all_varchar = true, nullstr = ['N/A', ''])),`,
    "rates AS (",
    `  SELECT datediff('day', DATE '1970-01-01', CAST("Date" AS DATE)) AS day, currency, CAST(per_euro AS DOUBLE) AS per_euro`,
    `  FROM (UNPIVOT rate_file ON COLUMNS(* EXCLUDE ("Date")) INTO NAME currency VALUE per_euro) WHERE regexp_full_match(currency, '[A-Z]{3}')`,
    `  UNION ALL SELECT datediff('day', DATE '1970-01-01', CAST("Date" AS DATE)), ${literal(baseCurrency)}, 1.0 FROM rate_file`,
    "),",
    `target_rates AS (SELECT day, per_euro FROM rates WHERE currency = ${literal(target)}),`,
    scales.length === 0 ? `minor_scales AS (${scaleRows})` : `minor_scales(currency, multiply, divide) AS (${scaleRows})`,
  ].join("\n");
}

const noRate = (currency: string, day: string) =>
  `error('no ECB reference rate for ' || ${currency} || ' on or before ' || strftime(DATE '1970-01-01' + CAST(${day} AS INTEGER), '%Y-%m-%d'))`;

/**
 * SELECT of `source` (with columns currency, upper case, `day` and `amountColumn`) with the
 * currency replaced by the target where converted and the amount converted; other columns
 * as they are (listed in `keep`).
 */
export function convertedSelect(source: string, amountColumn: string, keep: string[], target: string, rates: ReferenceRates): string {
  const known = rates.currencies.map(literal).join(", ");
  const t = literal(target);
  return [
    `  SELECT ${keep.map((column) => `a.${column}`).join(", ")}${keep.length > 0 ? ", " : ""}`,
    `    CASE WHEN a.currency IN (${known}) THEN ${t} ELSE a.currency END AS currency,`,
    `    CASE WHEN a.currency IS NULL OR a.currency = ${t} OR a.currency NOT IN (${known}) THEN a.${amountColumn}`,
    `      WHEN t.per_euro IS NULL THEN ${noRate(t, "a.day")}`,
    `      WHEN s.per_euro IS NULL THEN ${noRate("a.currency", "a.day")}`,
    `      ELSE round(((a.${amountColumn} * (t.per_euro / s.per_euro)) * coalesce(m.multiply, 1)) / coalesce(m.divide, 1)) END AS ${amountColumn}`,
    `  FROM ${source} a`,
    "  ASOF LEFT JOIN rates s ON s.currency = a.currency AND a.day >= s.day",
    "  ASOF LEFT JOIN target_rates t ON a.day >= t.day",
    "  LEFT JOIN minor_scales m ON m.currency = a.currency",
  ].join("\n");
}
