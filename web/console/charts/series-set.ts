// The results drawn as series over categories (trends, lifecycle, stickiness, revenue, and
// retention as curves), in one shape the line, bar and pie charts and the legend read.
import type { LifecycleResult, QueryIrDocument, RetentionResult, RevenueResult, RevenueRow, StickinessResult, TrendsResult } from "../api/query-types.ts";
import { formatMoney, formatNumber, formatPercent } from "../format/numbers.ts";
import { intervalCount, trendsRowLabel } from "./labels.ts";
import type { SeriesStyle } from "./series-data.ts";

export interface ChartSeries {
  /** Stable within a result: the legend hides series by it. */
  key: string;
  name: string;
  values: (number | null)[];
  total: number | null;
  /** How this series' values read (money in its currency, percentages, counts). */
  format(value: number): string;
  /** Stacked bars: the stack it belongs to (one per currency of MRR movements); one stack for all when absent. */
  stack?: string;
  /** Drawn as a line over bars (MRR movements' net), never stacked. */
  overlay?: boolean;
}

export interface SeriesSet {
  /** The x axis: bucket labels, interval counts or retention periods. */
  categories: string[];
  /** Whether the categories are time buckets (annotations can be drawn on them). */
  timeAxis: boolean;
  series: ChartSeries[];
  /** The y axis's labels. */
  axisFormat(value: number): string;
  /** The values are counts: the axis has no ticks between whole numbers. */
  counts: boolean;
  /** How the set is drawn under a line or bar display, when not as that display says (MRR movements: stacked bars). */
  style?: SeriesStyle;
}

/** Maths whose values are counts (the rest are amounts of a property). */
const countMaths = new Set(["total", "unique_persons", "unique_sessions", "unique_groups"]);

const countFormat = (value: number) => formatNumber(value);

export function trendsSeries(result: TrendsResult, query: QueryIrDocument): SeriesSet {
  return {
    categories: result.buckets,
    timeAxis: true,
    series: result.rows.map((row, index) => ({ key: `row-${index}`, name: trendsRowLabel(row, query), values: row.values, total: row.total, format: countFormat })),
    axisFormat: countFormat,
    counts: result.rows.every((row) => countMaths.has(row.math)),
  };
}

export const lifecycleStatusLabels = { new: "New", returning: "Returning", resurrecting: "Resurrecting", dormant: "Dormant" } as const;

export function lifecycleSeries(result: LifecycleResult): SeriesSet {
  return {
    categories: result.buckets,
    timeAxis: true,
    series: result.rows.map((row) => ({
      key: row.status,
      name: lifecycleStatusLabels[row.status],
      values: row.values,
      total: row.values.reduce((sum, value) => sum + value, 0),
      format: countFormat,
    })),
    axisFormat: countFormat,
    counts: true,
  };
}

export function stickinessSeries(result: StickinessResult): SeriesSet {
  return {
    categories: result.intervals.map((count) => (result.cumulative ? `${intervalCount(count, result.interval)} or more` : intervalCount(count, result.interval))),
    timeAxis: false,
    series: [{ key: "persons", name: "Persons", values: result.persons, total: null, format: countFormat }],
    axisFormat: countFormat,
    counts: true,
  };
}

/** Events without a currency are counted in the project's currency (how SDKs without one mean them). */
export const revenueCurrency = (currency: string | null, projectCurrency: string) => currency ?? projectCurrency;

/** Digits of a currency's minor unit (2 for EUR, 0 for JPY). */
const minorDigits = (currency: string) => new Intl.NumberFormat(undefined, { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** One currency: its money; several: plain amounts in major units when they share a minor unit, else minor units. */
function revenueAxis(currencies: string[]): (value: number) => string {
  if (currencies.length === 1) return (value) => formatMoney(value, currencies[0]!);
  const digits = new Set(currencies.map(minorDigits));
  if (digits.size !== 1) return countFormat;
  const scale = 10 ** [...digits][0]!;
  return (value) => formatNumber(value / scale);
}

/** The names of the rows of measures with several rows per currency (docs/revenue-measures.md). */
export const revenueLabelNames: Record<string, string> = {
  new: "New",
  expansion: "Expansion",
  reactivated: "Reactivated",
  contraction: "Contraction",
  churned: "Churned",
  net: "Net",
  customer_churn: "Customer churn",
  revenue_churn: "Revenue churn",
};

const revenueRowName = (row: RevenueRow, projectCurrency: string, severalCurrencies: boolean) => {
  const currency = row.currency ?? `No currency (as ${projectCurrency})`;
  if (row.label === undefined) return currency;
  // Labels come from the engine; one it does not document yet still shows, as it came.
  const label = revenueLabelNames[row.label] ?? row.label;
  return severalCurrencies ? `${label} (${currency})` : label;
};

export function revenueSeries(result: RevenueResult, projectCurrency: string): SeriesSet {
  const currencies = [...new Set(result.rows.map((row) => revenueCurrency(row.currency, projectCurrency)))];
  const several = new Set(result.rows.map((row) => row.currency)).size > 1;
  const ratios = result.measure === "churn_rate";
  const movements = result.measure === "mrr_movements";
  return {
    categories: result.buckets,
    timeAxis: true,
    series: result.rows.map((row) => {
      const currency = revenueCurrency(row.currency, projectCurrency);
      return {
        key: `currency-${row.currency ?? ""}${row.label === undefined ? "" : `-${row.label}`}`,
        name: revenueRowName(row, projectCurrency, several),
        values: row.values,
        total: row.total,
        format: ratios ? (ratio: number) => formatPercent(ratio) : (value: number) => formatMoney(value, currency),
        ...(movements ? { stack: currency, overlay: row.label === "net" } : {}),
      };
    }),
    axisFormat: ratios ? (ratio) => formatPercent(ratio) : revenueAxis(currencies),
    counts: false,
    ...(movements ? { style: "stacked_bar" as const } : {}),
  };
}

/** Retention as curves: each cohort's share of its size still active per period. */
export function retentionSeries(result: RetentionResult): SeriesSet {
  return {
    categories: Array.from({ length: result.periods }, (_, period) => `Period ${period}`),
    timeAxis: false,
    series: result.cohorts.map((cohort) => ({
      key: `cohort-${cohort.cohort}`,
      name: cohort.cohort,
      values: cohort.values.map((value) => (cohort.size === 0 ? 0 : value / cohort.size)),
      total: cohort.size,
      format: (ratio: number) => formatPercent(ratio),
    })),
    axisFormat: (ratio) => formatPercent(ratio),
    counts: false,
  };
}
