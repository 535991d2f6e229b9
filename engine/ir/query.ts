// A validated Query IR document with every default filled in and dates evaluated: what the
// executor and the SQL compiler take. Built by validate.ts only.
import type { BucketInterval } from "../time-zone.ts";
import type { CohortFilterSpec, FilterSpec, InsightKind, MathValue, PropertyFilterSpec, RevenueMeasure } from "./schema.ts";

export type Filter = FilterSpec;
/** A filter on an event property, a person property or a fixed column. */
export type PropertyFilter = PropertyFilterSpec;
/** A filter on the event's person's cohort membership (cohort_id in lower case). */
export type CohortFilter = CohortFilterSpec;

export interface Series {
  /** null matches every event. */
  event: string | null;
  math: MathValue;
  /** The numeric property of sum/avg/min/max/p50/p90/p99, or a revenue series' amount. */
  property: string | null;
  groupTypeIndex: number | null;
  filters: Filter[];
  /** Revenue: where the currency code is, and whether amounts count negative. */
  currencyProperty: string;
  refund: boolean;
}

export interface Breakdown {
  type: "event" | "person" | "group" | "column" | "cohort";
  /** Property (event, person, group) or column name; null for a group breakdown by key and a cohort breakdown. */
  property: string | null;
  groupTypeIndex: number | null;
  limit: number;
  /** A cohort breakdown's cohorts (lower case, distinct), in the order of their rows; empty for the other types. */
  cohortIds: string[];
}

export interface Query {
  kind: InsightKind;
  /** Events with from <= timestamp < to (epoch ms). */
  from: number;
  to: number;
  /**
   * Where reading starts (epoch ms): \`from\`, except for kinds that look further back
   * (lifecycle: the interval before the first; first-time retention: all history).
   */
  scanFrom: number;
  timeZone: string;
  interval: BucketInterval;
  filters: Filter[];
  series: Series[];
  breakdown: Breakdown | null;
  funnel: { windowMs: number; order: "ordered" | "strict" | "unordered"; exclusions: { event: string; fromStep: number; toStep: number }[] };
  retention: { periods: number; type: "recurring" | "first_time" };
  paths: { depth: number; edges: number; startPoint: string | null; endPoint: string | null; excludeEvents: string[] };
  stickiness: { cumulative: boolean };
  revenue: RevenueOptions;
}

/** A revenue insight's measure and target currency (other kinds: the defaults). */
export interface RevenueOptions {
  measure: RevenueMeasure;
  /** Whether the document named `revenue_measure` (the answer then says its measure). */
  measureNamed: boolean;
  /** ISO 4217 code (upper case) every convertible amount is converted into, or null. */
  currency: string | null;
}
