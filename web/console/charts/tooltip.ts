// Tooltip contents built as DOM nodes with text only: ECharts puts a formatter's string in the
// page as HTML, and labels here are data (event names, property values), so no string of
// markup is ever made. Colours go through the CSSOM, which the Content-Security-Policy allows.
import type { ChartTheme } from "./chart-theme.ts";

export interface TooltipLine {
  color?: string;
  name: string;
  value: string;
}

export function tooltipContent(title: string, lines: readonly TooltipLine[]): HTMLElement {
  const root = document.createElement("div");
  root.className = "chart-tooltip";
  const heading = document.createElement("div");
  heading.className = "chart-tooltip-title";
  heading.textContent = title;
  root.append(heading);
  for (const line of lines) {
    const row = document.createElement("div");
    row.className = "chart-tooltip-row";
    const swatch = document.createElement("span");
    swatch.className = "chart-tooltip-swatch";
    if (line.color) swatch.style.backgroundColor = line.color;
    const name = document.createElement("span");
    name.className = "chart-tooltip-name";
    name.textContent = line.name;
    const value = document.createElement("span");
    value.className = "chart-tooltip-value";
    value.textContent = line.value;
    row.append(swatch, name, value);
    root.append(row);
  }
  return root;
}

/**
 * The tooltip box itself. `confine` keeps it inside the chart and also leaves out the arrow
 * ECharts would otherwise write as markup with an inline style (refused by the CSP).
 */
export const tooltipBase = (theme: ChartTheme) => ({
  confine: true,
  renderMode: "html" as const,
  backgroundColor: theme.surface,
  borderColor: theme.border,
  padding: 8,
  textStyle: { color: theme.text, fontFamily: theme.fontFamily, fontSize: 12 },
});
