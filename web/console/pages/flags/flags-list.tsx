// "Feature flags": the project's flags with their state in each environment, whether the
// region serves them as they are, tags and a search; a new flag starts here and opens in its
// editor.
import { useMemo, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { createFlag, listFlagPublications, listFlags, type FlagDto, type FlagKind, type FlagPublication } from "../../api/flags-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button } from "../../ui/button.tsx";
import { DataTable, type Column } from "../../ui/data-table.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { FlagIcon, PlusIcon, SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { flagAccess, writeRefusal } from "./flag-access.ts";
import { rolloutSummary, splitSummary } from "./flag-summary.ts";
import { publicationSummary } from "./publication-status.ts";
import { orderedEnvironments, TagList } from "./flag-bits.tsx";

interface ListData {
  flags: FlagDto[];
  publications: FlagPublication[];
}

const loadList = async (projectId: string, archived: boolean): Promise<ListData> => {
  const [flags, publications] = await Promise.all([listFlags(projectId, archived), listFlagPublications(projectId)]);
  return { flags: flags.flags, publications: publications.publications };
};

/** Case-insensitive search over key, name, description and tags. */
export function matchesSearch(flag: FlagDto, search: string): boolean {
  const wanted = search.trim().toLowerCase();
  if (wanted === "") return true;
  return [flag.key, flag.name, flag.description ?? "", ...flag.tags].some((text) => text.toLowerCase().includes(wanted));
}

function EnvironmentCell({ flag, environment }: { flag: FlagDto; environment: string }) {
  const config = flag.environments[environment];
  if (!config) return <span class="text-subtle">—</span>;
  return (
    <div class="env-cell">
      <span class={config.enabled ? "badge badge-on" : "badge badge-off"}>{config.enabled ? "On" : "Off"}</span>
      <span class="env-cell-text">
        {rolloutSummary(config)}
        {flag.kind === "multivariate" && <span class="env-cell-split">{splitSummary(config)}</span>}
      </span>
    </div>
  );
}

const newFlagVariants = [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }];

function NewFlagDialog({ project, open, onClose }: { project: ProjectDto; open: boolean; onClose(): void }) {
  const { route } = useLocation();
  const [kind, setKind] = useState<FlagKind>("boolean");
  const form = useFormAction(async (fields) => {
    const description = fieldText(fields, "description").trim();
    const created = await createFlag(project.id, {
      key: fieldText(fields, "key").trim(),
      name: fieldText(fields, "name").trim(),
      description: description === "" ? null : description,
      kind,
      ...(kind === "multivariate" ? { variants: newFlagVariants } : {}),
    });
    route(paths.flag(project.id, created.id));
  });
  return (
    <Dialog open={open} title="New feature flag" onClose={onClose}>
      <form class="form" onSubmit={form.onSubmit} id="new-flag-form">
        <FormError error={form.error} />
        <TextField label="Key" name="key" required maxLength={200} pattern="[A-Za-z0-9_.\-]+" placeholder="new-checkout" hint="What your code asks for: letters, digits, _ . and -. It cannot change later." />
        <TextField label="Name" name="name" required maxLength={200} placeholder="New checkout" />
        <div class="field">
          <label class="field-label" for="new-flag-description">Description</label>
          <textarea id="new-flag-description" name="description" class="input textarea" rows={2} maxLength={2000} />
        </div>
        <fieldset class="field">
          <legend class="field-label">Type</legend>
          <div class="choice-row">
            <label class="choice">
              <input type="radio" name="kind" value="boolean" checked={kind === "boolean"} onChange={() => setKind("boolean")} />
              <span><strong>Boolean</strong><span class="choice-hint">On or off, with an optional payload.</span></span>
            </label>
            <label class="choice">
              <input type="radio" name="kind" value="multivariate" checked={kind === "multivariate"} onChange={() => setKind("multivariate")} />
              <span><strong>Multivariate</strong><span class="choice-hint">Variants with splits and payloads; starts as control 50 / test 50.</span></span>
            </label>
          </div>
        </fieldset>
        <p class="field-hint">A new flag starts off in every environment, matching everyone once it is switched on.</p>
        <div class="dialog-footer">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={form.busy}>Create flag</Button>
        </div>
      </form>
    </Dialog>
  );
}

function FlagsList({ project }: { project: ProjectDto }) {
  const { route } = useLocation();
  const access = flagAccess(project.role);
  const [archived, setArchived] = useState(false);
  const [search, setSearch] = useState("");
  const [creating, setCreating] = useState(false);
  const [list, reload] = useResource(() => loadList(project.id, archived), [project.id, archived]);
  const environments = orderedEnvironments(project);
  const refusal = writeRefusal(access);

  const columns = useMemo((): Column<FlagDto>[] => {
    const publications = list.status === "ready" ? list.data.publications : [];
    return [
      {
        label: "Flag",
        cell: (flag) => (
          <div class="flag-cell">
            <a href={paths.flag(project.id, flag.id)} class="flag-name" onClick={(event) => event.stopPropagation()}>{flag.name}</a>
            <code class="flag-key">{flag.key}</code>
          </div>
        ),
      },
      { label: "Type", cell: (flag) => <span class="nowrap">{flag.kind === "multivariate" ? "Multivariate" : "Boolean"}</span> },
      ...environments.map((environment): Column<FlagDto> => ({ label: environment, cell: (flag) => <EnvironmentCell flag={flag} environment={environment} /> })),
      {
        label: "Region",
        cell: (flag) => {
          const summary = publicationSummary(flag, environments, publications);
          return <span class={`status status-${summary.tone}`}>{summary.text}</span>;
        },
      },
      { label: "Tags", cell: (flag) => <TagList tags={flag.tags} /> },
    ];
  }, [list, project.id, environments.join("\n")]);

  const shown = list.status === "ready" ? list.data.flags.filter((flag) => matchesSearch(flag, search)) : [];
  return (
    <div class="page">
      <PageTitle title="Feature flags">Turn features on for some people, roll them out gradually, and serve variants with payloads. SDKs get each environment's flags from the region.</PageTitle>
      <div class="toolbar">
        <input type="search" class="input toolbar-search" aria-label="Search flags" placeholder="Search by key, name, description or tag" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        <label class="checkbox">
          <input type="checkbox" checked={archived} onChange={(event) => setArchived(event.currentTarget.checked)} />
          Show archived
        </label>
        <Button variant="primary" onClick={() => setCreating(true)} disabled={!access.canWrite} title={refusal ?? undefined}>
          <PlusIcon />
          New flag
        </Button>
      </div>
      {refusal && <p class="gate-note">{refusal}</p>}
      {list.status === "loading" && <LoadingState label="Loading flags…" />}
      {list.status === "failed" && <ErrorState title="Flags could not be loaded" error={list.error} onRetry={reload} />}
      {list.status === "ready" && (
        list.data.flags.length === 0 ? (
          <EmptyState
            icon={<FlagIcon size={20} />}
            title={archived ? "No flags, archived or not" : "No feature flags yet"}
            action={access.canWrite && <Button variant="primary" onClick={() => setCreating(true)}>Create a flag</Button>}
          >
            A flag lets your code ask whether a feature is on for someone, and which variant they get.
          </EmptyState>
        ) : (
          <div class="list-table">
          <DataTable
            caption="Feature flags"
            columns={columns}
            rows={shown}
            rowKey={(flag) => flag.id}
            onRowClick={(flag) => route(paths.flag(project.id, flag.id))}
            empty={<EmptyState icon={<SearchOffIcon size={20} />} title="No flag matches">Nothing in the keys, names, descriptions or tags contains “{search.trim()}”.</EmptyState>}
          />
          </div>
        )
      )}
      <NewFlagDialog project={project} open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}

export default function FlagsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <FlagsList project={project} />}</ProjectScope>;
}
