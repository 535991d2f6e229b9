// Where a cohort's calculation stands in an environment, in words: its size and when, that it
// failed and why, that the definition changed since, or that it never ran there.
import type { Cohort, CohortCalculation } from "../../api/cohorts-api.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";

export const calculationIn = (cohort: Cohort, environment: string): CohortCalculation | null =>
  cohort.calculations.find((calculation) => calculation.environment === environment) ?? null;

export type CalculationState = "never" | "ok" | "stale" | "error";

export function calculationState(cohort: Cohort, calculation: CohortCalculation | null): CalculationState {
  if (calculation === null) return "never";
  if (calculation.status === "error") return "error";
  // A static cohort's version does not move with its members; only a dynamic one's definition can be newer than its count.
  return cohort.kind === "dynamic" && calculation.cohort_version !== null && calculation.cohort_version < cohort.version ? "stale" : "ok";
}

const stateLabels: Record<CalculationState, string> = { never: "Not calculated", ok: "Calculated", stale: "Out of date", error: "Failed" };

export function CalculationBadge({ state }: { state: CalculationState }) {
  return <span class={`calc-badge calc-badge-${state}`}>{stateLabels[state]}</span>;
}

export const sizeText = (calculation: CohortCalculation | null) => (calculation?.size == null ? "—" : formatNumber(calculation.size));

export function CalculatedAt({ calculation, timeZone }: { calculation: CohortCalculation | null; timeZone: string }) {
  if (calculation === null) return <span class="value-empty">never</span>;
  return <time dateTime={calculation.calculated_at} title={formatDateTime(calculation.calculated_at, timeZone)}>{formatRelative(calculation.calculated_at)}</time>;
}
