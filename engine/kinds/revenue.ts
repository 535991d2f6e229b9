// Revenue: per currency and interval, the sum of integer minor units (`property` of each
// series, default `amount`) from the series' events, refund series counted negative. Amounts
// that are not whole numbers are left out: money is never a float. The currency is the
// series' `currency_property` (default `currency`) in upper case; events without one form the
// row of currency null. Sums are weighted by 1 / `$sample_rate` and rounded half away from
// zero (exact unless sampled data is weighted to fractions).
//
// `revenue_measure` picks another measure (docs/revenue-measures.md): `refunds` and
// `revenue_per_person` are sums of this kind over fixed series (ir/revenue-options.ts); the
// subscription measures (mrr, arr, mrr_movements, churn_rate) are in revenue-mrr.ts. With
// `currency`, each convertible amount is converted at its UTC day's reference rate first
// (revenue/conversion.ts).
import { BucketMap } from "../buckets.ts";
import { checkAnswerCells } from "../answer-size.ts";
import { numbersAsText } from "../columns.ts";
import { numericValues } from "../numeric.ts";
import type { QueryData } from "../query-data.ts";
import { baseSelection, columnsNeeded, seriesSelection } from "../selection.ts";
import { WordIds } from "../../storage/word-ids.ts";
import { readsSubscriptionHistory } from "../ir/revenue-options.ts";
import { conversionInto, roundMinor } from "../revenue/conversion.ts";
import { subscriptionRevenue } from "./revenue-mrr.ts";
import { DistinctPayers } from "./revenue-payers.ts";
import { revenueFrom, type RevenueResult, type RevenueRow } from "./revenue-result.ts";

export { roundMinor };

export { revenueFrom, type RevenueResult, type RevenueRow };

export async function revenue(data: QueryData): Promise<RevenueResult> {
  if (readsSubscriptionHistory(data.query.revenue)) return subscriptionRevenue(data);
  return revenueSums(data);
}

/** revenue, refunds and revenue_per_person: sums per currency and interval. */
async function revenueSums(data: QueryData): Promise<RevenueResult> {
  const query = data.query;
  const perPerson = query.revenue.measure === "revenue_per_person";
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const read = perPerson ? [...columns, "person_index"] : columns;
  const buckets = new BucketMap(query);
  const conversion = conversionInto(query.revenue.currency);
  const currencies = new WordIds();
  const targetSlot = conversion ? currencies.id(conversion.target) + 1 : -1;
  const payers = perPerson ? new DistinctPayers(buckets.count) : null;
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
    const chunk = await data.load(ref, read);
    const base = baseSelection(chunk, query);
    const timestamps = chunk.timestamps;
    const weights = chunk.weights;
    const persons = perPerson ? chunk.persons : null;
    for (const series of query.series) {
      const selection = seriesSelection(chunk, base, series);
      if (selection.length === 0) continue;
      const amounts = numericValues(chunk.eventProperty(series.property!));
      const currencyColumn = chunk.eventProperty(series.currencyProperty);
      const currency = currencyColumn.kind === "number" ? numbersAsText(currencyColumn) : currencyColumn;
      const codes = currency.words.map((word) => word.toUpperCase());
      // Per dictionary word: its row's slot, and whether its amounts are converted first.
      const converted = Uint8Array.from(codes, (code) => (conversion?.converts(code) ? 1 : 0));
      const slots = Int32Array.from(codes, (code, index) => (converted[index] === 1 ? targetSlot : currencies.id(code) + 1));
      const sign = series.refund ? -1 : 1;
      const paying = payers !== null && !series.refund;
      for (let i = 0; i < selection.length; i++) {
        const row = selection[i]!;
        let amount = amounts[row]!;
        if (!Number.isInteger(amount)) continue;
        const code = currency.codes[row]!;
        const slot = code < 0 ? 0 : slots[code]!;
        const at = timestamps[row]!;
        if (code >= 0 && converted[code] === 1) amount = conversion!.convert(amount, codes[code]!, at);
        const bucket = buckets.bucketOf(at);
        const cell = (sums[slot] ??= newRow());
        cell[bucket]! += sign * amount * (weights ? weights[row]! : 1);
        if (paying) payers.add(slot, bucket, persons![row]!);
      }
    }
  }
  const counts = payers?.counts();
  const rows: RevenueRow[] = [];
  sums.forEach((cell, slot) => {
    if (!cell) return;
    const currency = slot === 0 ? null : currencies.words[slot - 1]!;
    const total = cell.reduce((sum, value) => sum + value, 0);
    if (!counts) {
      rows.push({ currency, values: Array.from(cell, roundMinor), total: roundMinor(total) });
      return;
    }
    const perBucket = counts.perBucket(slot);
    rows.push({ currency, values: Array.from(cell, (value, bucket) => perPersonMinor(value, perBucket[bucket]!)), total: perPersonMinor(total, counts.overRange(slot)) });
  });
  return revenueFrom(query, buckets.labels, rows);
}

/** Revenue over the persons who paid, rounded half away from zero; 0 when nobody paid. */
export const perPersonMinor = (minor: number, persons: number) => (persons === 0 ? 0 : roundMinor(minor / persons));
