// A funnel as bars per step: persons who reached it, each bar labelled with its conversion
// from the first step; a breakdown draws a bar per value at each step.
import type { BarSeriesOption } from "echarts/charts";
import type { FunnelResult, FunnelStep } from "../api/query-types.ts";
import { formatNumber, formatPercent } from "../format/numbers.ts";
import { seriesColor, type ChartTheme } from "./chart-theme.ts";
import { axisStyle, baseOption, type ChartOption } from "./chart-option.ts";
import { breakdownLabel, eventLabel, formatDuration } from "./labels.ts";
import { tooltipBase, tooltipContent, type TooltipLine } from "./tooltip.ts";

export interface FunnelLine {
  key: string;
  name: string;
  steps: FunnelStep[];
}

/** The funnel's bar series: the whole funnel, or one per breakdown value. */
export function funnelLines(result: FunnelResult): FunnelLine[] {
  if (!result.breakdowns) return [{ key: "all", name: "Persons", steps: result.steps }];
  return result.breakdowns.map((breakdown, index) => ({ key: `breakdown-${index}`, name: breakdownLabel(breakdown.breakdown_value, breakdown.breakdown_other), steps: breakdown.steps }));
}

export const funnelStepLabel = (step: FunnelStep) => `${step.step + 1}. ${eventLabel(step.event)}`;

const percentOrDash = (ratio: number | null) => (ratio === null ? "–" : formatPercent(ratio));

export function funnelStepDetails(step: FunnelStep): TooltipLine[] {
  return [
    { name: "Persons", value: formatNumber(step.count) },
    { name: "From previous step", value: percentOrDash(step.conversion_from_previous) },
    { name: "From first step", value: percentOrDash(step.conversion_from_first) },
    { name: "Median time", value: step.median_seconds === null ? "–" : formatDuration(step.median_seconds) },
  ];
}

export function funnelChartOption(result: FunnelResult, visible: readonly { line: FunnelLine; index: number }[], theme: ChartTheme, compact: boolean): ChartOption {
  const series = visible.map(({ line, index }): BarSeriesOption => ({
    type: "bar",
    name: line.name,
    color: seriesColor(theme, index),
    data: line.steps.map((step) => step.count),
    barMaxWidth: 64,
    label: { show: !compact, position: "top", color: theme.text, formatter: ({ dataIndex }: { dataIndex: number }) => percentOrDash(line.steps[dataIndex]?.conversion_from_first ?? null) },
  }));
  return {
    ...baseOption(theme, true),
    grid: compact ? { left: 8, right: 8, top: 24, bottom: 8 } : { left: 16, right: 24, top: 40, bottom: 24 },
    tooltip: {
      ...tooltipBase(theme),
      trigger: "item",
      formatter: (params) => {
        const item = Array.isArray(params) ? params[0]! : params;
        const line = visible[item.seriesIndex ?? 0]?.line;
        const step = line?.steps[item.dataIndex];
        if (!line || !step) return tooltipContent("", []);
        const title = visible.length > 1 || result.breakdowns ? `${funnelStepLabel(step)} · ${line.name}` : funnelStepLabel(step);
        return tooltipContent(title, funnelStepDetails(step));
      },
    },
    xAxis: { type: "category", data: result.steps.map(funnelStepLabel), ...axisStyle(theme), splitLine: { show: false }, axisLabel: { color: theme.muted, interval: 0, width: 120, overflow: "truncate" } },
    yAxis: { type: "value", ...axisStyle(theme), axisLabel: { color: theme.muted, formatter: (value: number) => formatNumber(value) } },
    series,
  };
}
