// Line, area and bar charts (stacked, or stacked as shares of 100%) of a SeriesSet over a
// category axis. 10,000 points stay fast: lines are sampled with LTTB and drawn without
// symbols, bars use ECharts' large mode, and nothing animates (series-data.ts decides).
import type { BarSeriesOption, LineSeriesOption } from "echarts/charts";
import { seriesColor, type ChartTheme } from "./chart-theme.ts";
import { axisStyle, baseOption, type ChartOption } from "./chart-option.ts";
import { isPercentStack, largeBarsThreshold, largeDataDrawing, plottedValues, seriesShape, type SeriesChartSettings, type VisibleSeries } from "./series-data.ts";
import type { SeriesSet } from "./series-set.ts";
import { shortBucketLabel } from "./labels.ts";
import { tooltipBase, tooltipContent } from "./tooltip.ts";

/** A vertical line at a category with a short caption (annotations). */
export interface CategoryMark {
  category: string;
  caption: string;
}

export function seriesChartOption(set: SeriesSet, visible: readonly VisibleSeries[], settings: SeriesChartSettings, theme: ChartTheme, marks: readonly CategoryMark[]): ChartOption {
  const { style, compact } = settings;
  const percent = isPercentStack(settings);
  const values = plottedValues(set, visible, settings);
  const drawing = largeDataDrawing(set.categories.length, visible.length);
  const bar = style === "bar" || style === "stacked_bar";
  const series = visible.map(({ series: item, index }, position): LineSeriesOption | BarSeriesOption => {
    const data = values[position]!;
    const color = seriesColor(theme, index);
    const label = { show: settings.showValues, color: theme.text, formatter: ({ value }: { value: unknown }) => (typeof value === "number" ? (percent ? `${Math.round(value * 100)}%` : item.format(value)) : "") };
    const markLine = position === 0 && marks.length > 0 ? annotationLines(marks, theme) : undefined;
    const shape = seriesShape(item, style);
    if (shape.type === "bar") {
      return { type: "bar", name: item.name, data, color, label, stack: shape.stack, large: drawing.largeBars, largeThreshold: largeBarsThreshold, markLine };
    }
    return {
      type: "line",
      name: item.name,
      data,
      color,
      label,
      showSymbol: drawing.showSymbol,
      sampling: "lttb",
      areaStyle: style === "area" ? { opacity: 0.15 } : undefined,
      markLine,
    };
  });
  return {
    ...baseOption(theme, drawing.animation),
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
