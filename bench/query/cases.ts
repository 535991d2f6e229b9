// The benchmark's queries: one Query IR document per insight kind the issue names, over the
// whole eight weeks of data. Event names are the generator's (Zipf by rank: $pageview is the
// most frequent, purchase_completed is rank 12 of 20), properties are its web SDK properties.
import type { QueryIrDocument } from "../../engine/ir/schema.ts";
import { rangeFrom, rangeTo } from "./data.ts";

export interface BenchCase {
  name: string;
  document: QueryIrDocument;
}

const dateRange = { from: rangeFrom, to: rangeTo };
const insightOf = (insight: QueryIrDocument["insight"]): QueryIrDocument => ({ ir_version: 1, date_range: dateRange, insight });

const funnelSteps = ["$pageview", "viewed_pricing", "started_trial", "checkout_started", "purchase_completed"];

export const benchCases: BenchCase[] = [
  {
    name: "trends total by $browser",
    document: insightOf({ kind: "trends", interval: "day", series: [{ event: "$pageview", math: "total" }], breakdown: { type: "event", property: "$browser" } }),
  },
  {
    name: "trends unique persons by person plan",
    document: insightOf({
      kind: "trends", interval: "day", series: [{ event: "$pageview", math: "unique_persons" }], breakdown: { type: "person", property: "plan" },
    }),
  },
  {
    // Every event carries a price: the percentile sees every row of the range.
    name: "trends p90 of price",
    document: insightOf({ kind: "trends", interval: "day", series: [{ event: null, math: "p90", property: "price" }] }),
  },
  {
    name: "funnel 3 steps",
    document: insightOf({ kind: "funnel", series: funnelSteps.slice(0, 3).map((event) => ({ event })) }),
  },
  {
    name: "funnel 5 steps",
    document: insightOf({ kind: "funnel", series: funnelSteps.map((event) => ({ event })) }),
  },
  {
    name: "retention weekly",
    document: insightOf({ kind: "retention", interval: "week", series: [{ event: "$pageview" }] }),
  },
  {
    name: "paths",
    document: insightOf({ kind: "paths" }),
  },
  {
    name: "lifecycle daily",
    document: insightOf({ kind: "lifecycle", interval: "day", series: [{ event: "$pageview" }] }),
  },
  {
    name: "stickiness daily",
    document: insightOf({ kind: "stickiness", interval: "day", series: [{ event: "$pageview" }] }),
  },
  {
    // The generator's price is an integer in minor units, with a currency code.
    name: "revenue daily",
    document: insightOf({ kind: "revenue", interval: "day", series: [{ event: "purchase_completed", property: "price", currency_property: "currency" }] }),
  },
];
