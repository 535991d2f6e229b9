// A seeded dataset of subscription lifecycles for the revenue measures (engine tests): persons
// (a tenth merged into another) with zero to three subscriptions each, every subscription a
// run of the events the payment-provider webhooks write (engine/revenue-events.ts): trials,
// starts, renewals, upgrades, downgrades, cancellations, expiries and restarts, with charges
// and refunds (some sampled), in several currencies (one the rate table lacks, one in lower
// case, some without), same-millisecond events, subscription ids shared between persons or
// written as numbers, and hostile values (mrr not a whole number, negative, text; no id).
import type { StoredEvent } from "../../storage/event-record.ts";
import { revenueEvents } from "../../engine/revenue-events.ts";
import { storedEvent } from "../storage/fixtures.ts";
import { datasetOf, pick, seededRandom, type Dataset } from "./dataset.ts";

export interface SubscriptionDatasetOptions {
  seed: number;
  persons: number;
  /** Lifecycles start in [start, start + days / 2) and run on for up to days / 2 more. */
  start: number;
  days: number;
}

const currencies = ["EUR", "EUR", "USD", "USD", "GBP", "JPY", "usd", "XYZ", null] as const;
const prices: Record<string, number[]> = { JPY: [980, 2900, 4800], default: [900, 1900, 4900, 999] };
const dayMs = 86_400_000;

export async function buildSubscriptionDataset(options: SubscriptionDatasetOptions): Promise<Dataset> {
  const random = seededRandom(options.seed);
  const canonical = Int32Array.from({ length: options.persons }, (_, index) => index);
  for (let index = 1; index < options.persons; index++) if (random() < 0.1) canonical[index] = canonical[Math.floor(random() * index)]!;
  const events: StoredEvent[] = [];
  const end = options.start + options.days * dayMs;
  for (let person = 0; person < options.persons; person++) {
    const subscriptions = pick(random, [0, 1, 1, 1, 2, 2, 3]);
    for (let s = 0; s < subscriptions; s++) {
      const currency = pick(random, currencies);
      const list = prices[currency?.toUpperCase() === "JPY" ? "JPY" : "default"]!;
      const id: string | number = random() < 0.1 ? "shared-sub" : random() < 0.15 ? 7000 + person * 10 + s : `sub_${person}_${s}`;
      const provider = pick(random, ["stripe", "app_store"]);
      let at = options.start + Math.floor(random() * options.days * dayMs / 2);
      let mrr = 0;
      const emit = (event: string, properties: Record<string, unknown>, sampled = false) => {
        if (at >= end) return;
        const withId = random() < 0.03 ? {} : { subscription_id: id };
        events.push(storedEvent({
          uuid: Bun.randomUUIDv7(), event, timestamp: at, distinct_id: `user-${person}`, person_index: person,
          sample_rate: sampled && random() < 0.2 ? pick(random, [0.5, 0.25]) : 1, lib_name: "import",
          properties: { ...withId, ...(currency === null ? {} : { currency }), provider, ...properties },
        }));
      };
      const state = (event: string, value: number) => {
        mrr = value;
        const hostile = random() < 0.04 ? pick(random, [12.5, -100, "abc", "1900"]) : null;
        // A sample rate on a subscription event is ignored (state is not weighted).
        emit(event, { mrr: hostile ?? value }, true);
      };
      const charge = () => {
        if (mrr <= 0) return;
        emit(revenueEvents.charge, { amount: mrr }, true);
        if (random() < 0.15) emit(revenueEvents.refund, { amount: Math.floor(mrr / pick(random, [1, 2, 3])) }, true);
      };
      if (random() < 0.4) {
        state(revenueEvents.trialStarted, 0);
        at += Math.floor(random() * 14 * dayMs);
        state(revenueEvents.trialConverted, pick(random, list));
      } else state(revenueEvents.subscriptionStarted, pick(random, list));
      charge();
      const steps = 1 + Math.floor(random() * 8);
      for (let step = 0; step < steps; step++) {
        // Sometimes the next event lands on the same millisecond (a tie the engines settle alike).
        if (random() > 0.12) at += Math.floor(random() * (random() < 0.5 ? 3 : 20) * dayMs);
        const move = pick(random, ["renew", "renew", "upgrade", "downgrade", "cancel", "expire", "restart"]);
        if (move === "renew" && mrr > 0) {
          state(revenueEvents.subscriptionRenewed, mrr);
          charge();
        } else if (move === "upgrade" && mrr > 0) state(revenueEvents.subscriptionUpgraded, mrr + pick(random, [100, 1000, 3000]));
        else if (move === "downgrade" && mrr > 0) state(revenueEvents.subscriptionDowngraded, Math.max(1, mrr - pick(random, [100, 500, 800])));
        else if (move === "cancel" && mrr > 0) state(revenueEvents.subscriptionCancelled, mrr);
        else if (move === "expire") state(revenueEvents.subscriptionExpired, 0);
        else if (move === "restart" && mrr === 0) {
          state(revenueEvents.subscriptionStarted, pick(random, list));
          charge();
        }
      }
    }
    // Other activity the measures must not count.
    for (let i = 0; i < 3; i++) {
      events.push(storedEvent({ event: "page_viewed", timestamp: options.start + Math.floor(random() * options.days * dayMs), distinct_id: `user-${person}`, person_index: person, properties: { amount: 5, mrr: 100, subscription_id: "x", currency: "EUR" } }));
    }
  }
  events.sort((a, b) => a.timestamp - b.timestamp);
  return datasetOf(events, { canonical, compactRows: 300 });
}

/** Random revenue documents naming a measure (and, half of the time, a target currency) over the dataset above. */
export function randomRevenueMeasureIr(measure: string, start: number, days: number) {
  return (random: () => number): Record<string, unknown> => {
    const interval = pick(random, ["hour", "day", "day", "week", "month"]);
    const spans: Record<string, number> = { hour: 2, day: 20, week: 50, month: 100 };
    const from = start + Math.floor(random() * (days - 10)) * dayMs + (random() < 0.5 ? Math.floor(random() * dayMs) : 0);
    const to = Math.min(start + (days + 5) * dayMs, from + Math.ceil((0.3 + random()) * spans[interval]! * dayMs / 1.3));
    const insight: Record<string, unknown> = { kind: "revenue", interval };
    if (measure !== "revenue" || random() < 0.5) insight.revenue_measure = measure;
    if (measure === "revenue") insight.series = [{ event: revenueEvents.charge }, { event: revenueEvents.refund, refund: true }];
    if (random() < 0.6) insight.currency = pick(random, ["EUR", "USD", "JPY", "gbp"]);
    const filters = random() < 0.2 ? [{ type: "event", key: "provider", operator: pick(random, ["eq", "neq"]), value: "stripe" }] : [];
    return { ir_version: 1, date_range: { from: new Date(from).toISOString(), to: new Date(to).toISOString() }, filters, insight };
  };
}
