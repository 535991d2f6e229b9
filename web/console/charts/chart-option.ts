// The ECharts option types of the parts echarts-runtime.ts registers, and what every chart
// shares: the theme's type and colours, no animation for large data.
import type { BarSeriesOption, LineSeriesOption, PieSeriesOption, SankeySeriesOption } from "echarts/charts";
import type { GridComponentOption, MarkLineComponentOption, TooltipComponentOption } from "echarts/components";
import type { ComposeOption } from "echarts/core";
import type { ChartTheme } from "./chart-theme.ts";

export type ChartOption = ComposeOption<
  LineSeriesOption | BarSeriesOption | PieSeriesOption | SankeySeriesOption | GridComponentOption | TooltipComponentOption | MarkLineComponentOption
>;

/** Past this many points a chart draws without animation (it would only slow the first paint). */
export const animatedPointsMax = 2_000;

export const baseOption = (theme: ChartTheme, points: number): ChartOption => ({
  color: theme.series,
  animation: points <= animatedPointsMax,
  textStyle: { color: theme.text, fontFamily: theme.fontFamily },
});

export const axisStyle = (theme: ChartTheme) => ({
  axisLine: { lineStyle: { color: theme.border } },
  axisTick: { lineStyle: { color: theme.border } },
  axisLabel: { color: theme.muted },
  splitLine: { lineStyle: { color: theme.border } },
});
