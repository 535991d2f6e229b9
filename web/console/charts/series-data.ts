// What a series chart plots, apart from how it looks: each visible series' values (as shares
// of 100% when stacked so, without the zeros a log axis cannot show) and how a large answer is
// drawn so 10,000 points stay fast. No DOM here, so it is tested on its own.
import type { ChartSeries, SeriesSet } from "./series-set.ts";

export type SeriesStyle = "line" | "area" | "bar" | "stacked_bar";

export interface SeriesChartSettings {
  style: SeriesStyle;
  showValues: boolean;
  logScale: boolean;
  /** Stacked bars: each category as shares of its total. */
  stackedPercent: boolean;
  compact: boolean;
}

export interface VisibleSeries {
  series: ChartSeries;
  /** The series' place in the whole set, which keeps its colour when others are hidden. */
  index: number;
}

/** Bars past this many per series switch to ECharts' large mode. */
export const largeBarsThreshold = 600;
/** Lines past this many points lose their symbols (and are sampled). */
export const symbolPointsMax = 60;
/** Past this many points in all a chart draws without animation (it would only slow the first paint). */
export const animatedPointsMax = 2_000;

/** Each value as its share of the category's total over the visible series (stacked 100%). */
function shares(visible: readonly VisibleSeries[], categories: number): (number | null)[][] {
  const totals = Array.from({ length: categories }, (_, at) => visible.reduce((sum, { series }) => sum + Math.abs(series.values[at] ?? 0), 0));
  return visible.map(({ series }) => series.values.map((value, at) => (value === null ? null : totals[at] === 0 ? 0 : value / totals[at]!)));
}

/** A log axis cannot show zero or less: such values leave a gap. */
const forLogScale = (values: (number | null)[]) => values.map((value) => (value !== null && value > 0 ? value : null));

export const isPercentStack = (settings: SeriesChartSettings) => settings.stackedPercent && settings.style === "stacked_bar";

/** The data of each visible series, in their order. */
export function plottedValues(set: SeriesSet, visible: readonly VisibleSeries[], settings: SeriesChartSettings): (number | null)[][] {
  const values = isPercentStack(settings) ? shares(visible, set.categories.length) : visible.map(({ series }) => series.values);
  return settings.logScale ? values.map(forLogScale) : values;
}

export interface LargeDataDrawing {
  animation: boolean;
  /** Lines: symbols on each point. */
  showSymbol: boolean;
  /** Bars: ECharts' large mode. */
  largeBars: boolean;
}

export const largeDataDrawing = (points: number, seriesCount: number): LargeDataDrawing => ({
  animation: points * Math.max(seriesCount, 1) <= animatedPointsMax,
  showSymbol: points <= symbolPointsMax,
  largeBars: points > largeBarsThreshold,
});

/** How one series is drawn under `style`: bars stack per their stack (one for all by default); an overlay is always a line. */
export function seriesShape(series: ChartSeries, style: SeriesStyle): { type: "line" | "bar"; stack: string | undefined } {
  if (series.overlay || (style !== "bar" && style !== "stacked_bar")) return { type: "line", stack: undefined };
  return { type: "bar", stack: style === "stacked_bar" ? (series.stack ?? "all") : undefined };
}
