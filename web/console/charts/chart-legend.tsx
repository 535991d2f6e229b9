// The chart's legend, in HTML: each series' colour and name (as text), a button that hides or
// shows it on the chart.
import { seriesColor, type ChartTheme } from "./chart-theme.ts";

export interface LegendEntry {
  key: string;
  name: string;
}

interface ChartLegendProps {
  entries: readonly LegendEntry[];
  hidden: ReadonlySet<string>;
  theme: ChartTheme;
  onToggle(key: string): void;
}

export function ChartLegend({ entries, hidden, theme, onToggle }: ChartLegendProps) {
  return (
    <ul class="chart-legend" aria-label="Legend">
      {entries.map((entry, index) => (
        <li key={entry.key}>
          <button type="button" class="chart-legend-item" aria-pressed={!hidden.has(entry.key)} title={hidden.has(entry.key) ? "Show on the chart" : "Hide from the chart"} onClick={() => onToggle(entry.key)}>
            <span class="chart-legend-swatch" style={{ backgroundColor: seriesColor(theme, index) }} aria-hidden="true" />
            <span class="chart-legend-name">{entry.name}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
