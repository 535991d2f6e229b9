// The subscription measures of revenue (docs/revenue-measures.md): MRR, ARR, MRR movements
// and churn rate, from the subscription events' `mrr` (integer minor units of a subscription's
// monthly recurring revenue right after the event).
//
// A subscription is (person, `subscription_id`); its state at an instant is the `mrr` and
// currency of its latest event before that instant, however long before the range (so these
// measures read every stored event before `to`: the cost of MRR being state). Of a
// subscription's events at the same millisecond, the one with the greatest mrr counts (then
// the greatest currency code). A person's MRR in a currency is the sum of their subscriptions
// in it. Events whose `mrr` is not a whole number >= 0 are left out; subscription events are
// not weighted by sampling (the webhooks that write them never sample).
//
// Instants: the range's start, each interval's end (the next interval's start) and the
// range's end. Per interval and person (and currency), before = MRR at its start, after = at
// its end:
//   new          before 0, after > 0, never > 0 before the interval's start (+after)
//   reactivated  before 0, after > 0, > 0 at some earlier time           (+after)
//   expansion    0 < before < after                                     (after - before)
//   contraction  0 < after < before                                     (after - before, negative)
//   churned      before > 0, after 0                                     (-before)
//   net          after - before, summed over persons (MRR's change)
// Churn rate: customer_churn = persons churned / persons with MRR > 0 at the start;
// revenue_churn = MRR lost by contraction and churn / MRR at the start; both 0 when nothing
// was there to lose, rounded to 6 decimal places; the totals take the whole range as one period.
import { BucketMap, bucketKeys } from "../buckets.ts";
import { checkAnswerCells } from "../answer-size.ts";
import { numbersAsText, type Column, type TextColumn } from "../columns.ts";
import { numericValues } from "../numeric.ts";
import type { QueryData } from "../query-data.ts";
import { baseSelection, columnsNeeded, seriesSelection } from "../selection.ts";
import { WordIds } from "../../storage/word-ids.ts";
import type { Query } from "../ir/query.ts";
import { bucketNaiveStart, instantOf } from "../time-zone.ts";
import { ZoneOffsets } from "../zone-offsets.ts";
import { revenueProperties } from "../revenue-events.ts";
import { revenueFrom, type RevenueResult, type RevenueRow } from "./revenue-result.ts";
import { conversionInto, type CurrencyConversion } from "../revenue/conversion.ts";

export const movementLabels = ["new", "expansion", "contraction", "churned", "reactivated", "net"] as const;
export const churnLabels = ["customer_churn", "revenue_churn"] as const;
const ratioDecimals = 1e6;

/** n / d rounded to 6 decimal places; 0 when d is 0. */
export const churnRatio = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * ratioDecimals) / ratioDecimals);

/** The instants MRR is taken at: the range's start, each interval's end, the range's end (buckets + 1). */
export function mrrInstants(query: Query): number[] {
  const keys = bucketKeys(query.interval, ZoneOffsets.of(query.timeZone), query.from, query.to);
  const instants = [query.from];
  for (const key of keys.slice(1)) {
    const start = new Date(bucketNaiveStart(query.interval, key));
    instants.push(instantOf(query.timeZone, start.getUTCFullYear(), start.getUTCMonth() + 1, start.getUTCDate(), start.getUTCHours()));
  }
  instants.push(query.to);
  return instants;
}

const asText = (column: Column): TextColumn => (column.kind === "number" ? numbersAsText(column) : column);

/** Code-point order of two texts (as SQL compares them; JavaScript's `<` compares UTF-16 units). */
function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Subscription events as parallel arrays (a few per subscription; plain arrays grow cheaply). */
interface SubscriptionEvents {
  at: number[];
  person: number[];
  subscription: number[];
  slot: number[];
  mrr: number[];
}

async function readSubscriptionEvents(data: QueryData, currencies: WordIds, conversion: CurrencyConversion | null): Promise<SubscriptionEvents> {
  const query = data.query;
  const { columns, eventProperties } = columnsNeeded(query);
  await data.prepare(eventProperties);
  const read = [...columns, "person_index"];
  const subscriptions = new WordIds();
  const targetSlot = conversion ? currencies.id(conversion.target) + 1 : -1;
  const events: SubscriptionEvents = { at: [], person: [], subscription: [], slot: [], mrr: [] };
  for (const ref of data.chunksToRead) {
    const chunk = await data.load(ref, read);
    const base = baseSelection(chunk, query, query.scanFrom);
    if (base.length === 0) continue;
    const timestamps = chunk.timestamps;
    const persons = chunk.persons;
    const mrrs = numericValues(chunk.eventProperty(revenueProperties.mrr));
    const subscription = asText(chunk.eventProperty(revenueProperties.subscriptionId));
    const subscriptionIds = subscriptions.remap(subscription.words);
    const currency = asText(chunk.eventProperty(revenueProperties.currency));
    const codes = currency.words.map((word) => word.toUpperCase());
    const converted = Uint8Array.from(codes, (code) => (conversion?.converts(code) ? 1 : 0));
    const slots = Int32Array.from(codes, (code, index) => (converted[index] === 1 ? targetSlot : currencies.id(code) + 1));
    for (const series of query.series) {
      const selection = seriesSelection(chunk, base, series);
      for (let i = 0; i < selection.length; i++) {
        const row = selection[i]!;
        let mrr = mrrs[row]!;
        const id = subscription.codes[row]!;
        if (!(Number.isInteger(mrr) && mrr >= 0) || id < 0) continue;
        const code = currency.codes[row]!;
        const at = timestamps[row]!;
        if (code >= 0 && converted[code] === 1) mrr = conversion!.convert(mrr, codes[code]!, at);
        events.at.push(at);
        events.person.push(persons[row]!);
        events.subscription.push(subscriptionIds[id]!);
        events.slot.push(code < 0 ? 0 : slots[code]!);
        events.mrr.push(mrr);
      }
    }
  }
  return events;
}

/** Per person and currency: the change of their MRR at an instant (a subscription's state moved). */
interface Changes {
  person: number[];
  slot: number[];
  at: number[];
  delta: number[];
}

/** Each subscription's states in time order (same-millisecond ties settled), as changes of person MRR. */
function changesOf(events: SubscriptionEvents, currencies: WordIds): Changes {
  const { at, person, subscription, slot, mrr } = events;
  const word = (index: number) => (slot[index] === 0 ? null : currencies.words[slot[index]! - 1]!);
  const order = Uint32Array.from(at.keys()).sort((a, b) =>
    person[a]! - person[b]! || subscription[a]! - subscription[b]! || at[a]! - at[b]! || mrr[b]! - mrr[a]! || compareText(word(b), word(a)));
  const sameSubscription = (a: number, b: number) => person[a] === person[b] && subscription[a] === subscription[b];
  // The first of a subscription's events at one millisecond is its state from then on.
  const states: number[] = [];
  for (let i = 0; i < order.length; i++) {
    const event = order[i]!;
    const previous = i > 0 ? order[i - 1]! : -1;
    if (previous < 0 || !sameSubscription(previous, event) || at[previous] !== at[event]) states.push(event);
  }
  const changes: Changes = { person: [], slot: [], at: [], delta: [] };
  const add = (changeSlot: number, instant: number, owner: number, change: number) => {
    changes.person.push(owner);
    changes.slot.push(changeSlot);
    changes.at.push(instant);
    changes.delta.push(change);
  };
  for (let i = 0; i < states.length; i++) {
    const state = states[i]!;
    const previous = i > 0 ? states[i - 1]! : -1;
    if (previous >= 0 && sameSubscription(previous, state)) add(slot[previous]!, at[state]!, person[state]!, -mrr[previous]!);
    add(slot[state]!, at[state]!, person[state]!, mrr[state]!);
  }
  return changes;
}

/** Per currency slot: what the measure sums over persons, bucket by bucket. */
interface SlotSums {
  mrr: Float64Array;
  movements: Float64Array[];
  customers: Float64Array;
  churned: Float64Array;
  startMrr: Float64Array;
  lost: Float64Array;
  /** The range as one period: customers, churned, MRR at the start, lost. */
  range: [number, number, number, number];
}

export async function subscriptionRevenue(data: QueryData): Promise<RevenueResult> {
  const query = data.query;
  const measure = query.revenue.measure;
  const buckets = new BucketMap(query);
  const n = buckets.count;
  const instants = mrrInstants(query);
  const conversion = conversionInto(query.revenue.currency);
  const currencies = new WordIds();
  const changes = changesOf(await readSubscriptionEvents(data, currencies, conversion), currencies);
  const labelsPerCurrency = measure === "mrr_movements" ? movementLabels.length : measure === "churn_rate" ? churnLabels.length : 1;
  const sums: (SlotSums | undefined)[] = [];
  let slotCount = 0;
  const slotSums = (slot: number): SlotSums => {
    let found = sums[slot];
    if (found) return found;
    checkAnswerCells(
      [{ count: ++slotCount * labelsPerCurrency, name: "rows (currencies x labels)" }, { count: n, name: `${query.interval} intervals` }],
      data.answerCellsMax,
      "use a longer interval or a shorter date range, or filter on fewer currencies",
    );
    found = {
      mrr: new Float64Array(n), movements: movementLabels.map(() => new Float64Array(n)),
      customers: new Float64Array(n), churned: new Float64Array(n), startMrr: new Float64Array(n), lost: new Float64Array(n), range: [0, 0, 0, 0],
    };
    sums[slot] = found;
    return found;
  };

  const { person, slot, at, delta } = changes;
  const order = Uint32Array.from(at.keys()).sort((a, b) => person[a]! - person[b]! || slot[a]! - slot[b]! || at[a]! - at[b]!);
  // MRR of one person in one currency at each instant.
  const values = new Float64Array(n + 1);
  for (let start = 0; start < order.length;) {
    const first = order[start]!;
    let end = start;
    let sum = 0;
    let firstPositive = Infinity;
    let next = 0;
    while (end < order.length && person[order[end]!] === person[first] && slot[order[end]!] === slot[first]) {
      const instant = at[order[end]!]!;
      while (next <= n && instants[next]! <= instant) values[next++] = sum;
      while (end < order.length && person[order[end]!] === person[first] && slot[order[end]!] === slot[first] && at[order[end]!] === instant) sum += delta[order[end++]!]!;
      if (sum > 0 && firstPositive === Infinity) firstPositive = instant;
    }
    while (next <= n) values[next++] = sum;
    start = end;
    addPerson(slotSums(slot[first]!), values, firstPositive, instants);
  }

  const rows: RevenueRow[] = [];
  sums.forEach((slotSum, slotIndex) => {
    if (!slotSum) return;
    const currency = slotIndex === 0 ? null : currencies.words[slotIndex - 1]!;
    rows.push(...measureRows(measure, currency, slotSum, n));
  });
  return revenueFrom(query, buckets.labels, rows);
}

/** One person's MRR in one currency at each instant, added to the currency's sums. */
function addPerson(sums: SlotSums, values: Float64Array, firstPositive: number, instants: number[]): void {
  const n = values.length - 1;
  const [fresh, expansion, contraction, churned, reactivated, net] = sums.movements as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
  for (let k = 0; k < n; k++) {
    const before = values[k]!;
    const after = values[k + 1]!;
    sums.mrr[k]! += after;
    net[k]! += after - before;
    if (before === 0) {
      if (after > 0) (firstPositive < instants[k]! ? reactivated : fresh)[k]! += after;
    } else if (after > before) expansion[k]! += after - before;
    else if (after === 0) churned[k]! -= before;
    else if (after < before) contraction[k]! += after - before;
    if (before > 0) {
      sums.customers[k]!++;
      sums.startMrr[k]! += before;
      if (after === 0) sums.churned[k]!++;
      if (after < before) sums.lost[k]! += before - after;
    }
  }
  const before = values[0]!;
  const after = values[n]!;
  if (before > 0) {
    sums.range[0]++;
    sums.range[2] += before;
    if (after === 0) sums.range[1]++;
    if (after < before) sums.range[3] += before - after;
  }
}

function measureRows(measure: string, currency: string | null, sums: SlotSums, n: number): RevenueRow[] {
  const sumOf = (values: Float64Array) => values.reduce((total, value) => total + value, 0);
  switch (measure) {
    case "mrr":
      return [{ currency, values: Array.from(sums.mrr), total: sums.mrr[n - 1]! }];
    case "arr":
      return [{ currency, values: Array.from(sums.mrr, (value) => 12 * value), total: 12 * sums.mrr[n - 1]! }];
    case "mrr_movements":
      return movementLabels.map((label, index) => ({ currency, label, values: Array.from(sums.movements[index]!, (value) => value + 0), total: sumOf(sums.movements[index]!) + 0 }));
    default: {
      const [customers, churned, startMrr, lost] = sums.range;
      return [
        { currency, label: churnLabels[0], values: Array.from(sums.churned, (count, k) => churnRatio(count, sums.customers[k]!)), total: churnRatio(churned, customers) },
        { currency, label: churnLabels[1], values: Array.from(sums.lost, (amount, k) => churnRatio(amount, sums.startMrr[k]!)), total: churnRatio(lost, startMrr) },
      ];
    }
  }
}
