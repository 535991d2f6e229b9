// The revenue builder's measure (revenue, MRR, ARR, movements, churn, refunds, revenue per
// person) and whether amounts are converted into the project's currency.
import type { QueryIrDocument, RevenueMeasure } from "../../api/query-types.ts";
import { ProblemAt, sectionPaths, type EngineProblem } from "./engine-problem.tsx";
import { revenueMeasureLabels, revenueMeasureList, revenueMeasureOf, withRevenueCurrency, withRevenueMeasure } from "./revenue-edits.ts";

interface RevenueOptionsProps {
  query: QueryIrDocument;
  /** The project's currency (ISO 4217): what amounts are converted into. */
  projectCurrency: string;
  problem: EngineProblem | null;
  onChange(query: QueryIrDocument): void;
}

export function RevenueOptions({ query, projectCurrency, problem, onChange }: RevenueOptionsProps) {
  const measure = revenueMeasureOf(query);
  const converted = query.insight.currency !== undefined;
  return (
    <section class="builder-section" aria-label="Measure">
      <h2 class="builder-section-title">Measure</h2>
      <ProblemAt problem={problem} at={sectionPaths.revenue} />
      <div class="builder-filter-fields">
        <select class="input select" aria-label="Revenue measure" value={measure} onChange={(event) => onChange(withRevenueMeasure(query, event.currentTarget.value as RevenueMeasure, projectCurrency))}>
          {revenueMeasureList.map((value) => <option key={value} value={value}>{revenueMeasureLabels[value]}</option>)}
        </select>
        <label class="check">
          <input type="checkbox" checked={converted} onChange={(event) => onChange(withRevenueCurrency(query, event.currentTarget.checked ? projectCurrency : null))} />
          {converted && query.insight.currency !== projectCurrency ? `Convert to ${query.insight.currency}` : `Convert to ${projectCurrency}`}
        </label>
      </div>
    </section>
  );
}
