// Every result as a table of the same numbers the chart draws (the table view, and the only
// view of a `table` display). Cells are text; data-derived labels show as they came.
import type { FunnelResult, InsightResult, PathsResult, RetentionResult } from "../api/query-types.ts";
import { formatNumber, formatPercent } from "../format/numbers.ts";
import { DataTable, type Column } from "../ui/data-table.tsx";
import { funnelLines, funnelStepLabel } from "./funnel-chart.ts";
import { formatDuration } from "./labels.ts";
import { stepCaption } from "./sankey-chart.ts";
import type { ChartSeries, SeriesSet } from "./series-set.ts";

const dash = "–";
const count = (value: number | null) => (value === null ? dash : formatNumber(value));
const percent = (ratio: number | null) => (ratio === null ? dash : formatPercent(ratio));
const duration = (seconds: number | null) => (seconds === null ? dash : formatDuration(seconds));

/** Series as rows, categories as columns, with each series' total first when it has one. */
export function SeriesTable({ set, caption }: { set: SeriesSet; caption: string }) {
  const hasTotal = set.series.some((series) => series.total !== null);
  const columns: Column<ChartSeries>[] = [
    { label: "Series", cell: (series) => series.name },
    ...(hasTotal ? [{ label: "Total", numeric: true, cell: (series: ChartSeries) => (series.total === null ? dash : series.format(series.total)) }] : []),
    ...set.categories.map((category, at) => ({
      label: category,
      numeric: true,
      cell: (series: ChartSeries) => {
        const value = series.values[at];
        return value === null || value === undefined ? dash : series.format(value);
      },
    })),
  ];
  return <DataTable caption={caption} columns={columns} rows={set.series} rowKey={(series) => series.key} />;
}

interface FunnelRow {
  key: string;
  breakdown: string;
  step: FunnelResult["steps"][number];
}

function FunnelTable({ result }: { result: FunnelResult }) {
  const lines = funnelLines(result);
  const broken = result.breakdowns !== undefined;
  const rows: FunnelRow[] = lines.flatMap((line) => line.steps.map((step) => ({ key: `${line.key}-${step.step}`, breakdown: line.name, step })));
  const columns: Column<FunnelRow>[] = [
    ...(broken ? [{ label: "Breakdown", cell: (row: FunnelRow) => row.breakdown }] : []),
    { label: "Step", cell: (row) => funnelStepLabel(row.step) },
    { label: "Persons", numeric: true, cell: (row) => count(row.step.count) },
    { label: "From previous", numeric: true, cell: (row) => percent(row.step.conversion_from_previous) },
    { label: "From first", numeric: true, cell: (row) => percent(row.step.conversion_from_first) },
    { label: "Median time", numeric: true, cell: (row) => duration(row.step.median_seconds) },
    { label: "Average time", numeric: true, cell: (row) => duration(row.step.average_seconds) },
  ];
  return <DataTable caption="Funnel steps" columns={columns} rows={rows} rowKey={(row) => row.key} />;
}

type Cohort = RetentionResult["cohorts"][number];

export function RetentionCountTable({ result }: { result: RetentionResult }) {
  const columns: Column<Cohort>[] = [
    { label: "Cohort", cell: (cohort) => cohort.cohort },
    { label: "Persons", numeric: true, cell: (cohort) => count(cohort.size) },
    ...Array.from({ length: result.periods }, (_, period) => ({
      label: `Period ${period}`,
      numeric: true,
      cell: (cohort: Cohort) => (period < cohort.values.length ? count(cohort.values[period]!) : ""),
    })),
  ];
  return <DataTable caption="Retention by cohort" columns={columns} rows={result.cohorts} rowKey={(cohort) => cohort.cohort} />;
}

type Edge = PathsResult["edges"][number];

function PathsTable({ result }: { result: PathsResult }) {
  const columns: Column<Edge>[] = [
    { label: "From", cell: (edge) => stepCaption(edge.source_step, edge.source) },
    { label: "To", cell: (edge) => stepCaption(edge.target_step, edge.target) },
    { label: "Persons", numeric: true, cell: (edge) => count(edge.persons) },
  ];
  return <DataTable caption="Path steps" columns={columns} rows={result.edges} rowKey={(edge) => `${edge.source_step}\u0000${edge.source}\u0000${edge.target}`} />;
}

/** The table of any result; series kinds come as their SeriesSet. */
export function ResultTable({ result, set }: { result: InsightResult; set: SeriesSet | null }) {
  if (result.kind === "funnel") return <FunnelTable result={result} />;
  if (result.kind === "retention") return <RetentionCountTable result={result} />;
  if (result.kind === "paths") return <PathsTable result={result} />;
  return set ? <SeriesTable set={set} caption="Insight values" /> : null;
}
