// The builder's global filters: event and person properties, fixed event columns, and cohort
// membership. Values are typed as the Query IR takes them: a list for in / not_in (comma
// separated), a number for the comparisons, none for is_set / is_not_set.
import type { FilterSpec, Operator, PropertySchema } from "../../api/query-types.ts";
import type { CohortSummary } from "../../api/insights.ts";
import { Button } from "../../ui/button.tsx";
import { PlusIcon } from "../../ui/icons.tsx";
import { ProblemAt, sectionPaths, type EngineProblem } from "./engine-problem.tsx";
import { PropertyInput } from "./pickers.tsx";
import { removeAt, replaceAt } from "./query-edits.ts";

export const filterableColumns = ["event", "distinct_id", "anon_id", "session_id", "window_id", "lib_name", "lib_version", "consent", "geo_country", "geo_region", "geo_city", "geo_timezone", "is_suspect"] as const;

const operatorLabels: Record<Operator, string> = {
  eq: "equals",
  neq: "does not equal",
  in: "is one of",
  not_in: "is not one of",
  contains: "contains",
  not_contains: "does not contain",
  regex: "matches regex",
  not_regex: "does not match regex",
  gt: "greater than",
  gte: "at least",
  lt: "less than",
  lte: "at most",
  is_set: "is set",
  is_not_set: "is not set",
};
const operators = Object.keys(operatorLabels) as Operator[];
const numericOperators: readonly Operator[] = ["gt", "gte", "lt", "lte"];
const listOperators: readonly Operator[] = ["in", "not_in"];
const valuelessOperators: readonly Operator[] = ["is_set", "is_not_set"];

type PropertyFilter = Exclude<FilterSpec, { type: "cohort" }>;
type FilterType = FilterSpec["type"];

const filterTypeLabels: Record<FilterType, string> = { event: "Event property", person: "Person property", column: "Event column", cohort: "Cohort" };

/** The value the text typed means for the operator. */
function valueFor(operator: Operator, text: string): PropertyFilter["value"] {
  if (valuelessOperators.includes(operator)) return undefined;
  if (listOperators.includes(operator)) {
    const items = text.split(",").map((item) => item.trim()).filter(Boolean);
    return items.length ? items : [""];
  }
  if (numericOperators.includes(operator) && text.trim() !== "" && Number.isFinite(Number(text))) return Number(text);
  return text;
}

const valueText = (value: PropertyFilter["value"]) => (value === undefined ? "" : Array.isArray(value) ? value.join(", ") : String(value));

function withValue(filter: PropertyFilter, operator: Operator, text: string): PropertyFilter {
  const value = valueFor(operator, text);
  const next = { ...filter, operator } as PropertyFilter;
  if (value === undefined) delete next.value;
  else next.value = value;
  return next;
}

function blankFilter(type: FilterType, cohorts: readonly CohortSummary[]): FilterSpec {
  if (type === "cohort") return { type, cohort_id: cohorts[0]?.id ?? "", operator: "in" };
  if (type === "column") return { type, key: "event", operator: "eq", value: "" };
  return { type, key: "", operator: "eq", value: "" };
}

interface FilterRowProps {
  index: number;
  filter: FilterSpec;
  properties: readonly PropertySchema[];
  cohorts: readonly CohortSummary[];
  onChange(filter: FilterSpec): void;
}

function FilterRow({ index, filter, properties, cohorts, onChange }: FilterRowProps) {
  const label = `Filter ${index + 1}`;
  const typeSelect = (
    <select class="input select" aria-label={`${label} type`} value={filter.type} onChange={(event) => onChange(blankFilter(event.currentTarget.value as FilterType, cohorts))}>
      {(Object.keys(filterTypeLabels) as FilterType[]).map((type) => <option key={type} value={type}>{filterTypeLabels[type]}</option>)}
    </select>
  );
  if (filter.type === "cohort") {
    const known = cohorts.some((cohort) => cohort.id === filter.cohort_id);
    return (
      <div class="builder-filter-fields">
        {typeSelect}
        <select class="input select" aria-label={`${label} membership`} value={filter.operator} onChange={(event) => onChange({ ...filter, operator: event.currentTarget.value as "in" | "not_in" })}>
          <option value="in">in cohort</option>
          <option value="not_in">not in cohort</option>
        </select>
        <select class="input select" aria-label={`${label} cohort`} value={filter.cohort_id} onChange={(event) => onChange({ ...filter, cohort_id: event.currentTarget.value })}>
          {!known && <option value={filter.cohort_id}>{filter.cohort_id || "No cohorts yet"}</option>}
          {cohorts.map((cohort) => <option key={cohort.id} value={cohort.id}>{cohort.name}</option>)}
        </select>
      </div>
    );
  }
  return (
    <div class="builder-filter-fields">
      {typeSelect}
      {filter.type === "column" ? (
        <select class="input select" aria-label={`${label} column`} value={filter.key} onChange={(event) => onChange({ ...filter, key: event.currentTarget.value as (typeof filterableColumns)[number] })}>
          {filterableColumns.map((column) => <option key={column} value={column}>{column}</option>)}
        </select>
      ) : (
        <PropertyInput label={`${label} property`} value={filter.key} properties={filter.type === "event" ? properties : []} onChange={(key) => onChange({ ...filter, key })} />
      )}
      <select class="input select" aria-label={`${label} operator`} value={filter.operator} onChange={(event) => onChange(withValue(filter, event.currentTarget.value as Operator, valueText(filter.value)))}>
        {operators.map((operator) => <option key={operator} value={operator}>{operatorLabels[operator]}</option>)}
      </select>
      {!valuelessOperators.includes(filter.operator) && (
        <input
          class="input"
          aria-label={`${label} value`}
          inputMode={numericOperators.includes(filter.operator) ? "decimal" : undefined}
          placeholder={listOperators.includes(filter.operator) ? "Values, comma separated" : "Value"}
          value={valueText(filter.value)}
          onInput={(event) => onChange(withValue(filter, filter.operator, event.currentTarget.value))}
        />
      )}
    </div>
  );
}

interface FiltersEditorProps {
  filters: readonly FilterSpec[];
  properties: readonly PropertySchema[];
  cohorts: readonly CohortSummary[];
  problem: EngineProblem | null;
  onChange(filters: FilterSpec[]): void;
}

export function FiltersEditor({ filters, properties, cohorts, problem, onChange }: FiltersEditorProps) {
  return (
    <section class="builder-section" aria-label="Filters">
      <h2 class="builder-section-title">Filters</h2>
      <ProblemAt problem={problem} at={sectionPaths.filters} />
      {filters.length > 0 && (
        <ul class="builder-filters">
          {filters.map((filter, index) => (
            <li key={index} class="builder-filter">
              <FilterRow index={index} filter={filter} properties={properties} cohorts={cohorts} onChange={(changed) => onChange(replaceAt(filters, index, changed))} />
              <Button variant="ghost" small aria-label={`Remove filter ${index + 1}`} onClick={() => onChange(removeAt(filters, index))}>Remove</Button>
            </li>
          ))}
        </ul>
      )}
      <Button small onClick={() => onChange([...filters, blankFilter("event", cohorts)])}>
        <PlusIcon />
        Add filter
      </Button>
    </section>
  );
}
