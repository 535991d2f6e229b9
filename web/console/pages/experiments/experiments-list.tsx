// "Experiments": the project's experiments with their flag, environment and status; a new one
// measures a multivariate flag, picked from the project's or created on the way.
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { createExperiment, listExperiments, listMetrics, type ExperimentDto, type MetricDto } from "../../api/experiments-api.ts";
import { createFlag, listFlags, type FlagDto } from "../../api/flags-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatRelative } from "../../format/date-time.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { FlaskIcon, PlusIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { flagAccess, writeRefusal } from "../flags/flag-access.ts";
import { orderedEnvironments } from "../flags/flag-bits.tsx";
import { StatusBadge } from "./experiment-bits.tsx";

interface ListData {
  experiments: ExperimentDto[];
  flags: FlagDto[];
  metrics: MetricDto[];
}

const loadList = async (projectId: string): Promise<ListData> => {
  const [experiments, flags, metrics] = await Promise.all([listExperiments(projectId), listFlags(projectId), listMetrics(projectId)]);
  return { experiments: experiments.experiments, flags: flags.flags, metrics: metrics.metrics };
};

/** Multivariate live flags that no experiment (other than an archived one) measures yet. */
export const measurableFlags = (data: ListData) => {
  const measured = new Set(data.experiments.filter((experiment) => experiment.status !== "archived").map((experiment) => experiment.flag_id));
  return data.flags.filter((flag) => flag.kind === "multivariate" && flag.archived_at === null && !measured.has(flag.id));
};

const newFlagChoice = "__new__";

function NewExperimentDialog({ project, data, open, initialFlag, onClose }: { project: ProjectDto; data: ListData; open: boolean; initialFlag: string | undefined; onClose(): void }) {
  const { route } = useLocation();
  const [created, setCreated] = useState<FlagDto[]>([]);
  const flags = [...measurableFlags(data), ...created];
  const [flagChoice, setFlagChoice] = useState(initialFlag && flags.some((flag) => flag.id === initialFlag) ? initialFlag : flags[0]?.id ?? newFlagChoice);
  const form = useFormAction(async (fields) => {
    const key = fieldText(fields, "key").trim();
    let flagId = flagChoice;
    if (flagChoice === newFlagChoice) {
      const flag = await createFlag(project.id, {
        key: fieldText(fields, "flag_key").trim(),
        name: fieldText(fields, "name").trim(),
        kind: "multivariate",
        variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }],
      });
      flagId = flag.id;
      // Kept as a choice, so a refused experiment can be sent again with the new flag.
      setCreated((list) => [...list, flag]);
      setFlagChoice(flag.id);
    }
    const primary = fieldText(fields, "primary_metric_id");
    const hypothesis = fieldText(fields, "hypothesis").trim();
    const created = await createExperiment(project.id, {
      flag_id: flagId,
      key,
      name: fieldText(fields, "name").trim(),
      environment: fieldText(fields, "environment"),
      hypothesis: hypothesis === "" ? null : hypothesis,
      ...(primary === "" ? {} : { primary_metric_id: primary }),
    });
    route(paths.experiment(project.id, created.id));
  });
  return (
    <Dialog open={open} title="New experiment" onClose={onClose} wide>
      <form class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <div class="field-row">
          <TextField label="Name" name="name" required maxLength={200} placeholder="New checkout" />
          <TextField label="Key" name="key" required maxLength={200} pattern="[A-Za-z0-9_.\-]+" placeholder="new-checkout" hint="Letters, digits, _ . and -." />
        </div>
        <SelectField label="Flag" name="flag" value={flagChoice} onChange={(event) => setFlagChoice(event.currentTarget.value)} hint="An experiment measures a multivariate flag: the variants its people get.">
          {flags.map((flag) => <option key={flag.id} value={flag.id}>{flag.name} ({flag.key}: {flag.environments.production?.variants.map((variant) => variant.key).join(", ") ?? "variants"})</option>)}
          <option value={newFlagChoice}>Create a new multivariate flag (control / test)…</option>
        </SelectField>
        {flagChoice === newFlagChoice && (
          <TextField label="New flag key" name="flag_key" required maxLength={200} pattern="[A-Za-z0-9_.\-]+" placeholder="new-checkout" hint="The flag gets the experiment's name and the variants control and test, 50 / 50." />
        )}
        <div class="field-row">
          <SelectField label="Environment" name="environment" hint="Where it runs; launching switches the flag on there.">
            {orderedEnvironments(project).map((name) => <option key={name} value={name}>{name}</option>)}
          </SelectField>
          <SelectField label="Primary metric" name="primary_metric_id" hint="Needed before launching; it can be chosen later.">
            <option value="">Choose later</option>
            {data.metrics.map((metric) => <option key={metric.id} value={metric.id}>{metric.name} ({metric.key})</option>)}
          </SelectField>
        </div>
        <div class="field">
          <label class="field-label" for="experiment-hypothesis">Hypothesis</label>
          <textarea id="experiment-hypothesis" name="hypothesis" class="input textarea" rows={2} maxLength={5000} placeholder="The one-page checkout raises purchases by 5%." />
        </div>
        <div class="dialog-footer">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={form.busy}>Create experiment</Button>
        </div>
      </form>
    </Dialog>
  );
}

function ExperimentsList({ project }: { project: ProjectDto }) {
  const { route, query } = useLocation();
  const access = flagAccess(project.role);
  const [creating, setCreating] = useState(query.new === "1");
  const [list, reload] = useResource(() => loadList(project.id), [project.id]);
  const refusal = writeRefusal(access);
  return (
    <div class="page">
      <PageTitle title="Experiments">Measure what a flag's variants do to your metrics, with the statistics to say when a difference is real.</PageTitle>
      <div class="toolbar">
        <Button variant="primary" onClick={() => setCreating(true)} disabled={!access.canWrite || list.status !== "ready"} title={refusal ?? undefined}>
          <PlusIcon />
          New experiment
        </Button>
      </div>
      {refusal && <p class="gate-note">{refusal}</p>}
      {list.status === "loading" && <LoadingState label="Loading experiments…" />}
      {list.status === "failed" && <ErrorState title="Experiments could not be loaded" error={list.error} onRetry={reload} />}
      {list.status === "ready" && (
        <>
          <div class="list-table">
          <DataTable
            caption="Experiments"
            rows={list.data.experiments}
            rowKey={(experiment) => experiment.id}
            onRowClick={(experiment) => route(paths.experiment(project.id, experiment.id))}
            columns={[
              {
                label: "Experiment",
                cell: (experiment) => (
                  <div class="flag-cell">
                    <a href={paths.experiment(project.id, experiment.id)} class="flag-name" onClick={(event) => event.stopPropagation()}>{experiment.name}</a>
                    <code class="flag-key">{experiment.key}</code>
                  </div>
                ),
              },
              { label: "Status", cell: (experiment) => <StatusBadge status={experiment.status} /> },
              { label: "Flag", cell: (experiment) => <code>{experiment.flag_key ?? "—"}</code> },
              { label: "Environment", cell: (experiment) => experiment.environment },
              { label: "Primary metric", cell: (experiment) => experiment.primary_metric?.name ?? <span class="text-subtle">none yet</span> },
              {
                label: "Started",
                cell: (experiment) => (experiment.start_at ? <time dateTime={experiment.start_at} title={experiment.start_at}>{formatRelative(experiment.start_at)}</time> : <span class="text-subtle">not launched</span>),
              },
            ]}
            empty={
              <EmptyState icon={<FlaskIcon size={20} />} title="No experiments yet" action={access.canWrite && <Button variant="primary" onClick={() => setCreating(true)}>Create an experiment</Button>}>
                An experiment takes a multivariate flag, a primary metric and guardrails, and tells you which variant to ship.
              </EmptyState>
            }
          />
          </div>
          <NewExperimentDialog project={project} data={list.data} open={creating} initialFlag={query.flag} onClose={() => setCreating(false)} />
        </>
      )}
    </div>
  );
}

export default function ExperimentsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <ExperimentsList project={project} />}</ProjectScope>;
}
