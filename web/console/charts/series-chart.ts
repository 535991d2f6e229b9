// Line, area and bar charts (stacked, or stacked as shares of 100%) of a SeriesSet over a
// category axis. 10,000 points stay fast: lines are sampled with LTTB and drawn without
// symbols, bars use ECharts' large mode, and nothing animates past animatedPointsMax.
import type { BarSeriesOption, LineSeriesOption } from "echarts/charts";
import { seriesColor, type ChartTheme } from "./chart-theme.ts";
import { axisStyle, baseOption, type ChartOption } from "./chart-option.ts";
import type { ChartSeries, SeriesSet } from "./series-set.ts";
import { shortBucketLabel } from "./labels.ts";
import { tooltipBase, tooltipContent } from "./tooltip.ts";

export type SeriesStyle = "line" | "area" | "bar" | "stacked_bar";

export interface SeriesChartSettings {
  style: SeriesStyle;
  showValues: boolean;
  logScale: boolean;
  /** Stacked bars: each category as shares of its total. */
  stackedPercent: boolean;
  compact: boolean;
}

/** A vertical line at a category with a short caption (annotations). */
export interface CategoryMark {
  category: string;
  caption: string;
}

/** Bars past this many per series switch to ECharts' large mode. */
export const largeBarsThreshold = 600;
/** Lines past this many points lose their symbols (and are sampled). */
export const symbolPointsMax = 60;

interface VisibleSeries {
  series: ChartSeries;
  /** The series' place in the whole set, which keeps its colour when others are hidden. */
  index: number;
}

/** Each value as its share of the category's total over the visible series (stacked 100%). */
function shares(visible: readonly VisibleSeries[], categories: number): (number | null)[][] {
  const totals = Array.from({ length: categories }, (_, at) => visible.reduce((sum, { series }) => sum + Math.abs(series.values[at] ?? 0), 0));
  return visible.map(({ series }) => series.values.map((value, at) => (value === null ? null : totals[at] === 0 ? 0 : value / totals[at]!)));
}

/** A log axis cannot show zero or less: such values leave a gap. */
const forLogScale = (values: (number | null)[]) => values.map((value) => (value !== null && value > 0 ? value : null));

export function seriesChartOption(set: SeriesSet, visible: readonly VisibleSeries[], settings: SeriesChartSettings, theme: ChartTheme, marks: readonly CategoryMark[]): ChartOption {
  const { style, compact } = settings;
  const percent = settings.stackedPercent && style === "stacked_bar";
  const values = percent ? shares(visible, set.categories.length) : visible.map(({ series }) => series.values);
  const points = set.categories.length;
  const bar = style === "bar" || style === "stacked_bar";
  const series = visible.map(({ series: item, index }, position): LineSeriesOption | BarSeriesOption => {
    const data = settings.logScale ? forLogScale(values[position]!) : values[position]!;
    const color = seriesColor(theme, index);
    const label = { show: settings.showValues, color: theme.text, formatter: ({ value }: { value: unknown }) => (typeof value === "number" ? (percent ? `${Math.round(value * 100)}%` : item.format(value)) : "") };
    const markLine = position === 0 && marks.length > 0 ? annotationLines(marks, theme) : undefined;
    if (bar) {
      return { type: "bar", name: item.name, data, color, label, stack: style === "stacked_bar" ? "all" : undefined, large: points > largeBarsThreshold, largeThreshold: largeBarsThreshold, markLine };
    }
    return {
      type: "line",
      name: item.name,
      data,
      color,
      label,
      showSymbol: points <= symbolPointsMax,
      sampling: "lttb",
      areaStyle: style === "area" ? { opacity: 0.15 } : undefined,
      markLine,
    };
  });
  return {
    ...baseOption(theme, points * Math.max(visible.length, 1)),
    grid: compact ? { left: 8, right: 8, top: 8, bottom: 8 } : { left: 16, right: 24, top: 24, bottom: 16 },
    tooltip: {
      ...tooltipBase(theme),
      trigger: "axis",
      formatter: (params) => {
        const items = Array.isArray(params) ? params : [params];
        const category = set.categories[items[0]?.dataIndex ?? 0] ?? "";
        return tooltipContent(category, items.map((item) => {
          const shown = visible[item.seriesIndex ?? 0];
          const value = shown?.series.values[item.dataIndex] ?? null;
          return { color: typeof item.color === "string" ? item.color : undefined, name: shown?.series.name ?? "", value: value === null ? "–" : shown!.series.format(value) };
        }));
      },
    },
    xAxis: {
      type: "category",
      data: set.categories,
      boundaryGap: bar,
      ...axisStyle(theme),
      splitLine: { show: false },
      axisLabel: { color: theme.muted, hideOverlap: true, formatter: (label: string) => (set.timeAxis ? shortBucketLabel(label) : label) },
    },
    yAxis: {
      type: settings.logScale ? "log" : "value",
      ...axisStyle(theme),
      max: percent ? 1 : undefined,
      minInterval: set.counts && !percent ? 1 : undefined,
      axisLabel: { color: theme.muted, formatter: (value: number) => (percent ? `${Math.round(value * 100)}%` : set.axisFormat(value)) },
    },
    series,
  };
}

/** Longest caption drawn on the chart; the list under the chart has the whole text. */
export const markCaptionLengthMax = 24;

function annotationLines(marks: readonly CategoryMark[], theme: ChartTheme): LineSeriesOption["markLine"] {
  return {
    symbol: "none",
    silent: true,
    animation: false,
    lineStyle: { color: theme.muted, type: "dashed" },
    label: { color: theme.muted, position: "insideEndTop", formatter: ({ name }: { name?: string }) => truncate(name ?? "") },
    data: marks.map((mark) => ({ xAxis: mark.category, name: mark.caption })),
  };
}

const truncate = (text: string) => (text.length > markCaptionLengthMax ? `${text.slice(0, markCaptionLengthMax - 1)}…` : text);
