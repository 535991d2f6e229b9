// Retention's chart: each cohort's share still active per period, as a table whose cells are
// shaded by that share. The shade is a colour-mix of two theme tokens set through a style
// object (the CSSOM, which the Content-Security-Policy allows), so it follows the theme.
import type { RetentionResult } from "../api/query-types.ts";
import { formatNumber, formatPercent } from "../format/numbers.ts";

/** At or above this share the cell's text turns light, to stay readable on the dark shade. */
export const strongShadeRatio = 0.55;

const shade = (ratio: number) => ({ backgroundColor: `color-mix(in srgb, var(--chart-heat-high) ${Math.round(ratio * 100)}%, var(--chart-heat-low))` });

export function RetentionHeatTable({ result, compact }: { result: RetentionResult; compact?: boolean }) {
  const periods = Array.from({ length: result.periods }, (_, period) => period);
  return (
    <div class={compact ? "table-scroll heat-scroll heat-compact" : "table-scroll heat-scroll"}>
      <table class="heat-table">
        <caption class="visually-hidden">Share of each cohort active per period</caption>
        <thead>
          <tr>
            <th scope="col">Cohort</th>
            <th scope="col" class="cell-numeric">Persons</th>
            {periods.map((period) => <th key={period} scope="col" class="cell-numeric">{`Period ${period}`}</th>)}
          </tr>
        </thead>
        <tbody>
          {result.cohorts.map((cohort) => (
            <tr key={cohort.cohort}>
              <th scope="row">{cohort.cohort}</th>
              <td class="cell-numeric">{formatNumber(cohort.size)}</td>
              {periods.map((period) => {
                if (period >= cohort.values.length) return <td key={period} class="heat-cell heat-empty" />;
                const ratio = cohort.size === 0 ? 0 : cohort.values[period]! / cohort.size;
                return (
                  <td key={period} class={ratio >= strongShadeRatio ? "heat-cell heat-strong" : "heat-cell"} style={shade(ratio)} title={`${formatNumber(cohort.values[period]!)} of ${formatNumber(cohort.size)}`}>
                    {formatPercent(ratio)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
