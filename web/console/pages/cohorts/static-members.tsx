// A static cohort's members from a CSV file of distinct ids: the file is read in the browser
// (a bad file is refused with the line at fault), sent to the region 1,000 persons a call
// (POST /cohorts/{id}/static), and the cohort's size is then recorded by a calculation.
import { useState } from "preact/hooks";
import { calculateCohort, editStaticCohort, staticPersonsPerCallMax, type Cohort, type StaticEdit } from "../../api/cohorts-api.ts";
import { describeError } from "../../api/errors.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatNumber } from "../../format/numbers.ts";
import type { RegionAccess } from "../../hooks/use-region.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { SelectField } from "../../ui/field.tsx";
import { UploadIcon } from "../../ui/icons.tsx";
import { csvIdsMax, readDistinctIdFile, type CsvIds } from "./csv-ids.ts";

/** Ids that matched no person, listed by name at most. */
const notFoundShown = 20;

interface Outcome {
  mode: "add" | "remove";
  sent: number;
  changed: number;
  notFound: string[];
  size: number;
}

type Upload = { status: "idle" } | { status: "sending"; done: number; total: number } | { status: "done"; outcome: Outcome } | { status: "failed"; error: unknown; done: number };

export function StaticMembers({ project, region, cohort, onCalculated }: { project: ProjectDto; region: RegionAccess; cohort: Cohort; onCalculated(cohort: Cohort): void }) {
  const [file, setFile] = useState<{ name: string; read: CsvIds } | null>(null);
  const [mode, setMode] = useState<"add" | "remove">("add");
  const [upload, setUpload] = useState<Upload>({ status: "idle" });

  const choose = async (input: HTMLInputElement) => {
    setUpload({ status: "idle" });
    const chosen = input.files?.[0];
    setFile(chosen ? { name: chosen.name, read: await readDistinctIdFile(chosen) } : null);
  };

  const send = async (ids: string[]) => {
    const outcome: Outcome = { mode, sent: ids.length, changed: 0, notFound: [], size: 0 };
    setUpload({ status: "sending", done: 0, total: ids.length });
    let done = 0;
    try {
      for (let start = 0; start < ids.length; start += staticPersonsPerCallMax) {
        const persons = ids.slice(start, start + staticPersonsPerCallMax).map((id) => ({ distinct_id: id }));
        const answer: StaticEdit = await editStaticCohort(region.tokens, cohort.id, mode === "add" ? { add: persons } : { remove: persons });
        outcome.changed += mode === "add" ? answer.added : answer.removed;
        outcome.notFound.push(...answer.not_found.map((item) => ("distinct_id" in item ? item.distinct_id : item.person_id)));
        outcome.size = answer.size;
        done += persons.length;
        setUpload({ status: "sending", done, total: ids.length });
      }
      // The members changed in the region; a calculation records the cohort's size in the control plane.
      onCalculated(await calculateCohort(project.id, cohort.id, region.environment));
      setUpload({ status: "done", outcome });
    } catch (error) {
      setUpload({ status: "failed", error, done });
    }
  };

  const read = file?.read;
  const sending = upload.status === "sending";
  return (
    <section class="card section" aria-labelledby="members-title">
      <h2 id="members-title" class="section-title">Members from a CSV file</h2>
      <p class="muted-text">
        A file with one distinct id per row (the first column, or the column headed <code>distinct_id</code>), up to {formatNumber(csvIdsMax)} ids. Each id is matched to the person it belongs to now in {region.environment}.
      </p>
      <div class="upload-row">
        <div class="field">
          <label class="field-label" for="cohort-csv">CSV file of distinct ids</label>
          <input id="cohort-csv" class="input file-input" type="file" accept=".csv,text/csv,text/plain" disabled={sending} onChange={(event) => void choose(event.currentTarget)} />
        </div>
        <SelectField label="These persons" name="mode" value={mode} disabled={sending} onChange={(event) => setMode(event.currentTarget.value as "add" | "remove")}>
          <option value="add">Add to the cohort</option>
          <option value="remove">Remove from the cohort</option>
        </SelectField>
      </div>
      {read && !read.ok && <Alert tone="error">{file!.name}: {read.error}</Alert>}
      {read?.ok && (
        <p class="upload-summary" role="status">
          {file!.name}: {formatNumber(read.ids.length)} distinct id{read.ids.length === 1 ? "" : "s"}
          {read.header !== null && <> under the header “{read.header}”</>}
          {read.duplicates > 0 && <>, {formatNumber(read.duplicates)} repeated one{read.duplicates === 1 ? "" : "s"} left out</>}.
        </p>
      )}
      <div>
        <Button variant="primary" disabled={!read?.ok} busy={sending} onClick={() => read?.ok && void send(read.ids)}>
          <UploadIcon />
          {mode === "add" ? "Add these persons" : "Remove these persons"}
        </Button>
      </div>
      {upload.status === "sending" && <p class="muted-text" role="status">Sending {formatNumber(upload.done)} of {formatNumber(upload.total)}…</p>}
      {upload.status === "failed" && (
        <Alert tone="error">
          {upload.done > 0 ? `${formatNumber(upload.done)} ids were sent, then the upload stopped: ` : "The upload failed: "}
          {describeError(upload.error)}
        </Alert>
      )}
      {upload.status === "done" && <UploadOutcome outcome={upload.outcome} environment={region.environment} />}
    </section>
  );
}

function UploadOutcome({ outcome, environment }: { outcome: Outcome; environment: string }) {
  const matched = outcome.sent - outcome.notFound.length;
  const verb = outcome.mode === "add" ? "added" : "removed";
  return (
    <Alert tone={matched > 0 ? "success" : "info"}>
      <p class="upload-result">
        {formatNumber(matched)} of {formatNumber(outcome.sent)} distinct ids matched a person; {formatNumber(outcome.changed)} {outcome.changed === 1 ? "person was" : "persons were"} {verb}
        {outcome.changed < matched ? ` (the others ${outcome.mode === "add" ? "were members already" : "were not members"})` : ""}. The cohort has {formatNumber(outcome.size)} {outcome.size === 1 ? "person" : "persons"} in {environment}.
      </p>
      {outcome.notFound.length > 0 && (
        <>
          <p>{formatNumber(outcome.notFound.length)} matched no person of the project:</p>
          <ul class="not-found-ids">
            {outcome.notFound.slice(0, notFoundShown).map((id) => <li key={id} class="mono">{id}</li>)}
            {outcome.notFound.length > notFoundShown && <li>and {formatNumber(outcome.notFound.length - notFoundShown)} more</li>}
          </ul>
        </>
      )}
    </Alert>
  );
}
