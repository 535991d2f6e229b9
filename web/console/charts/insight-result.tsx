// InsightResultView: any insight's answer from POST {region}/query drawn as its kind and viz
// say (docs/console.md, "Charts"), or as a table of the same numbers. Self-contained: the
// insight builder and dashboard tiles (`compact`) use it as it is. ECharts loads on the first
// chart drawn; tables, the heat table and big numbers need none of it.
import { useMemo, useState } from "preact/hooks";
import type { AnnotationDto, InsightViz } from "../api/insight-types.ts";
import type { InsightResult, QueryAnswer, QueryIrDocument } from "../api/query-types.ts";
import { formatDateTime } from "../format/date-time.ts";
import { EmptyState } from "../ui/states.tsx";
import { SearchOffIcon } from "../ui/icons.tsx";
import { annotationMarks, placeAnnotations, type PlacedAnnotation } from "./annotation-marks.ts";
import { BigNumber } from "./big-number.tsx";
import { ChartLegend, type LegendEntry } from "./chart-legend.tsx";
import { readChartTheme, useThemeVersion, type ChartTheme } from "./chart-theme.ts";
import type { ChartOption } from "./chart-option.ts";
import { EChart } from "./echart.tsx";
import { funnelChartOption, funnelLines } from "./funnel-chart.ts";
import { pieChartOption } from "./pie-chart.ts";
import { ResultTable } from "./result-table.tsx";
import { RetentionHeatTable } from "./retention-heat-table.tsx";
import { sankeyChartOption } from "./sankey-chart.ts";
import { seriesChartOption } from "./series-chart.ts";
import type { SeriesStyle } from "./series-data.ts";
import { lifecycleSeries, retentionSeries, revenueSeries, stickinessSeries, trendsSeries, type SeriesSet } from "./series-set.ts";

export interface InsightResultViewProps {
  /** The insight's Query IR document (InsightDto.query). */
  query: QueryIrDocument;
  /** The region's answer to that document. */
  result: QueryAnswer;
  viz: InsightViz;
  /** The project's time zone (bucket labels are already local; annotations are placed in it). */
  timeZone: string;
  /** The project's currency: revenue without a currency is shown in it. */
  currency: string;
  annotations?: AnnotationDto[];
  view: "chart" | "table";
  /** A dashboard tile: no legend or annotation list, a chart that fills its container. */
  compact?: boolean;
}

function seriesSetOf(result: InsightResult, query: QueryIrDocument, currency: string): SeriesSet | null {
  switch (result.kind) {
    case "trends":
      return trendsSeries(result, query);
    case "lifecycle":
      return lifecycleSeries(result);
    case "stickiness":
      return stickinessSeries(result);
    case "revenue":
      return revenueSeries(result, currency);
    case "retention":
      return retentionSeries(result);
    default:
      return null;
  }
}

function hasNoData(result: InsightResult): boolean {
  if (result.kind === "trends" || result.kind === "revenue") return result.rows.length === 0;
  if (result.kind === "retention") return result.cohorts.length === 0;
  if (result.kind === "paths") return result.edges.length === 0;
  return false;
}

const seriesStyles: Record<string, SeriesStyle> = { line: "line", area: "area", bar: "bar", stacked_bar: "stacked_bar" };

function useChartTheme(): ChartTheme {
  const version = useThemeVersion();
  return useMemo(readChartTheme, [version]);
}

interface Drawing {
  option: ChartOption | null;
  legend: LegendEntry[];
  placed: PlacedAnnotation[];
}

function draw(props: InsightResultViewProps, set: SeriesSet | null, hidden: ReadonlySet<string>, theme: ChartTheme): Drawing {
  const { result: answer, viz, compact = false } = props;
  const result = answer.result;
  if (result.kind === "funnel") {
    const lines = funnelLines(result);
    const visible = lines.map((line, index) => ({ line, index })).filter(({ line }) => !hidden.has(line.key));
    return { option: funnelChartOption(result, visible, theme, compact), legend: result.breakdowns ? lines : [], placed: [] };
  }
  if (result.kind === "paths") return { option: sankeyChartOption(result, theme, compact), legend: [], placed: [] };
  if (!set) return { option: null, legend: [], placed: [] };
  const visible = set.series.map((series, index) => ({ series, index })).filter(({ series }) => !hidden.has(series.key));
  if (viz.display === "pie") return { option: pieChartOption(visible, theme, viz.show_values), legend: set.series, placed: [] };
  const shown = seriesStyles[viz.display];
  const style = set.style && (shown === "line" || shown === "bar") ? set.style : shown ?? (result.kind === "lifecycle" ? "stacked_bar" : result.kind === "stickiness" ? "bar" : "line");
  const placed = set.timeAxis && "interval" in result ? placeAnnotations(props.annotations ?? [], set.categories, result.interval, props.timeZone) : [];
  const settings = { style, showValues: viz.show_values, logScale: viz.y_scale === "log", stackedPercent: viz.stacked_percent, compact };
  return { option: seriesChartOption(set, visible, settings, theme, annotationMarks(placed)), legend: set.series, placed };
}

function AnnotationList({ placed, timeZone }: { placed: readonly PlacedAnnotation[]; timeZone: string }) {
  return (
    <details class="chart-annotations">
      <summary>{placed.length === 1 ? "1 annotation in this range" : `${placed.length} annotations in this range`}</summary>
      <ul>
        {placed.map(({ annotation }) => (
          <li key={annotation.id}>
            <time dateTime={annotation.occurred_at}>{formatDateTime(annotation.occurred_at, timeZone)}</time>
            <span class="chart-annotation-kind">{annotation.kind}</span>
            <span class="chart-annotation-content">{annotation.content}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

export function InsightResultView(props: InsightResultViewProps) {
  const { query, result: answer, viz, view, compact = false, currency } = props;
  const result = answer.result;
  const theme = useChartTheme();
  const set = useMemo(() => seriesSetOf(result, query, currency), [result, query, currency]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  // Redrawn when what it shows changes, not on every render of the page around it.
  const drawing = useMemo(() => draw(props, set, hidden, theme), [answer, viz, props.annotations, props.timeZone, compact, set, hidden, theme]);
  const classes = compact ? "insight-result insight-result-compact" : "insight-result";

  if (hasNoData(result)) {
    return (
      <div class={classes}>
        <EmptyState icon={<SearchOffIcon size={20} />} title="No data in this range">
          No events matched this insight. Try a longer date range or fewer filters.
        </EmptyState>
      </div>
    );
  }
  if (view === "table" || viz.display === "table") {
    return (
      <div class={classes}>
        <ResultTable result={result} set={set} />
      </div>
    );
  }
  if (result.kind === "retention" && viz.display === "retention_table") {
    return (
      <div class={classes}>
        <RetentionHeatTable result={result} compact={compact} />
      </div>
    );
  }
  if (set && viz.display === "number") {
    return (
      <div class={classes}>
        <BigNumber set={set} compact={compact} />
      </div>
    );
  }
  const toggle = (key: string) => {
    const next = new Set(hidden);
    if (!next.delete(key)) next.add(key);
    setHidden(next);
  };
  const showLegend = !compact && viz.show_legend && drawing.legend.length > 0;
  return (
    <div class={classes}>
      {drawing.option && <EChart option={drawing.option} label={`${result.kind} chart`} />}
      {showLegend && <ChartLegend entries={drawing.legend} hidden={hidden} theme={theme} onToggle={toggle} />}
      {!compact && drawing.placed.length > 0 && <AnnotationList placed={drawing.placed} timeZone={props.timeZone} />}
    </div>
  );
}
