// What an answer of Ask stands on, below its text: the result drawn with the insights pages'
// own chart (InsightResultView) for the Query IR it ran, or the SQL tool's rows as a table; the
// SQL it cites (as include_sql gives it) with a copy button; the steps taken, folded; and
// "Save as insight", which saves the query as a new insight and links to it.
import { useState } from "preact/hooks";
import { queryAnswerOf, sqlRowsOf, type AskEvidence } from "../../api/ask-api.ts";
import { defaultViz, type InsightDto } from "../../api/insight-types.ts";
import { createInsight } from "../../api/insights.ts";
import type { SqlValue } from "../../api/sql.ts";
import type { ProjectDto } from "../../api/types.ts";
import { InsightResultView } from "../../charts/insight-result.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { useAction } from "../settings/use-action.ts";

/** The console API's limit for names (server/control/schemas.ts, nameLengthMax). */
const insightNameLengthMax = 200;

/** The question as the saved insight's name, cut to the limit with an ellipsis. */
export const insightNameFor = (question: string) => {
  const name = question.trim().replace(/\s+/g, " ");
  return name.length <= insightNameLengthMax ? name : `${name.slice(0, insightNameLengthMax - 1)}…`;
};

const cellText = (value: SqlValue) => (value === null ? "NULL" : typeof value === "string" ? value : JSON.stringify(value));

function Rows({ columns, rows }: { columns: string[]; rows: SqlValue[][] }) {
  return (
    <DataTable<{ index: number; cells: SqlValue[] }>
      caption="Rows"
      columns={columns.map((column, position) => ({ label: column, cell: (row) => cellText(row.cells[position] ?? null) }))}
      rows={rows.map((cells, index) => ({ index, cells }))}
      rowKey={(row) => String(row.index)}
      empty={<p class="findings-note">No rows.</p>}
    />
  );
}

function ResultView({ project, evidence, at }: { project: ProjectDto; evidence: AskEvidence; at: string }) {
  const [view, setView] = useState<"chart" | "table">("chart");
  const answer = evidence.query ? queryAnswerOf(evidence.result, at) : null;
  if (evidence.query && answer) {
    const viz = defaultViz(answer.result.kind);
    return (
      <div class="ask-result">
        <div class="segmented" role="group" aria-label="View">
          <button type="button" class="segmented-item" aria-pressed={view === "chart"} onClick={() => setView("chart")}>Chart</button>
          <button type="button" class="segmented-item" aria-pressed={view === "table"} onClick={() => setView("table")}>Table</button>
        </div>
        <InsightResultView query={evidence.query} result={answer} viz={viz} timeZone={project.timezone} currency={project.currency} view={view} />
      </div>
    );
  }
  const rows = sqlRowsOf(evidence.result);
  if (rows) return <div class="ask-result table-scroll"><Rows columns={rows.columns} rows={rows.rows} /></div>;
  return null;
}

function SaveAsInsight({ project, question, evidence }: { project: ProjectDto; question: string; evidence: AskEvidence }) {
  const [saved, setSaved] = useState<InsightDto | null>(null);
  const save = useAction(async () => {
    const query = evidence.query!;
    setSaved(await createInsight(project.id, { name: insightNameFor(question), query, viz: defaultViz(query.insight.kind), tags: [], created_via: "ask" }));
  });
  if (saved) {
    return (
      <Alert tone="success">
        Saved as an insight: <a href={paths.insight(project.id, saved.id)}>{saved.name}</a>
      </Alert>
    );
  }
  return (
    <div class="ask-save">
      <FormError error={save.error} />
      <Button small busy={save.busy} onClick={() => void save.run()}>Save as insight</Button>
    </div>
  );
}

export function AskEvidenceView({ project, question, evidence, at }: { project: ProjectDto; question: string; evidence: AskEvidence; at: string }) {
  return (
    <>
      <ResultView project={project} evidence={evidence} at={at} />
      {evidence.result_truncated && <p class="findings-note">The result was cut to fit the answer: save it as an insight to see all of it.</p>}
      {evidence.sql !== null && (
        <div class="ask-sql">
          <h4 class="ask-label">SQL it ran</h4>
          <CodeBlock code={evidence.sql} label="SQL" />
        </div>
      )}
      {evidence.steps.length > 0 && (
        <details class="ask-steps">
          <summary>Steps taken ({evidence.steps.length})</summary>
          <ol>
            {evidence.steps.map((step, index) => (
              <li key={index} class="ask-step">
                <span class="ask-step-tool">{step.tool}</span> {step.ok ? <span class="badge badge-success">OK</span> : <span class="badge badge-danger">Failed</span>}
                {step.error !== null && <p class="ask-step-error">{step.error}</p>}
                <CodeBlock code={JSON.stringify(step.arguments, null, 2)} label={`Arguments of step ${index + 1}`} />
              </li>
            ))}
          </ol>
        </details>
      )}
      {evidence.query !== null && <SaveAsInsight project={project} question={question} evidence={evidence} />}
    </>
  );
}
