// The builder's controls: the kind, then what that kind takes (series or steps and their
// options, filters, breakdown, date range and interval). Every change is a new BuilderState.
import type { CohortSummary } from "../../api/insights.ts";
import type { EventSchema, InsightKind, PropertySchema } from "../../api/query-types.ts";
import { Tabs } from "../../ui/tabs.tsx";
import { BreakdownEditor } from "./breakdown-editor.tsx";
import { engineProblem } from "./engine-problem.tsx";
import { FiltersEditor } from "./filters-editor.tsx";
import { KindOptions } from "./kind-options.tsx";
import { changeKind, kindsWithBreakdown, kindsWithInterval, vizForKind, withInsight, withSeries } from "./query-edits.ts";
import { RangeEditor } from "./range-editor.tsx";
import { revenueMeasureOf } from "./revenue-edits.ts";
import { RevenueOptions } from "./revenue-options.tsx";
import { SeriesEditor } from "./series-editor.tsx";
import { insightKindList, type BuilderState } from "./url-state.ts";

export interface BuilderChoices {
  events: EventSchema[];
  properties: PropertySchema[];
  cohorts: CohortSummary[];
}

const kindLabels: Record<InsightKind, string> = {
  trends: "Trends",
  funnel: "Funnel",
  retention: "Retention",
  paths: "Paths",
  lifecycle: "Lifecycle",
  stickiness: "Stickiness",
  revenue: "Revenue",
};

interface BuilderFormProps {
  state: BuilderState;
  choices: BuilderChoices | null;
  /** The last run's error: the engine's refusal is shown in the section it names. */
  problemSource: unknown;
  /** The project's currency: revenue measures convert into it. */
  projectCurrency: string;
  onChange(state: BuilderState): void;
}

export function BuilderForm({ state, choices, problemSource, projectCurrency, onChange }: BuilderFormProps) {
  const { query } = state;
  const { insight } = query;
  const kind = insight.kind;
  const events = choices?.events ?? [];
  const properties = choices?.properties ?? [];
  const cohorts = choices?.cohorts ?? [];
  const problem = engineProblem(problemSource);
  const setQuery = (next: typeof query) => onChange({ ...state, query: next });
  return (
    <form class="builder-form card" aria-label="Insight" onSubmit={(event) => event.preventDefault()}>
      <Tabs
        label="Insight kind"
        tabs={insightKindList.map((id) => ({ id, label: kindLabels[id] }))}
        selected={kind}
        onSelect={(id) => {
          const next = id as InsightKind;
          onChange({ ...state, query: changeKind(query, next, events[0]?.name ?? null), viz: vizForKind(state.viz, next) });
        }}
      >
        {kind === "revenue" && <RevenueOptions query={query} projectCurrency={projectCurrency} problem={problem} onChange={setQuery} />}
        {kind !== "paths" && (kind !== "revenue" || revenueMeasureOf(query) === "revenue") && <SeriesEditor kind={kind} series={insight.series ?? []} events={events} properties={properties} problem={problem} onChange={(series) => setQuery(withSeries(query, series))} />}
        <KindOptions insight={insight} events={events} problem={problem} onChange={(changes) => setQuery(withInsight(query, changes))} />
        <FiltersEditor
          filters={query.filters ?? []}
          properties={properties}
          cohorts={cohorts}
          problem={problem}
          onChange={(filters) => {
            const { filters: _previous, ...rest } = query;
            setQuery(filters.length ? { ...rest, filters } : rest);
          }}
        />
        {kindsWithBreakdown.includes(kind) && (
          <BreakdownEditor breakdown={insight.breakdown} properties={properties} cohorts={cohorts} problem={problem} onChange={(breakdown) => setQuery(withInsight(query, { breakdown }))} />
        )}
        <RangeEditor
          range={query.date_range}
          interval={insight.interval}
          withInterval={kindsWithInterval.includes(kind)}
          problem={problem}
          onRange={(date_range) => setQuery({ ...query, date_range })}
          onInterval={(interval) => setQuery(withInsight(query, { interval }))}
        />
      </Tabs>
    </form>
  );
}
