// An insight tile's numbers (tile-result.tsx shows them in place of the chart on request), as a
// compact table: trends, each series' total and last value; funnels, each step's count and
// conversion; the other kinds their headline figures. Every label comes from the data (event
// names, breakdown values, URLs) and is rendered as text.
import type { ComponentChildren } from "preact";
import type { FunnelStep, InsightKind, InsightResult, QueryIrDocument, TrendsRow } from "../../api/query-types.ts";
import { formatMoney, formatNumber, formatPercent } from "../../format/numbers.ts";

export interface TileBodyProps {
  kind: InsightKind;
  query: QueryIrDocument;
  /** The region's answer's `result` (QueryAnswer.result). */
  result: InsightResult;
  /** The project's time zone, which the result's buckets are in. */
  timeZone: string;
  /** The project's currency. */
  currency: string;
}

/** Rows shown at most per table; the rest are counted below it. */
export const tileRowsMax = 12;
/** Retention periods shown at most per cohort. */
const retentionPeriodsShown = 6;

const none = "–";
const number = (value: number | null | undefined) => (value === null || value === undefined ? none : formatNumber(value));
const percent = (ratio: number | null | undefined) => (ratio === null || ratio === undefined ? none : formatPercent(ratio));

interface Table {
  caption: string;
  head: string[];
  /** The first cell is the row's label; the others are numbers, right-aligned. */
  rows: { key: string; cells: ComponentChildren[] }[];
}

function NumbersTable({ caption, head, rows }: Table) {
  const shown = rows.slice(0, tileRowsMax);
  return (
    <>
      <table class="tile-numbers">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {head.map((label, index) => (
              <th key={index} scope="col" class={index === 0 ? undefined : "cell-numeric"}>{label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => (
            <tr key={row.key}>
              {row.cells.map((cell, index) =>
                index === 0 ? <th key={index} scope="row" class="tile-numbers-label">{cell}</th> : <td key={index} class="cell-numeric">{cell}</td>,
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > shown.length && <p class="tile-numbers-more">{`and ${formatNumber(rows.length - shown.length)} more`}</p>}
    </>
  );
}

/** An event as a label: "All events" for the series that matches every event. */
const eventLabel = (event: string | null | undefined) => event ?? "All events";

function breakdownLabel(row: { breakdown_value?: string | null; breakdown_other?: boolean }): string | null {
  if (row.breakdown_other) return "Other";
  if (row.breakdown_value === undefined) return null;
  return row.breakdown_value ?? "(none)";
}

function trendsLabel(row: TrendsRow): string {
  const parts = [eventLabel(row.event)];
  if (row.math !== "total") parts[0] += ` (${row.math.replace(/_/g, " ")})`;
  const breakdown = breakdownLabel(row);
  if (breakdown !== null) parts.push(breakdown);
  return parts.join(" · ");
}

function trendsTable(result: Extract<InsightResult, { kind: "trends" }>): Table {
  const last = result.buckets.length - 1;
  return {
    caption: "Each series' total and last value",
    head: ["Series", "Total", last >= 0 ? `Last (${result.buckets[last]})` : "Last"],
    rows: result.rows.map((row, index) => ({ key: `${index}`, cells: [trendsLabel(row), number(row.total), number(last >= 0 ? row.values[last] : null)] })),
  };
}

const stepRows = (steps: FunnelStep[]) =>
  steps.map((step) => ({ key: `${step.step}`, cells: [`${step.step + 1}. ${eventLabel(step.event)}`, number(step.count), percent(step.conversion_from_first)] }));

function funnelTable(result: Extract<InsightResult, { kind: "funnel" }>): Table {
  return { caption: "Each step's count and conversion from the first step", head: ["Step", "Persons", "Conversion"], rows: stepRows(result.steps) };
}

function retentionTable(result: Extract<InsightResult, { kind: "retention" }>): Table {
  const periods = Math.min(result.periods, retentionPeriodsShown);
  return {
    caption: "Each cohort's size and the share of it that returned in each period",
    head: ["Cohort", "Size", ...Array.from({ length: periods }, (_, period) => `P${period}`)],
    rows: result.cohorts.map((cohort) => ({
      key: cohort.cohort,
      cells: [
        cohort.cohort,
        number(cohort.size),
        ...Array.from({ length: periods }, (_, period) => {
          const value = cohort.values[period];
          return value === undefined ? none : cohort.size > 0 ? percent(value / cohort.size) : number(value);
        }),
      ],
    })),
  };
}

function lifecycleTable(result: Extract<InsightResult, { kind: "lifecycle" }>): Table {
  const last = result.buckets.length - 1;
  return {
    caption: "Persons by lifecycle status over the range and in the last interval",
    head: ["Status", "Total", last >= 0 ? `Last (${result.buckets[last]})` : "Last"],
    rows: result.rows.map((row) => ({ key: row.status, cells: [row.status, number(row.values.reduce((sum, value) => sum + value, 0)), number(last >= 0 ? row.values[last] : null)] })),
  };
}

function stickinessTable(result: Extract<InsightResult, { kind: "stickiness" }>): Table {
  return {
    caption: result.cumulative ? "Persons active in at least this many intervals" : "Persons active in exactly this many intervals",
    head: [result.cumulative ? `At least this many ${result.interval}s` : `${result.interval.charAt(0).toUpperCase()}${result.interval.slice(1)}s active`, "Persons"],
    rows: result.intervals.map((count, index) => ({ key: `${count}`, cells: [formatNumber(count), number(result.persons[index])] })),
  };
}

function pathsTable(result: Extract<InsightResult, { kind: "paths" }>): Table {
  return {
    caption: "The most travelled steps between two pages or events",
    head: ["Step", "Persons"],
    rows: result.edges.map((edge, index) => ({ key: `${index}`, cells: [`${edge.source} → ${edge.target}`, number(edge.persons)] })),
  };
}

function revenueTable(result: Extract<InsightResult, { kind: "revenue" }>): Table {
  const last = result.buckets.length - 1;
  const money = (value: number | undefined, currency: string | null) => (value === undefined ? none : currency ? formatMoney(value, currency) : formatNumber(value));
  return {
    caption: "Revenue per currency over the range and in the last interval",
    head: ["Currency", "Total", last >= 0 ? `Last (${result.buckets[last]})` : "Last"],
    rows: result.rows.map((row) => ({ key: row.currency ?? "", cells: [row.currency ?? "No currency", money(row.total, row.currency), money(last >= 0 ? row.values[last] : undefined, row.currency)] })),
  };
}

function tableOf(result: InsightResult): Table {
  switch (result.kind) {
    case "trends":
      return trendsTable(result);
    case "funnel":
      return funnelTable(result);
    case "retention":
      return retentionTable(result);
    case "lifecycle":
      return lifecycleTable(result);
    case "stickiness":
      return stickinessTable(result);
    case "paths":
      return pathsTable(result);
    case "revenue":
      return revenueTable(result);
  }
}

export function TileBody(props: TileBodyProps) {
  const table = tableOf(props.result);
  if (table.rows.length === 0) return <p class="tile-note">No data in this range.</p>;
  return (
    <div class="tile-numbers-scroll" data-kind={props.kind}>
      <NumbersTable {...table} />
    </div>
  );
}
