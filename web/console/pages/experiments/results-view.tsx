// An experiment's results as the results API answers them (computed by the region, kept by the
// control plane for 5 minutes): exposures and the sample-ratio check, then per metric each
// variant's units and value, each treatment's effect against control with its interval drawn
// as a bar, significance in words, and for guardrails their verdict.
import type { Comparison, ExperimentDto, ExperimentResults, MetricResult } from "../../api/experiments-api.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { IntervalChart, type IntervalRow } from "./interval-chart.tsx";
import {
  comparisonInterval, formatDifference, formatEffect, formatMetricValue, formatRelative, guardrailWords, roleOrder, significanceWords,
} from "./stats-format.ts";

const roleTitles: Record<MetricResult["role"], string> = { primary: "Primary metric", secondary: "Secondary metric", guardrail: "Guardrail" };

function tone(comparison: Comparison, higherIsBetter: boolean): IntervalRow["tone"] {
  const decided = comparison.method === "frequentist"
    ? comparison.significant
    : comparison.probability_to_beat_control >= 0.95 || comparison.probability_to_beat_control <= 0.05;
  if (!decided) return "neutral";
  return (comparison.absolute_difference > 0) === higherIsBetter ? "better" : "worse";
}

function MetricResultCard({ metricKey, name, result, variants, control }: { metricKey: string; name: string; result: MetricResult; variants: string[]; control: string }) {
  const treatments = variants.filter((variant) => variant !== control);
  const comparisons = treatments.flatMap((variant) => {
    const comparison = result.comparisons[variant];
    return comparison ? [{ variant, comparison }] : [];
  });
  const guardrail = result.role === "guardrail" ? result.guardrail ?? {} : null;
  // A guardrail judged on a relative margin is shown on the relative interval it was judged on.
  const wantRelative = guardrail !== null && Object.values(guardrail).some((check) => check?.margin_kind === "relative");
  const relative = comparisons.length > 0 && comparisons.every(({ comparison }) => comparisonInterval(comparison, wantRelative).relative);
  const format = (value: number) => (relative ? formatRelative(value) : formatDifference(value, result.kind));
  const boundary = guardrail ? Object.values(guardrail).find((check) => check && (check.margin_kind === "relative") === relative)?.harm_boundary ?? null : null;
  const rows: IntervalRow[] = comparisons.map(({ variant, comparison }) => {
    const { interval } = comparisonInterval(comparison, relative);
    return {
      label: variant,
      estimate: relative ? comparison.relative_difference! : comparison.absolute_difference,
      lower: interval.lower,
      upper: interval.upper,
      tone: tone(comparison, result.higher_is_better),
      description: `${variant} against ${control}: ${formatEffect(comparison, result.kind, relative)}`,
    };
  });
  const level = comparisons[0] ? comparisonInterval(comparisons[0].comparison, relative).level : null;
  return (
    <section class="result-card" aria-label={`${roleTitles[result.role]} ${metricKey}`}>
      <header class="result-header">
        <h4 class="result-title">
          <span class="result-role">{roleTitles[result.role]}</span> {name}
        </h4>
        <span class="text-subtle">
          {result.kind === "proportion" ? "share of exposed persons who did" : `mean per exposed person of ${result.property ?? "the count of"}`} <code>{result.event}</code>
          {result.higher_is_better ? ", higher is better" : ", lower is better"}
        </span>
      </header>
      <div class="table-scroll">
        <table class="data-table result-table">
          <caption class="visually-hidden">{`${name} by variant`}</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col" class="cell-numeric">Units</th>
              {result.kind === "proportion" && <th scope="col" class="cell-numeric">Conversions</th>}
              <th scope="col" class="cell-numeric">{result.kind === "proportion" ? "Rate" : "Mean"}</th>
              <th scope="col" class="cell-numeric">Effect vs {control} [{level === null ? "interval" : `${Number((level * 100).toFixed(2))}% interval`}]</th>
              <th scope="col">{guardrail ? "Guardrail" : "Significance"}</th>
            </tr>
          </thead>
          <tbody>
            {variants.map((variant) => {
              const summary = result.variants[variant];
              const comparison = result.comparisons[variant];
              const reason = result.reasons[variant];
              const check = guardrail?.[variant];
              return (
                <tr key={variant} data-variant={variant}>
                  <th scope="row" class="result-variant">{variant}{variant === control && <span class="text-subtle"> (control)</span>}</th>
                  <td class="cell-numeric" data-field="units">{summary?.units ?? 0}</td>
                  {result.kind === "proportion" && <td class="cell-numeric" data-field="conversions">{summary?.conversions ?? 0}</td>}
                  <td class="cell-numeric" data-field="value">{formatMetricValue(summary?.value ?? null, result.kind)}</td>
                  <td class="cell-numeric" data-field="effect">{variant === control ? "—" : comparison ? formatEffect(comparison, result.kind, relative) : "—"}</td>
                  <td data-field="verdict">
                    {variant === control
                      ? "baseline"
                      : guardrail
                        ? check
                          ? <span class={`verdict verdict-${check.status}`}>{guardrailWords(variant, check)}</span>
                          : reason?.message ?? "not enough data yet"
                        : comparison
                          ? significanceWords(variant, comparison, result.higher_is_better)
                          : reason?.message ?? "not enough data yet"}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {rows.length > 0 && <IntervalChart rows={rows} format={format} boundary={boundary} caption={`${name}: effect of each variant against ${control}, with its interval`} />}
    </section>
  );
}

interface ResultsViewProps {
  experiment: ExperimentDto;
  results: ExperimentResults;
  timeZone: string;
  refreshing: boolean;
  onRefresh(): void;
}

export function ResultsView({ experiment, results, timeZone, refreshing, onRefresh }: ResultsViewProps) {
  const { stats } = results;
  const variants = results.analysis.variants.map((variant) => variant.key);
  const control = results.analysis.control_variant;
  const metrics = Object.entries(stats.metrics).sort(([, a], [, b]) => roleOrder[a.role] - roleOrder[b.role]);
  return (
    <div class="results">
      <div class="results-meta">
        <span>
          Computed {formatDateTime(results.computed_at, timeZone)} with data through {formatDateTime(results.data_through, timeZone)}; {stats.method}, α = {stats.alpha}.
        </span>
        <Button small busy={refreshing} onClick={onRefresh}>Recompute now</Button>
      </div>
      {stats.blocked && <Alert tone="error">A guardrail is harmed: shipping a harmed variant is blocked (an admin can still ship past the block, and the decision records it).</Alert>}
      {stats.srm?.srm_detected && (
        <Alert tone="error">
          Sample-ratio mismatch: the units per variant ({stats.srm.observed.join(" / ")}) are far from the configured split ({stats.srm.expected.map((value) => value.toFixed(1)).join(" / ")}; p = {stats.srm.p_value.toPrecision(3)}). Assignment or exposure logging may be broken, which puts every result in doubt.
        </Alert>
      )}
      <section class="exposures" aria-label="Exposures">
        <h4 class="result-title">Exposures</h4>
        <ul class="exposure-list">
          {variants.map((variant) => (
            <li key={variant} data-variant={variant}>
              <span class="exposure-variant">{variant}</span>
              <strong data-field="exposed">{stats.exposures.units_per_variant[variant] ?? 0}</strong>
              <span class="text-subtle">persons</span>
            </li>
          ))}
        </ul>
        <p class="section-note">
          {stats.exposures.total} persons analysed, exposed through <code>{experiment.exposure_event}</code>; {stats.exposures.multiple_exposures} left out for seeing more than one variant.
        </p>
      </section>
      {metrics.map(([key, result]) => (
        <MetricResultCard key={key} metricKey={key} name={results.metrics[key]?.name ?? key} result={result} variants={variants} control={control} />
      ))}
    </div>
  );
}
