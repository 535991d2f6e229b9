// One experiment: its flag and environment, what it measures, the plan calculator, launch /
// stop / ship / delete (the API's refusal shown as it words it: a missing scope, a guardrail
// block), and once launched its results.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { ApiError, describeError } from "../../api/errors.ts";
import {
  deleteExperiment, experimentResults, getExperiment, listMetrics, transitionExperiment, updateExperiment, type ExperimentDto, type ExperimentResults, type MetricDto,
} from "../../api/experiments-api.ts";
import { isNotFound } from "../../api/http.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { flagAccess, productionEnvironment, type FlagAccess } from "../flags/flag-access.ts";
import { StatusBadge } from "./experiment-bits.tsx";
import { MetricsEditor } from "./metrics-editor.tsx";
import { PlanCalculator } from "./plan-calculator.tsx";
import { ResultsView } from "./results-view.tsx";

type Action = "launch" | "stop" | "ship" | "delete";

const actionTitles: Record<Action, string> = { launch: "Launch the experiment", stop: "Stop the experiment", ship: "Ship a variant", delete: "Delete the experiment" };
const refusalTitles: Record<Action, string> = { launch: "Launch refused", stop: "Stop refused", ship: "Shipping refused", delete: "Delete refused" };

/** Which actions a status allows (docs/experiments.md, States and transitions). */
const allowed: Record<ExperimentDto["status"], readonly Action[]> = {
  draft: ["launch", "delete"],
  running: ["stop", "ship"],
  stopped: ["ship", "delete"],
  shipped: ["delete"],
  archived: [],
};

/** Why the person's role cannot take an action, or null (the API decides in the end). */
function actionRefusal(action: Action, experiment: ExperimentDto, access: FlagAccess): string | null {
  if (!access.canWrite) return "Viewers cannot change experiments (experiments:write).";
  const production = experiment.environment === productionEnvironment && !access.canProduction;
  if (action === "ship" && !access.canShip) return "Shipping needs the experiments.ship scope, which only admins and owners hold.";
  if ((action === "launch" || action === "ship") && production) return `${action === "launch" ? "Launching" : "Shipping"} in production switches the flag on there, which needs flags.production (admins and owners).`;
  return null;
}

function ActionDialog({ action, experiment, projectId, onClose, onDone }: { action: Action; experiment: ExperimentDto; projectId: string; onClose(): void; onDone(experiment: ExperimentDto | null): void }) {
  const [blocked, setBlocked] = useState(false);
  const form = useFormAction(async (fields) => {
    try {
      if (action === "delete") {
        await deleteExperiment(projectId, experiment.id);
        onDone(null);
        return;
      }
      const reason = fieldText(fields, "reason").trim() || null;
      const input = action === "ship"
        ? { variant: fieldText(fields, "variant"), reason, override_block: fields.get("override_block") === "on" }
        : action === "stop" ? { reason } : {};
      onDone(await transitionExperiment(projectId, experiment.id, action, input));
    } catch (error) {
      if (error instanceof ApiError && error.code === "experiment_blocked") setBlocked(true);
      throw error;
    }
  });
  const explanation: Record<Action, ComponentChildren> = {
    launch: <>Flag <code>{experiment.flag_key}</code> is switched on in {experiment.environment} with its current variants, and exposures count from now.</>,
    stop: <>Results stop counting exposures and events from now. The flag keeps serving its variants.</>,
    ship: <>The chosen variant is served to everyone the flag matches in {experiment.environment}: its split becomes 100%, the others 0.</>,
    delete: <>The experiment is archived; its flag may then be measured by a new experiment. Nothing about the flag changes.</>,
  };
  return (
    <Dialog open title={actionTitles[action]} onClose={onClose}>
      <form class="form" onSubmit={form.onSubmit}>
        {form.error !== null && (
          <Alert tone="error">
            <strong>{form.error instanceof ApiError && form.error.code === "experiment_blocked" ? "Shipping is blocked" : refusalTitles[action]}: </strong>
            {describeError(form.error)}
          </Alert>
        )}
        <p>{explanation[action]}</p>
        {action === "ship" && (
          <SelectField label="Variant to ship" name="variant">
            {experiment.variants.map((variant) => <option key={variant.key} value={variant.key}>{variant.key}{variant.key === experiment.control_variant ? " (control)" : ""}</option>)}
          </SelectField>
        )}
        {(action === "stop" || action === "ship") && (
          <div class="field">
            <label class="field-label" for="transition-reason">Reason (kept with the decision)</label>
            <textarea id="transition-reason" name="reason" class="input textarea" rows={2} maxLength={2000} />
          </div>
        )}
        {action === "ship" && blocked && (
          <label class="checkbox">
            <input type="checkbox" name="override_block" />
            Ship anyway, past the harmed guardrail (the decision records it)
          </label>
        )}
        <div class="dialog-footer">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant={action === "delete" ? "danger" : "primary"} busy={form.busy}>{actionTitles[action].replace(/ the experiment| a variant/, "")}</Button>
        </div>
      </form>
    </Dialog>
  );
}

function SettingsForm({ projectId, experiment, editable, onSaved }: { projectId: string; experiment: ExperimentDto; editable: boolean; onSaved(experiment: ExperimentDto): void }) {
  const [saved, setSaved] = useState(false);
  const form = useFormAction(async (fields) => {
    setSaved(false);
    const number = (name: string) => Number(fieldText(fields, name));
    const mde = fieldText(fields, "mde").trim();
    const hypothesis = fieldText(fields, "hypothesis").trim();
    onSaved(await updateExperiment(projectId, experiment.id, {
      name: fieldText(fields, "name").trim(),
      hypothesis: hypothesis === "" ? null : hypothesis,
      method: fieldText(fields, "method") === "bayesian" ? "bayesian" : "frequentist",
      alpha: number("alpha"),
      power: number("power"),
      mde: mde === "" ? null : Number(mde) / 100,
      attribution_window_hours: number("attribution_window_hours"),
      control_variant: fieldText(fields, "control_variant"),
    }));
    setSaved(true);
  });
  return (
    <form class="form" onSubmit={form.onSubmit}>
      <FormError error={form.error} />
      {saved && <Alert tone="success">Settings saved.</Alert>}
      <fieldset class="env-fieldset" disabled={!editable}>
        <TextField label="Name" name="name" required maxLength={200} defaultValue={experiment.name} />
        <div class="field">
          <label class="field-label" for="settings-hypothesis">Hypothesis</label>
          <textarea id="settings-hypothesis" name="hypothesis" class="input textarea" rows={2} maxLength={5000} defaultValue={experiment.hypothesis ?? ""} />
        </div>
        <div class="field-row">
          <SelectField label="Method" name="method" defaultValue={experiment.method}>
            <option value="frequentist">Frequentist (p-values, confidence intervals)</option>
            <option value="bayesian">Bayesian (chance to beat control, credible intervals)</option>
          </SelectField>
          <SelectField label="Control variant" name="control_variant" defaultValue={experiment.control_variant}>
            {experiment.variants.map((variant) => <option key={variant.key} value={variant.key}>{variant.key}</option>)}
          </SelectField>
        </div>
        <div class="field-row">
          <TextField label="Alpha" name="alpha" inputMode="decimal" required defaultValue={String(experiment.alpha)} hint="False-positive rate, split over the treatments." />
          <TextField label="Power" name="power" inputMode="decimal" required defaultValue={String(experiment.power)} />
          <TextField label="Minimum detectable effect (%)" name="mde" inputMode="decimal" defaultValue={experiment.mde === null ? "" : String(Number((experiment.mde * 100).toFixed(6)))} />
          <TextField label="Attribution window (hours)" name="attribution_window_hours" inputMode="numeric" required defaultValue={String(experiment.attribution_window_hours)} />
        </div>
        <div class="form-actions">
          <Button type="submit" variant="primary" busy={form.busy}>Save settings</Button>
        </div>
      </fieldset>
    </form>
  );
}

function Section({ title, children, note }: { title: string; children: ComponentChildren; note?: ComponentChildren }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z]+/g, "-")}`;
  return (
    <section class="editor-section" aria-labelledby={id}>
      <h2 id={id} class="section-title">{title}</h2>
      {note && <p class="section-note">{note}</p>}
      {children}
    </section>
  );
}

function Results({ project, experiment }: { project: ProjectDto; experiment: ExperimentDto }) {
  const [refresh, setRefresh] = useState(0);
  const [results, reload] = useResource<ExperimentResults>(() => experimentResults(project.id, experiment.id, refresh > 0), [project.id, experiment.id, experiment.status, refresh]);
  if (results.status === "loading") return <LoadingState label={refresh > 0 ? "The region is computing the results…" : "Loading the results…"} />;
  if (results.status === "failed") return <ErrorState title="The results could not be computed" error={results.error} onRetry={reload} />;
  return <ResultsView experiment={experiment} results={results.data} timeZone={project.timezone} refreshing={false} onRefresh={() => setRefresh((count) => count + 1)} />;
}

function Decision({ experiment, timeZone }: { experiment: ExperimentDto; timeZone: string }) {
  const decision = experiment.decision as { variant?: string; reason?: string | null; override_block?: boolean; harmed_guardrails?: string[]; decided_at?: string; stop_reason?: string } | null;
  if (!decision) return null;
  return (
    <Alert tone="info">
      {decision.variant && <>Shipped <strong>{decision.variant}</strong>{decision.decided_at && <> on {formatDateTime(decision.decided_at, timeZone)}</>}{decision.reason ? `: ${decision.reason}` : "."} </>}
      {decision.override_block && <>It was shipped past harmed guardrails ({(decision.harmed_guardrails ?? []).join(", ")}). </>}
      {decision.stop_reason && <>Stopped: {decision.stop_reason}</>}
    </Alert>
  );
}

function ExperimentView({ project, initial, initialMetrics }: { project: ProjectDto; initial: ExperimentDto; initialMetrics: MetricDto[] }) {
  const { route } = useLocation();
  const access = flagAccess(project.role);
  const [experiment, setExperiment] = useState(initial);
  const [metrics, setMetrics] = useState(initialMetrics);
  const [action, setAction] = useState<Action | null>(null);
  const editable = access.canWrite && ["draft", "running", "stopped"].includes(experiment.status);
  const actions = allowed[experiment.status];
  const when = (iso: string | null) => (iso ? formatDateTime(iso, project.timezone) : "—");
  return (
    <div class="page">
      <nav class="breadcrumbs" aria-label="Breadcrumbs">
        <a href={paths.experiments(project.id)}>Experiments</a>
      </nav>
      <PageTitle title={experiment.name}>{experiment.hypothesis ?? "No hypothesis written yet."}</PageTitle>
      <div class="flag-meta">
        <StatusBadge status={experiment.status} />
        <code class="flag-key" aria-label="Experiment key">{experiment.key}</code>
        <span>Flag <a href={paths.flag(project.id, experiment.flag_id)}><code>{experiment.flag_key}</code></a> in {experiment.environment}</span>
        <span class="text-subtle">Variants {experiment.variants.map((variant) => `${variant.key} ${variant.rollout_percentage}%`).join(" / ")}</span>
        <span class="text-subtle">Started {when(experiment.start_at)}, ended {when(experiment.end_at)}</span>
      </div>
      <div class="experiment-actions" role="group" aria-label="Experiment actions">
        {actions.map((name) => {
          const refusal = actionRefusal(name, experiment, access);
          return (
            <span key={name} class="experiment-action">
              <Button variant={name === "delete" ? "danger" : name === "launch" || name === "ship" ? "primary" : "secondary"} disabled={refusal !== null} onClick={() => setAction(name)}>
                {{ launch: "Launch", stop: "Stop", ship: "Ship a variant", delete: "Delete" }[name]}
              </Button>
              {refusal && <span class="action-refusal">{refusal}</span>}
            </span>
          );
        })}
        {actions.length === 0 && <span class="text-subtle">Archived: nothing more can happen to this experiment.</span>}
      </div>
      <Decision experiment={experiment} timeZone={project.timezone} />
      {action && (
        <ActionDialog
          action={action}
          experiment={experiment}
          projectId={project.id}
          onClose={() => setAction(null)}
          onDone={(updated) => {
            setAction(null);
            if (updated) setExperiment(updated);
            else route(paths.experiments(project.id));
          }}
        />
      )}
      {experiment.status !== "draft" && (
        <Section title="Results" note="Computed by the region from exposures and events, kept for five minutes.">
          <Results project={project} experiment={experiment} />
        </Section>
      )}
      <Section title="Metrics">
        <MetricsEditor
          projectId={project.id}
          experiment={experiment}
          metrics={metrics}
          editable={editable}
          onMetricCreated={(metric) => setMetrics((list) => [...list, metric])}
          onSaved={setExperiment}
        />
      </Section>
      <Section title="Plan" note="How many persons each variant needs to detect the effect you care about, and how long that takes.">
        <PlanCalculator projectId={project.id} experiment={experiment} />
      </Section>
      <Section title="Settings">
        <SettingsForm projectId={project.id} experiment={experiment} editable={editable} onSaved={setExperiment} />
      </Section>
    </div>
  );
}

function ExperimentContent({ project, experimentId }: { project: ProjectDto; experimentId: string }) {
  const [loaded, reload] = useResource(async () => {
    const [experiment, metrics] = await Promise.all([getExperiment(project.id, experimentId), listMetrics(project.id)]);
    return { experiment, metrics: metrics.metrics };
  }, [project.id, experimentId]);
  if (loaded.status === "loading") return <LoadingState label="Loading the experiment…" />;
  if (loaded.status === "failed") {
    return isNotFound(loaded.error) ? (
      <EmptyState icon={<SearchOffIcon size={20} />} title="Experiment not found" action={<LinkButton href={paths.experiments(project.id)} variant="primary">All experiments</LinkButton>}>
        It may belong to another project.
      </EmptyState>
    ) : (
      <ErrorState title="The experiment could not be loaded" error={loaded.error} onRetry={reload} />
    );
  }
  return <ExperimentView project={project} initial={loaded.data.experiment} initialMetrics={loaded.data.metrics} />;
}

export default function ExperimentPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <ExperimentContent project={project} experimentId={params.experimentId!} />}</ProjectScope>;
}
