// The colours and type a chart is drawn in, read from the design tokens (styles/tokens.css
// and styles/charts.css) when it is drawn, so charts follow <html data-theme>. useThemeVersion
// changes whenever data-theme does, which redraws the charts that read it.
import { useEffect, useState } from "preact/hooks";

export const seriesColorCount = 10;

export interface ChartTheme {
  text: string;
  muted: string;
  border: string;
  surface: string;
  fontFamily: string;
  /** Series colours, in order; series past the last take them again. */
  series: string[];
  /** The heat scale's two ends (retention). */
  heatLow: string;
  heatHigh: string;
}

export function readChartTheme(): ChartTheme {
  const styles = getComputedStyle(document.documentElement);
  const token = (name: string) => styles.getPropertyValue(name).trim();
  return {
    text: token("--text"),
    muted: token("--text-muted"),
    border: token("--border"),
    surface: token("--surface"),
    fontFamily: token("--font-sans"),
    series: Array.from({ length: seriesColorCount }, (_, index) => token(`--chart-${index + 1}`)),
    heatLow: token("--chart-heat-low"),
    heatHigh: token("--chart-heat-high"),
  };
}

export const seriesColor = (theme: ChartTheme, index: number) => theme.series[index % theme.series.length]!;

/** A number that changes each time the page's theme does. */
export function useThemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const observer = new MutationObserver(() => setVersion((count) => count + 1));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => observer.disconnect();
  }, []);
  return version;
}
