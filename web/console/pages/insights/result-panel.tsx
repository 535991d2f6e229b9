// The builder's result: display and view controls, the chart or table of the newest answer
// (dimmed while the next one runs), the engine's refusal when no builder section shows it,
// and the SQL the query compiles to.
import type { InsightViz } from "../../api/insight-types.ts";
import { defaultViz, displaysByKind, type Display } from "../../api/insight-types.ts";
import type { InsightKind } from "../../api/query-types.ts";
import { InsightResultView } from "../../charts/insight-result.tsx";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import type { AnnotationDto } from "../../api/insight-types.ts";
import type { ProjectDto } from "../../api/types.ts";
import { engineProblem, problemClaimed } from "./engine-problem.tsx";
import type { QueryRun } from "./use-insight-query.ts";
import type { ResultViewMode } from "./url-state.ts";

const displayLabels: Record<Display, string> = {
  line: "Line",
  area: "Area",
  bar: "Bar",
  stacked_bar: "Stacked bars",
  number: "Number",
  table: "Table",
  pie: "Pie",
  funnel_bars: "Funnel bars",
  retention_table: "Retention table",
  sankey: "Sankey",
};

/** Displays with no legend or value labels to switch. */
const displaysWithoutSeries: readonly Display[] = ["table", "number", "retention_table", "sankey"];

interface ResultPanelProps {
  project: ProjectDto;
  kind: InsightKind;
  viz: InsightViz;
  view: ResultViewMode;
  run: QueryRun;
  /** What the person has yet to fill in before the query runs, or null. */
  waitingFor: string | null;
  annotations: AnnotationDto[];
  showSql: boolean;
  onViz(viz: InsightViz): void;
  onView(view: ResultViewMode): void;
  onShowSql(show: boolean): void;
  onRetry(): void;
}

function ResultBody({ project, viz, view, run, waitingFor, annotations, onRetry }: ResultPanelProps) {
  if (waitingFor !== null) return <p class="result-note">{waitingFor}</p>;
  const problem = engineProblem(run.error);
  if (run.error !== null && problem && problemClaimed(problem)) {
    return <p class="result-note">This insight cannot run yet: fix the problem marked in the builder.</p>;
  }
  if (run.error !== null) return <ErrorState title="The query could not run" error={run.error} onRetry={onRetry} />;
  if (!run.answer || !run.answered) return <LoadingState label="Running the query…" />;
  const kind = run.answer.result.kind;
  // While the next answer runs, the shown one may be of another kind than the builder's.
  const shownViz = displaysByKind[kind].includes(viz.display) ? viz : defaultViz(kind);
  return (
    <div class={run.running ? "result-body result-stale" : "result-body"} aria-busy={run.running}>
      <InsightResultView query={run.answered} result={run.answer} viz={shownViz} timeZone={project.timezone} currency={project.currency} annotations={annotations} view={view} />
    </div>
  );
}

export function ResultPanel(props: ResultPanelProps) {
  const { kind, viz, view, run, showSql, onViz, onView, onShowSql } = props;
  const sql = run.answer?.sql;
  return (
    <section class="card result-panel" aria-label="Result">
      <div class="result-toolbar">
        <select class="input select result-display" aria-label="Display" value={viz.display} onChange={(event) => onViz({ ...viz, display: event.currentTarget.value as Display })}>
          {displaysByKind[kind].map((display) => <option key={display} value={display}>{displayLabels[display]}</option>)}
        </select>
        <div class="segmented" role="group" aria-label="View">
          <button type="button" class="segmented-item" aria-pressed={view === "chart"} onClick={() => onView("chart")}>Chart</button>
          <button type="button" class="segmented-item" aria-pressed={view === "table"} onClick={() => onView("table")}>Table</button>
        </div>
        {!displaysWithoutSeries.includes(viz.display) && (
          <>
            <label class="check">
              <input type="checkbox" checked={viz.show_legend} onChange={(event) => onViz({ ...viz, show_legend: event.currentTarget.checked })} />
              Legend
            </label>
            <label class="check">
              <input type="checkbox" checked={viz.show_values} onChange={(event) => onViz({ ...viz, show_values: event.currentTarget.checked })} />
              Values
            </label>
          </>
        )}
        {(kind === "trends" || kind === "revenue") && !displaysWithoutSeries.includes(viz.display) && viz.display !== "pie" && (
          <label class="check">
            <input type="checkbox" checked={viz.y_scale === "log"} onChange={(event) => onViz({ ...viz, y_scale: event.currentTarget.checked ? "log" : "linear" })} />
            Log scale
          </label>
        )}
        {viz.display === "stacked_bar" && (
          <label class="check">
            <input type="checkbox" checked={viz.stacked_percent} onChange={(event) => onViz({ ...viz, stacked_percent: event.currentTarget.checked })} />
            As 100%
          </label>
        )}
        <span class="result-status" role="status">{run.running ? "Updating…" : ""}</span>
        <Button small variant="ghost" aria-pressed={showSql} onClick={() => onShowSql(!showSql)}>{showSql ? "Hide SQL" : "Show SQL"}</Button>
      </div>
      <ResultBody {...props} />
      {showSql && sql !== undefined && (
        <div class="result-sql">
          <CodeBlock code={sql} label="SQL" />
          {run.answer?.params && run.answer.params.length > 0 && <CodeBlock code={JSON.stringify(run.answer.params)} label="SQL parameters" />}
        </div>
      )}
      {showSql && sql === undefined && run.running && <p class="result-note">Compiling the SQL…</p>}
    </section>
  );
}
