// Revenue: per currency and interval, the sum of integer minor units (`property` of each
// series, default `amount`) from the series' events, refund series counted negative. Amounts
// that are not whole numbers are left out: money is never a float. The currency is the
// series' `currency_property` (default `currency`) in upper case; events without one form the
// row of currency null. Sums are weighted by 1 / `$sample_rate` and rounded half away from
// zero (exact unless sampled data is weighted to fractions).
import { BucketMap } from "../buckets.ts";
import { checkAnswerCells } from "../answer-size.ts";
import { numbersAsText } from "../columns.ts";
import { numericValues } from "../numeric.ts";
import type { QueryData } from "../query-data.ts";
import { baseSelection, columnsNeeded, seriesSelection } from "../selection.ts";
import { WordIds } from "../../storage/word-ids.ts";
import type { Query } from "../ir/query.ts";

export interface RevenueRow {
  currency: string | null;
  /** Minor units per interval. */
  values: number[];
  total: number;
}

export interface RevenueResult {
  kind: "revenue";
  interval: string;
  time_zone: string;
  buckets: string[];
  /** One row per currency seen, by currency code (null last). */
  rows: RevenueRow[];
}

/** Rounds half away from zero (as SQL's round). */
export const roundMinor = (value: number) => Math.sign(value) * Math.round(Math.abs(value)) + 0;

export function revenueFrom(query: Query, labels: string[], rows: RevenueRow[]): RevenueResult {
  const ordered = [...rows].sort((a, b) => (a.currency === b.currency ? 0 : a.currency === null ? 1 : b.currency === null ? -1 : a.currency < b.currency ? -1 : 1));
  return { kind: "revenue", interval: query.interval, time_zone: query.timeZone, buckets: labels, rows: ordered };
}

export async function revenue(data: QueryData): Promise<RevenueResult> {
  const query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const buckets = new BucketMap(query);
  const currencies = new WordIds();
  // sums[currency id + 1]: unrounded minor units per bucket (slot 0: no currency).
  const sums: (Float64Array | undefined)[] = [];
  let rowCount = 0;
  // A currency property may hold any text, so the rows are bounded as they appear.
  const newRow = () => {
    checkAnswerCells(
      [{ count: ++rowCount, name: "currencies" }, { count: buckets.count, name: `${query.interval} intervals` }],
      data.answerCellsMax,
      "use a longer interval or a shorter date range, or filter on fewer currencies",
    );
    return new Float64Array(buckets.count);
  };
  for (const ref of data.chunksToRead) {
    const chunk = await data.load(ref, columns);
    const base = baseSelection(chunk, query);
    const timestamps = chunk.timestamps;
    const weights = chunk.weights;
    for (const series of query.series) {
      const selection = seriesSelection(chunk, base, series);
      if (selection.length === 0) continue;
      const amounts = numericValues(chunk.eventProperty(series.property!));
      const currencyColumn = chunk.eventProperty(series.currencyProperty);
      const currency = currencyColumn.kind === "number" ? numbersAsText(currencyColumn) : currencyColumn;
      const slots = Int32Array.from(currency.words, (word) => currencies.id(word.toUpperCase()) + 1);
      const sign = series.refund ? -1 : 1;
      for (let i = 0; i < selection.length; i++) {
        const row = selection[i]!;
        const amount = amounts[row]!;
        if (!Number.isInteger(amount)) continue;
        const code = currency.codes[row]!;
        const slot = code < 0 ? 0 : slots[code]!;
        const cell = (sums[slot] ??= newRow());
        cell[buckets.bucketOf(timestamps[row]!)]! += sign * amount * (weights ? weights[row]! : 1);
      }
    }
  }
  const rows: RevenueRow[] = [];
  sums.forEach((cell, slot) => {
    if (!cell) return;
    rows.push({ currency: slot === 0 ? null : currencies.words[slot - 1]!, values: Array.from(cell, roundMinor), total: roundMinor(cell.reduce((sum, value) => sum + value, 0)) });
  });
  return revenueFrom(query, buckets.labels, rows);
}
