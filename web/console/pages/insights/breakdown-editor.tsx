// The builder's breakdown (trends and funnels): by an event or person property, a fixed event
// column, a group type's keys or cohorts, with how many values get their own row.
import type { BreakdownSpec, PropertySchema } from "../../api/query-types.ts";
import type { CohortSummary } from "../../api/insights.ts";
import { ProblemAt, sectionPaths, type EngineProblem } from "./engine-problem.tsx";
import { filterableColumns } from "./filters-editor.tsx";
import { PropertyInput } from "./pickers.tsx";

type BreakdownType = BreakdownSpec["type"];
const none = "none";
const typeLabels: Record<BreakdownType, string> = { event: "Event property", person: "Person property", column: "Event column", group: "Group", cohort: "Cohorts" };

function blankBreakdown(type: BreakdownType, cohorts: readonly CohortSummary[]): BreakdownSpec {
  if (type === "group") return { type, group_type_index: 0 };
  if (type === "cohort") return { type, cohort_ids: cohorts.slice(0, 1).map((cohort) => cohort.id) };
  if (type === "column") return { type, property: "geo_country" };
  return { type, property: "" };
}

interface BreakdownEditorProps {
  breakdown: BreakdownSpec | undefined;
  properties: readonly PropertySchema[];
  cohorts: readonly CohortSummary[];
  problem: EngineProblem | null;
  onChange(breakdown: BreakdownSpec | undefined): void;
}

export function BreakdownEditor({ breakdown, properties, cohorts, problem, onChange }: BreakdownEditorProps) {
  const withLimit = (text: string) => {
    const next = { ...breakdown! };
    if (text.trim() === "") delete next.limit;
    else next.limit = Number(text);
    onChange(next);
  };
  return (
    <section class="builder-section" aria-label="Breakdown">
      <h2 class="builder-section-title">Breakdown</h2>
      <ProblemAt problem={problem} at={sectionPaths.breakdown} />
      <div class="builder-filter-fields">
        <select class="input select" aria-label="Breakdown by" value={breakdown?.type ?? none} onChange={(event) => onChange(event.currentTarget.value === none ? undefined : blankBreakdown(event.currentTarget.value as BreakdownType, cohorts))}>
          <option value={none}>No breakdown</option>
          {(Object.keys(typeLabels) as BreakdownType[]).map((type) => <option key={type} value={type}>{typeLabels[type]}</option>)}
        </select>
        {(breakdown?.type === "event" || breakdown?.type === "person") && (
          <PropertyInput label="Breakdown property" value={breakdown.property ?? ""} properties={breakdown.type === "event" ? properties : []} onChange={(property) => onChange({ ...breakdown, property })} />
        )}
        {breakdown?.type === "column" && (
          <select class="input select" aria-label="Breakdown column" value={breakdown.property} onChange={(event) => onChange({ ...breakdown, property: event.currentTarget.value })}>
            {filterableColumns.map((column) => <option key={column} value={column}>{column}</option>)}
          </select>
        )}
        {breakdown?.type === "group" && (
          <select class="input select" aria-label="Breakdown group type" value={String(breakdown.group_type_index ?? 0)} onChange={(event) => onChange({ ...breakdown, group_type_index: Number(event.currentTarget.value) })}>
            {[0, 1, 2, 3, 4].map((index) => <option key={index} value={String(index)}>{`Group type ${index}`}</option>)}
          </select>
        )}
        {breakdown?.type === "cohort" && (
          <select
            class="input select builder-multi"
            multiple
            aria-label="Breakdown cohorts"
            onChange={(event) => onChange({ ...breakdown, cohort_ids: [...event.currentTarget.selectedOptions].map((option) => option.value) })}
          >
            {cohorts.map((cohort) => <option key={cohort.id} value={cohort.id} selected={breakdown.cohort_ids?.includes(cohort.id)}>{cohort.name}</option>)}
          </select>
        )}
        {breakdown && breakdown.type !== "cohort" && (
          <input class="input builder-number" type="number" min={1} aria-label="Breakdown values shown" placeholder="Top 25" value={breakdown.limit ?? ""} onInput={(event) => withLimit(event.currentTarget.value)} />
        )}
      </div>
    </section>
  );
}
