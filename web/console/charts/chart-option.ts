// The ECharts option types of the parts echarts-runtime.ts registers, and what every chart
// shares: the theme's type and colours, animated or not.
import type { BarSeriesOption, LineSeriesOption, PieSeriesOption, SankeySeriesOption } from "echarts/charts";
import type { GridComponentOption, MarkLineComponentOption, TooltipComponentOption } from "echarts/components";
import type { ComposeOption } from "echarts/core";
import type { ChartTheme } from "./chart-theme.ts";

export type ChartOption = ComposeOption<
  LineSeriesOption | BarSeriesOption | PieSeriesOption | SankeySeriesOption | GridComponentOption | TooltipComponentOption | MarkLineComponentOption
>;

/** A person who asked their system for less motion gets charts drawn at once, as the rest of the console moves less. */
const prefersReducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

export const baseOption = (theme: ChartTheme, animation: boolean): ChartOption => ({
  color: theme.series,
  animation: animation && !prefersReducedMotion(),
  textStyle: { color: theme.text, fontFamily: theme.fontFamily },
});

export const axisStyle = (theme: ChartTheme) => ({
  axisLine: { lineStyle: { color: theme.border } },
  axisTick: { lineStyle: { color: theme.border } },
  axisLabel: { color: theme.muted },
  splitLine: { lineStyle: { color: theme.border } },
});
