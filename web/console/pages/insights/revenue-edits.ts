// The revenue builder's measure and currency, as pure edits of a Query IR document
// (docs/console.md, "Revenue measures"). Only `revenue` reads the document's series: the engine
// refuses `series` with every other measure, so choosing one drops them, and choosing `revenue`
// again brings back one series. Conversion into the project's currency is on by default for
// every measure but plain `revenue`, whose sums read best in the currencies the money came in.
import type { QueryIrDocument, RevenueMeasure } from "../../api/query-types.ts";
import { withInsight } from "./query-edits.ts";

export const revenueMeasureLabels: Record<RevenueMeasure, string> = {
  revenue: "Revenue",
  mrr: "MRR",
  arr: "ARR",
  mrr_movements: "MRR movements",
  churn_rate: "Churn rate",
  refunds: "Refunds",
  revenue_per_person: "Revenue per person",
};

export const revenueMeasureList = Object.keys(revenueMeasureLabels) as RevenueMeasure[];

export const isRevenueMeasure = (value: unknown): value is RevenueMeasure => typeof value === "string" && (revenueMeasureList as string[]).includes(value);

/** The document's measure (`revenue` when it names none). */
export const revenueMeasureOf = (query: QueryIrDocument): RevenueMeasure => query.insight.revenue_measure ?? "revenue";

/**
 * The document measuring `measure`: `revenue` is left out (it is the default), series kept or
 * restored only for it, and the currency set to the project's default for the measure.
 */
export function withRevenueMeasure(query: QueryIrDocument, measure: RevenueMeasure, projectCurrency: string): QueryIrDocument {
  if (measure === revenueMeasureOf(query)) return query;
  if (measure === "revenue") return withInsight(query, { revenue_measure: undefined, currency: undefined, series: query.insight.series ?? [{ event: null }] });
  return withInsight(query, { revenue_measure: measure, currency: projectCurrency, series: undefined });
}

/** Converts every amount into `currency` (the project's), or answers per currency (null). */
export const withRevenueCurrency = (query: QueryIrDocument, currency: string | null): QueryIrDocument => withInsight(query, { currency: currency ?? undefined });
