// The plan calculator: from a baseline, the smallest effect worth detecting and the traffic per
// day, the sample each variant needs and the days to reach it. The service computes it
// (POST …/experiments/plan, the formulas of docs/experiment-statistics.md), at the
// experiment's alpha and power and with its number of variants.
import { useState } from "preact/hooks";
import { planExperiment, type ExperimentDto, type PlanAnswer, type PlanRequest } from "../../api/experiments-api.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Button } from "../../ui/button.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { formatRate, formatValue } from "./stats-format.ts";

const numberField = (fields: FormData, name: string, label: string): number => {
  const text = fieldText(fields, name).trim();
  const value = Number(text);
  if (text === "" || !Number.isFinite(value)) throw new Error(`${label} must be a number`);
  return value;
};

export function PlanCalculator({ projectId, experiment }: { projectId: string; experiment: ExperimentDto }) {
  const [kind, setKind] = useState<"proportion" | "mean">("proportion");
  const [answer, setAnswer] = useState<PlanAnswer | null>(null);
  const form = useFormAction(async (fields) => {
    const mdeKind = fieldText(fields, "mde_kind") === "absolute" ? "absolute" : "relative";
    const mdeInput = numberField(fields, "mde", "The minimum detectable effect");
    const daily = fieldText(fields, "daily_units").trim();
    const request: PlanRequest = {
      metric: kind === "proportion"
        ? { kind, baseline_rate: numberField(fields, "baseline_rate", "The baseline rate") / 100 }
        : { kind, baseline_mean: numberField(fields, "baseline_mean", "The baseline mean"), standard_deviation: numberField(fields, "standard_deviation", "The standard deviation") },
      // A relative effect and a rate's absolute effect are typed in percent.
      mde: mdeKind === "relative" || kind === "proportion" ? mdeInput / 100 : mdeInput,
      mde_kind: mdeKind,
      alpha: experiment.alpha,
      power: experiment.power,
      variants: Math.max(2, experiment.variants.length),
      daily_units: daily === "" ? null : numberField(fields, "daily_units", "Traffic per day"),
    };
    setAnswer(await planExperiment(projectId, request));
  });
  const plan = answer?.plan;
  return (
    <div class="plan">
      <form class="plan-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <div class="plan-fields">
          <label class="stacked-field">
            <span>Metric</span>
            <select class="input select" name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as "proportion" | "mean")}>
              <option value="proportion">A rate (conversion)</option>
              <option value="mean">A mean (per person)</option>
            </select>
          </label>
          {kind === "proportion" ? (
            <label class="stacked-field">
              <span>Baseline rate (%)</span>
              <input class="input" name="baseline_rate" inputMode="decimal" required defaultValue="10" />
            </label>
          ) : (
            <>
              <label class="stacked-field">
                <span>Baseline mean</span>
                <input class="input" name="baseline_mean" inputMode="decimal" required defaultValue="20" />
              </label>
              <label class="stacked-field">
                <span>Standard deviation</span>
                <input class="input" name="standard_deviation" inputMode="decimal" required defaultValue="30" />
              </label>
            </>
          )}
          <label class="stacked-field">
            <span>Minimum detectable effect</span>
            <input class="input" name="mde" inputMode="decimal" required defaultValue="10" />
          </label>
          <label class="stacked-field">
            <span>Effect is</span>
            <select class="input select" name="mde_kind">
              <option value="relative">relative (% of the baseline)</option>
              <option value="absolute">{kind === "proportion" ? "absolute (percentage points)" : "absolute (in the metric's unit)"}</option>
            </select>
          </label>
          <label class="stacked-field">
            <span>Traffic per day (persons, all variants)</span>
            <input class="input" name="daily_units" inputMode="numeric" defaultValue="1000" />
          </label>
        </div>
        <div>
          <Button type="submit" busy={form.busy}>Calculate</Button>
        </div>
      </form>
      <p class="section-note">
        Computed by the service (POST …/experiments/plan) with the formulas of docs/experiment-statistics.md: a two-sided test at α = {experiment.alpha} split over {Math.max(1, experiment.variants.length - 1)} comparison(s), power {experiment.power}, {Math.max(2, experiment.variants.length)} variants with an even split.
      </p>
      {plan && (
        <dl class="plan-answer" aria-label="Plan">
          <div>
            <dt>Per variant</dt>
            <dd data-field="units_per_variant">{plan.units_per_variant}</dd>
          </div>
          <div>
            <dt>In total</dt>
            <dd data-field="total_units">{plan.total_units}</dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd data-field="days">{plan.days === null ? "give the traffic per day" : `${plan.days} day${plan.days === 1 ? "" : "s"}`}</dd>
          </div>
          <div>
            <dt>Detects</dt>
            <dd>
              {plan.metric_kind === "proportion"
                ? `${formatRate(plan.baseline)} → ${formatRate(plan.treatment_value)}`
                : `${formatValue(plan.baseline)} → ${formatValue(plan.treatment_value)}`}
            </dd>
          </div>
        </dl>
      )}
    </div>
  );
}
