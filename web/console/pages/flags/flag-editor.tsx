// A feature flag: its name, key, description and tags, and per environment (tabs) its serving
// state, release conditions, variants or payload and bucketing; whether the region serves it
// as it is; and what it answers for a distinct id. Archiving ends it everywhere.
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { isNotFound } from "../../api/http.ts";
import { archiveFlag, getFlag, listCohortOptions, listFlagPublications, updateFlag, type CohortOption, type FlagDto, type FlagPublication } from "../../api/flags-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { currentEnvironment } from "../../state/environment.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { Tabs } from "../../ui/tabs.tsx";
import { describeError } from "../../api/errors.ts";
import { flagAccess, productionEnvironment, productionRefusal, writeRefusal } from "./flag-access.ts";
import { orderedEnvironments, TagList } from "./flag-bits.tsx";
import { EnvironmentPanel } from "./environment-panel.tsx";

interface Loaded {
  flag: FlagDto;
  publications: FlagPublication[];
  cohorts: CohortOption[];
}

const loadFlag = async (projectId: string, flagId: string): Promise<Loaded> => {
  const [flag, publications, cohorts] = await Promise.all([
    getFlag(projectId, flagId),
    listFlagPublications(projectId),
    // Cohorts only fill the cohort picker: a flag still opens when they cannot be listed.
    listCohortOptions(projectId).catch(() => ({ cohorts: [] as CohortOption[] })),
  ]);
  return { flag, publications: publications.publications, cohorts: cohorts.cohorts };
};

/** Tags typed as "a, b, c". */
export const parseTags = (text: string) => [...new Set(text.split(",").map((tag) => tag.trim()).filter((tag) => tag !== ""))];

function DetailsDialog({ project, flag, open, onClose, onSaved }: { project: ProjectDto; flag: FlagDto; open: boolean; onClose(): void; onSaved(flag: FlagDto): void }) {
  const form = useFormAction(async (fields) => {
    const description = fieldText(fields, "description").trim();
    onSaved(await updateFlag(project.id, flag.id, { name: fieldText(fields, "name").trim(), description: description === "" ? null : description, tags: parseTags(fieldText(fields, "tags")) }));
    onClose();
  });
  return (
    <Dialog open={open} title="Flag details" onClose={onClose}>
      <form class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <TextField label="Name" name="name" required maxLength={200} defaultValue={flag.name} />
        <div class="field">
          <label class="field-label" for="flag-description">Description</label>
          <textarea id="flag-description" name="description" class="input textarea" rows={3} maxLength={2000} defaultValue={flag.description ?? ""} />
        </div>
        <TextField label="Tags" name="tags" defaultValue={flag.tags.join(", ")} hint="Separated by commas." />
        <div class="dialog-footer">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={form.busy}>Save details</Button>
        </div>
      </form>
    </Dialog>
  );
}

function FlagEditor({ project, loaded, onReloadPublications }: { project: ProjectDto; loaded: Loaded; onReloadPublications(): Promise<FlagPublication[]> }) {
  const { route } = useLocation();
  const access = flagAccess(project.role);
  const [flag, setFlag] = useState(loaded.flag);
  const [publications, setPublications] = useState(loaded.publications);
  const environments = orderedEnvironments(project).filter((name) => flag.environments[name]);
  const [environment, setEnvironment] = useState(() => {
    const chosen = currentEnvironment(project);
    return environments.includes(chosen) ? chosen : environments[0]!;
  });
  const [editing, setEditing] = useState(false);
  const [archiving, setArchiving] = useState(false);
  const [archiveBusy, setArchiveBusy] = useState(false);
  const [archiveError, setArchiveError] = useState<unknown>(null);
  const archived = flag.archived_at !== null;

  const changed = async (updated: FlagDto) => {
    setFlag(updated);
    setPublications(await onReloadPublications());
  };

  const archiveRefusal = writeRefusal(access) ?? (flag.environments[productionEnvironment]?.enabled ? productionRefusal(access) : null);
  const archive = async () => {
    setArchiveBusy(true);
    setArchiveError(null);
    try {
      await archiveFlag(project.id, flag.id);
      route(paths.flags(project.id));
    } catch (error) {
      setArchiveError(error);
      setArchiving(false);
    } finally {
      setArchiveBusy(false);
    }
  };

  return (
    <div class="page">
      <nav class="breadcrumbs" aria-label="Breadcrumbs">
        <a href={paths.flags(project.id)}>Feature flags</a>
      </nav>
      <PageTitle title={flag.name}>{flag.description ?? "No description."}</PageTitle>
      <div class="flag-meta">
        <code class="flag-key" aria-label="Flag key">{flag.key}</code>
        <span class="badge">{flag.kind === "multivariate" ? "Multivariate" : "Boolean"}</span>
        <TagList tags={flag.tags} />
        {flag.experiment_id && <a href={paths.experiment(project.id, flag.experiment_id)}>Measured by an experiment</a>}
        {!flag.experiment_id && flag.kind === "multivariate" && !archived && access.canWrite && <a href={paths.newExperiment(project.id, flag.id)}>Run an experiment on it</a>}
        <span class="flag-meta-actions">
          <Button small onClick={() => setEditing(true)} disabled={archived || !access.canWrite} title={writeRefusal(access) ?? undefined}>Edit details</Button>
          <Button small variant="danger" onClick={() => setArchiving(true)} disabled={archived || archiveRefusal !== null} title={archiveRefusal ?? undefined}>Archive</Button>
        </span>
      </div>
      {archiveError !== null && <Alert tone="error">{describeError(archiveError)}</Alert>}
      <Tabs label="Environment" tabs={environments.map((name) => ({ id: name, label: name }))} selected={environment} onSelect={setEnvironment}>
        <EnvironmentPanel
          key={`${environment}:${flag.archived_at}`}
          project={project}
          flag={flag}
          environment={environment}
          access={access}
          publications={publications}
          cohorts={loaded.cohorts}
          onSaved={(updated) => void changed(updated)}
        />
      </Tabs>
      <DetailsDialog project={project} flag={flag} open={editing} onClose={() => setEditing(false)} onSaved={(updated) => void changed(updated)} />
      <ConfirmDialog open={archiving} title={`Archive ${flag.key}?`} confirmLabel="Archive flag" danger busy={archiveBusy} onConfirm={() => void archive()} onClose={() => setArchiving(false)}>
        <p>The flag stops being served in every environment: SDKs asking for it get nothing. Its key stays taken. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}

function FlagPageContent({ project, flagId }: { project: ProjectDto; flagId: string }) {
  const [loaded, reload] = useResource(() => loadFlag(project.id, flagId), [project.id, flagId]);
  if (loaded.status === "loading") return <LoadingState label="Loading the flag…" />;
  if (loaded.status === "failed") {
    return isNotFound(loaded.error) ? (
      <EmptyState icon={<SearchOffIcon size={20} />} title="Flag not found" action={<LinkButton href={paths.flags(project.id)} variant="primary">All flags</LinkButton>}>
        It may belong to another project.
      </EmptyState>
    ) : (
      <ErrorState title="The flag could not be loaded" error={loaded.error} onRetry={reload} />
    );
  }
  return <FlagEditor project={project} loaded={loaded.data} onReloadPublications={async () => (await listFlagPublications(project.id)).publications} />;
}

export default function FlagPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <FlagPageContent project={project} flagId={params.flagId!} />}</ProjectScope>;
}
