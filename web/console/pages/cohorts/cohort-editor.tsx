// "/projects/{id}/cohorts/new" and "/projects/{id}/cohorts/{cohortId}": a cohort's name and
// description; a dynamic cohort's definition in the criteria builder with a preview (size and
// sample persons, before saving); its calculation per environment with "Calculate now"; a
// static cohort's members from a CSV file; and deleting it.
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { calculateCohort, createCohort, deleteCohort, getCohort, listCohorts, previewCohort, updateCohort, type Cohort, type CohortKind, type CohortPreview } from "../../api/cohorts-api.ts";
import { ApiError, describeError } from "../../api/errors.ts";
import { isNotFound } from "../../api/http.ts";
import { eventNames, groupTypes, type GroupType } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useRegion, type RegionAccess } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { SearchOffIcon, TrashIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState, Spinner } from "../../ui/states.tsx";
import { PersonTable } from "../persons/person-table.tsx";
import { readsMasked, useRegionScopes } from "../persons/personal-data.tsx";
import { CalculatedAt, CalculationBadge, calculationIn, calculationState, sizeText } from "./calculation.tsx";
import { canWrite } from "./cohorts-list.tsx";
import { CriteriaBuilder } from "./criteria-builder.tsx";
import { definitionOf, draftOf, DraftProblem, newGroup, type CohortDefinition, type DraftGroup } from "./definition.ts";
import { StaticMembers } from "./static-members.tsx";

/** Persons a preview shows. */
const previewSample = 10;
const nameLengthMax = 200;
const descriptionLengthMax = 2000;

/** What the builder offers beside the definition: other cohorts, group types and event names (each optional: the builder works without). */
interface BuilderData {
  cohorts: Cohort[];
  groupTypes: GroupType[];
  events: string[];
}

const settled = <T,>(result: PromiseSettledResult<T>, fallback: T) => (result.status === "fulfilled" ? result.value : fallback);

async function loadBuilderData(project: ProjectDto, region: RegionAccess): Promise<BuilderData> {
  const [cohorts, types, events] = await Promise.allSettled([listCohorts(project.id), groupTypes(region.tokens), eventNames(region.tokens)]);
  return { cohorts: settled(cohorts, []), groupTypes: settled(types, { results: [] }).results, events: settled(events, []) };
}

/** A definition as it stands in the builder, or what keeps it from being one. */
function definitionOrProblem(draft: DraftGroup): { definition: CohortDefinition } | { problem: string } {
  try {
    return { definition: definitionOf(draft) };
  } catch (error) {
    if (error instanceof DraftProblem) return { problem: error.message };
    throw error;
  }
}

function Preview({ project, region, draft }: { project: ProjectDto; region: RegionAccess; draft: DraftGroup }) {
  const masking = readsMasked(useRegionScopes(region.tokens));
  const [state, setState] = useState<{ status: "idle" } | { status: "busy" } | { status: "done"; preview: CohortPreview; of: string } | { status: "failed"; error: unknown }>({ status: "idle" });
  const current = definitionOrProblem(draft);
  const run = async () => {
    if (!("definition" in current)) return setState({ status: "failed", error: new Error(current.problem) });
    setState({ status: "busy" });
    try {
      setState({ status: "done", preview: await previewCohort(region.tokens, current.definition, previewSample), of: JSON.stringify(current.definition) });
    } catch (error) {
      setState({ status: "failed", error });
    }
  };
  const changed = state.status === "done" && (!("definition" in current) || JSON.stringify(current.definition) !== state.of);
  return (
    <section class="card section" aria-labelledby="preview-title">
      <div class="section-head">
        <h2 id="preview-title" class="section-title">Preview</h2>
        <Button small onClick={() => void run()} busy={state.status === "busy"}>Preview</Button>
      </div>
      <p class="muted-text">Counts the definition as it stands now over {region.environment}'s events, without saving anything.</p>
      {state.status === "failed" && <Alert tone="error">{describeError(state.error)}</Alert>}
      {state.status === "done" && (
        <>
          <p class="preview-size" role="status">
            <span class="preview-number">{formatNumber(state.preview.size)}</span> {state.preview.size === 1 ? "person matches" : "persons match"}
            {changed && <span class="muted-text"> (before your last change: preview again)</span>}
          </p>
          {state.preview.sample.length > 0 && <PersonTable project={project} persons={state.preview.sample} masking={masking} caption="Sample of matching persons" />}
        </>
      )}
    </section>
  );
}

function Calculation({ project, region, cohort, onCalculated }: { project: ProjectDto; region: RegionAccess; cohort: Cohort; onCalculated(cohort: Cohort): void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const calculation = calculationIn(cohort, region.environment);
  const state = calculationState(cohort, calculation);
  const others = cohort.calculations.filter((other) => other.environment !== region.environment);
  const calculate = async () => {
    setBusy(true);
    setError(null);
    try {
      onCalculated(await calculateCohort(project.id, cohort.id, region.environment));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card section" aria-labelledby="calculation-title">
      <div class="section-head">
        <h2 id="calculation-title" class="section-title">Calculation in {region.environment}</h2>
        {canWrite(project) && <Button small variant="primary" busy={busy} onClick={() => void calculate()}>Calculate now</Button>}
      </div>
      <div class="calculation" aria-live="polite">
        {busy ? (
          <p class="calculation-progress" role="status"><Spinner /> Calculating in {region.environment}: reading the environment's events and persons…</p>
        ) : (
          <dl class="facts">
            <div><dt>Status</dt><dd><CalculationBadge state={state} /></dd></div>
            <div><dt>Size</dt><dd class="calculation-size">{sizeText(calculation)}</dd></div>
            <div><dt>Last calculated</dt><dd>{calculation ? formatDateTime(calculation.calculated_at, project.timezone) : "never"}</dd></div>
            {cohort.kind === "dynamic" && calculation?.cohort_version != null && <div><dt>Definition counted</dt><dd>version {calculation.cohort_version} of {cohort.version}</dd></div>}
          </dl>
        )}
        {!busy && calculation?.status === "error" && <Alert tone="error">The last calculation failed: {calculation.error}</Alert>}
        {!busy && state === "stale" && <p class="muted-text">The definition changed since this calculation; calculate again to count the new one (the schedule does within the hour).</p>}
        {!busy && state === "never" && <p class="muted-text">Not calculated in {region.environment} yet{cohort.kind === "dynamic" ? "; the schedule calculates new definitions within a minute or two, or calculate now" : ""}.</p>}
        {error !== null && <Alert tone="error">The calculation could not be asked for: {describeError(error)}</Alert>}
      </div>
      {others.length > 0 && (
        <details class="other-calculations">
          <summary>Other environments</summary>
          <ul>
            {others.map((other) => (
              <li key={other.environment}>
                {other.environment}: {other.status === "ok" ? `${sizeText(other)} persons` : `failed (${other.error})`}, <CalculatedAt calculation={other} timeZone={project.timezone} />
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function DeleteCohort({ project, cohort }: { project: ProjectDto; cohort: Cohort }) {
  const { route } = useLocation();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await deleteCohort(project.id, cohort.id);
      route(paths.cohorts(project.id));
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <>
      <Button variant="danger" onClick={() => { setError(null); setOpen(true); }}><TrashIcon />Delete cohort</Button>
      <ConfirmDialog open={open} title="Delete this cohort?" confirmLabel="Delete" danger busy={busy} onConfirm={() => void remove()} onClose={() => setOpen(false)}>
        <p>
          <span class="text-strong">{cohort.name}</span> will no longer be usable in insights, flags or other cohorts. A cohort that a flag or another cohort names cannot be deleted until they stop naming it.
        </p>
        {error !== null && (
          <Alert tone="error">
            {error instanceof ApiError && error.status === 409 ? "It cannot be deleted yet. " : "It was not deleted. "}
            {describeError(error)}
          </Alert>
        )}
      </ConfirmDialog>
    </>
  );
}

interface EditorProps {
  project: ProjectDto;
  region: RegionAccess;
  /** null: a new cohort. */
  cohort: Cohort | null;
  builder: BuilderData;
  onSaved(cohort: Cohort): void;
}

function Editor({ project, region, cohort, builder, onSaved }: EditorProps) {
  const { route } = useLocation();
  const [kind, setKind] = useState<CohortKind>(cohort?.kind ?? "dynamic");
  const [name, setName] = useState(cohort?.name ?? "");
  const [description, setDescription] = useState(cohort?.description ?? "");
  const [draft, setDraft] = useState<DraftGroup>(() => (cohort?.definition ? draftOf(cohort.definition) : newGroup()));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const writable = canWrite(project);

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    const trimmed = name.trim();
    if (trimmed === "") return setError(new Error("Give the cohort a name."));
    let definition: CohortDefinition | null = null;
    if (kind === "dynamic") {
      const built = definitionOrProblem(draft);
      if ("problem" in built) return setError(new Error(built.problem));
      definition = built.definition;
    }
    setBusy(true);
    try {
      const input = { name: trimmed, description: description.trim() === "" ? null : description, definition };
      if (cohort === null) {
        const created = await createCohort(project.id, kind, input);
        route(paths.cohort(project.id, created.id), true);
        return;
      }
      onSaved(await updateCohort(project.id, cohort.id, kind === "dynamic" ? input : { name: input.name, description: input.description }));
      setSaved(true);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form class="card section cohort-form" onSubmit={(event) => void save(event)} aria-label="Cohort">
        {cohort !== null && <h2 class="section-title">{kind === "dynamic" ? "Name and definition" : "Name"}</h2>}
        {cohort === null && (
          <fieldset class="field">
            <legend class="field-label">Kind</legend>
            <div class="choice-options">
              <label class="choice-option">
                <input type="radio" name="kind" value="dynamic" checked={kind === "dynamic"} onChange={() => setKind("dynamic")} />
                <span class="choice-name">Dynamic</span>
                <span class="choice-text">Persons who match conditions: properties, events in a time window, groups, other cohorts. Recalculated on a schedule.</span>
              </label>
              <label class="choice-option">
                <input type="radio" name="kind" value="static" checked={kind === "static"} onChange={() => setKind("static")} />
                <span class="choice-name">Static</span>
                <span class="choice-text">A fixed list of persons, uploaded as a CSV file of distinct ids once the cohort is created.</span>
              </label>
            </div>
          </fieldset>
        )}
        <TextField label="Name" name="name" value={name} required maxLength={nameLengthMax} disabled={!writable} onInput={(event) => setName(event.currentTarget.value)} />
        <div class="field">
          <label class="field-label" for="cohort-description">Description</label>
          <textarea id="cohort-description" class="input textarea" rows={2} maxLength={descriptionLengthMax} value={description} disabled={!writable} onInput={(event) => setDescription(event.currentTarget.value)} />
        </div>
        {kind === "dynamic" && (
          <div class="field">
            <span class="field-label" id="definition-label">Definition</span>
            <CriteriaBuilder
              root={draft}
              onChange={(next) => { setDraft(next); setSaved(false); }}
              context={{ cohorts: builder.cohorts.filter((other) => other.id !== cohort?.id), groupTypes: builder.groupTypes, eventList: "cohort-event-names", disabled: !writable }}
            />
            <datalist id="cohort-event-names">
              {builder.events.map((event) => <option key={event} value={event} />)}
            </datalist>
          </div>
        )}
        {error !== null && <Alert tone="error">{describeError(error)}</Alert>}
        {saved && <Alert tone="success">Saved.{kind === "dynamic" ? " Calculate to count the new definition now, or let the schedule do it." : ""}</Alert>}
        {writable && (
          <div class="cohort-actions">
            <Button type="submit" variant="primary" busy={busy}>{cohort === null ? "Create cohort" : "Save changes"}</Button>
            {cohort === null && <LinkButton href={paths.cohorts(project.id)} variant="ghost">Cancel</LinkButton>}
          </div>
        )}
      </form>
      {kind === "dynamic" && <Preview project={project} region={region} draft={draft} />}
    </>
  );
}

function EditorPage({ project, cohortId }: { project: ProjectDto; cohortId: string | null }) {
  const region = useRegion(project);
  const [data, reload] = useResource(
    async () => ({ cohort: cohortId === null ? null : await getCohort(project.id, cohortId), builder: await loadBuilderData(project, region) }),
    [project.id, cohortId, region.tokens],
  );
  const [latest, setLatest] = useState<Cohort | null>(null);
  if (data.status === "loading") return <LoadingState label="Loading the cohort…" />;
  if (data.status === "failed") {
    return isNotFound(data.error) ? (
      <EmptyState icon={<SearchOffIcon size={20} />} title="Cohort not found" action={<LinkButton href={paths.cohorts(project.id)} variant="primary">Go to cohorts</LinkButton>}>
        It may have been deleted.
      </EmptyState>
    ) : (
      <ErrorState title="The cohort could not be loaded" error={data.error} onRetry={reload} />
    );
  }
  const loaded = data.data.cohort;
  const cohort = latest && loaded && latest.id === loaded.id ? latest : loaded;
  return (
    <div class="page people-page">
      <div>
        <a href={paths.cohorts(project.id)} class="back-link">← Cohorts</a>
        <div class="page-head">
          <PageTitle title={cohort === null ? "New cohort" : cohort.name}>
            {cohort === null ? "A set of persons, to use in insights, flags and other cohorts." : cohort.kind === "dynamic" ? `Dynamic cohort · definition version ${cohort.version}` : "Static cohort: a list of persons"}
          </PageTitle>
          {cohort !== null && canWrite(project) && <DeleteCohort project={project} cohort={cohort} />}
        </div>
      </div>
      {cohort !== null && <Calculation project={project} region={region} cohort={cohort} onCalculated={setLatest} />}
      {cohort !== null && cohort.kind === "static" && canWrite(project) && <StaticMembers project={project} region={region} cohort={cohort} onCalculated={setLatest} />}
      <Editor key={cohort?.id ?? "new"} project={project} region={region} cohort={cohort} builder={data.data.builder} onSaved={setLatest} />
    </div>
  );
}

export function NewCohortPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <EditorPage project={project} cohortId={null} />}</ProjectScope>;
}

export default function CohortPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <EditorPage project={project} cohortId={params.cohortId!} />}</ProjectScope>;
}
