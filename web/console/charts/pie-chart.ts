// Trends as a pie: each series' (and breakdown value's) total over the range.
import { seriesColor, type ChartTheme } from "./chart-theme.ts";
import { baseOption, type ChartOption } from "./chart-option.ts";
import type { ChartSeries } from "./series-set.ts";
import { tooltipBase, tooltipContent } from "./tooltip.ts";
import { formatPercent } from "../format/numbers.ts";

export function pieChartOption(visible: readonly { series: ChartSeries; index: number }[], theme: ChartTheme, showValues: boolean): ChartOption {
  return {
    ...baseOption(theme, true),
    tooltip: {
      ...tooltipBase(theme),
      trigger: "item",
      formatter: (params) => {
        const item = Array.isArray(params) ? params[0]! : params;
        const shown = visible[item.dataIndex];
        if (!shown) return tooltipContent("", []);
        return tooltipContent(shown.series.name, [{ name: "Total", value: shown.series.format(shown.series.total ?? 0) }, { name: "Share", value: formatPercent((item.percent ?? 0) / 100) }]);
      },
    },
    series: [
      {
        type: "pie",
        radius: ["40%", "70%"],
        label: { show: showValues, color: theme.text, formatter: ({ dataIndex }: { dataIndex: number }) => visible[dataIndex]?.series.name ?? "" },
        data: visible.map(({ series, index }) => ({ name: series.key, value: Math.max(series.total ?? 0, 0), itemStyle: { color: seriesColor(theme, index) } })),
      },
    ],
  };
}
