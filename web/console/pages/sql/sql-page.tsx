// "SQL": one read-only SELECT over the environment's events (POST /sql, docs/sql.md), with the
// tables and columns beside the editor, the rows as a table and a CSV file, and an error shown
// where it occurred. The statement is kept in the URL (`?sql=`), so a link opens it again.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { ApiError, describeError } from "../../api/errors.ts";
import { listSchemaProperties, runSql, type SqlResult } from "../../api/sql.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button } from "../../ui/button.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { insertAtCursor, selectLine, SqlEditor } from "./sql-editor.tsx";
import { errorLine } from "./sql-error.ts";
import { SqlResults } from "./sql-results.tsx";
import { SqlSchema } from "./sql-schema.tsx";

const starterSql = "SELECT event, count(*) AS events\nFROM events\nGROUP BY event\nORDER BY events DESC\nLIMIT 100";
/** How long typing pauses before the URL takes the statement (browsers throttle rapid history changes). */
const urlUpdateDelayMs = 400;

type Run =
  | { status: "idle" }
  | { status: "running" }
  | { status: "done"; result: SqlResult; elapsedMs: number }
  | { status: "failed"; error: unknown; line: number | null };

/** DuckDB's messages span lines (the statement's line and a caret under the place): shown as written. */
function SqlError({ run, onShowLine, id }: { run: Extract<Run, { status: "failed" }>; onShowLine(line: number): void; id: string }) {
  const fromDuckDb = run.error instanceof ApiError && run.error.code === "invalid_query";
  return (
    <div class="alert alert-error sql-error" role="alert" id={id}>
      <div class="alert-body">
        <p class="sql-error-title">
          {run.line === null ? "The statement did not run." : `The statement did not run: line ${run.line}.`}
          {run.line !== null && <Button small variant="ghost" onClick={() => onShowLine(run.line!)}>Show line {run.line}</Button>}
        </p>
        {fromDuckDb ? <pre class="sql-error-message">{(run.error as ApiError).message}</pre> : <p>{describeError(run.error)}</p>}
      </div>
    </div>
  );
}

function SqlContent({ project }: { project: ProjectDto }) {
  const { query } = useRoute();
  const { environment, tokens } = useRegion(project);
  const [sql, setSql] = useState(query.sql ?? starterSql);
  const [run, setRun] = useState<Run>({ status: "idle" });
  const editor = useRef<HTMLTextAreaElement>(null);
  const editorId = useId();
  const [properties, reloadProperties] = useResource(() => listSchemaProperties(tokens), [tokens]);

  // Another environment's rows or error would read as this one's.
  useEffect(() => setRun({ status: "idle" }), [tokens]);

  // history.replaceState rather than the router: the page stays as it is, only the address changes.
  useEffect(() => {
    const timer = setTimeout(() => history.replaceState(history.state, "", paths.projectSql(project.id, sql)), urlUpdateDelayMs);
    return () => clearTimeout(timer);
  }, [project.id, sql]);

  const execute = async () => {
    if (run.status === "running" || sql.trim() === "") return;
    setRun({ status: "running" });
    const started = performance.now();
    try {
      const result = await runSql(tokens, sql);
      setRun({ status: "done", result, elapsedMs: Math.round(performance.now() - started) });
    } catch (error) {
      setRun({ status: "failed", error, line: error instanceof ApiError ? errorLine(error.message) : null });
    }
  };
  const insert = (text: string) => editor.current && insertAtCursor(editor.current, text);

  return (
    <div class="page">
      <PageTitle title="SQL">
        One read-only SELECT over the events of <span class="text-strong">{environment}</span>, in DuckDB's dialect.
      </PageTitle>
      <div class="sql-workspace">
        <div class="sql-main">
          <div class="sql-editor-frame card">
            <label for={editorId} class="field-label">Statement</label>
            <SqlEditor
              id={editorId}
              value={sql}
              onChange={setSql}
              onRun={execute}
              invalid={run.status === "failed"}
              errorLine={run.status === "failed" ? run.line : null}
              editorRef={editor}
              describedBy={`${editorId}-hint${run.status === "failed" ? ` ${editorId}-error` : ""}`}
            />
            <div class="sql-actions">
              <p id={`${editorId}-hint`} class="field-hint">Ctrl+Enter (⌘+Enter) runs. Tab indents; Esc, then Tab, leaves the editor.</p>
              <Button variant="primary" busy={run.status === "running"} disabled={sql.trim() === ""} onClick={execute}>Run</Button>
            </div>
          </div>
          {run.status === "failed" && <SqlError run={run} id={`${editorId}-error`} onShowLine={(line) => editor.current && selectLine(editor.current, line)} />}
        </div>
        <SqlSchema properties={properties} onRetry={reloadProperties} onInsert={insert} />
      </div>
      {run.status === "done" && <SqlResults result={run.result} elapsedMs={run.elapsedMs} />}
    </div>
  );
}

export default function SqlPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <SqlContent project={project} />}</ProjectScope>;
}
