// "Tracking plan": the catalog's events with their status, volume over 30 days and when they
// were last seen; filtered by status and searched by name; synced from the region; each opens
// for editing. The generated code downloads from here.
import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { catalogStatuses, createCatalogEvent, listCatalogEvents, type CatalogEventDto, type CatalogStatus } from "../../api/catalog.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useFormAction, fieldText } from "../../hooks/use-form-action.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ClipboardListIcon, PlusIcon, SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { CatalogActions } from "./catalog-actions.tsx";
import { statusLabels, StatusBadge } from "./catalog-statuses.tsx";

/** The route's bound on a search (docs/catalog.md, Limits). */
const catalogSearchLengthMax = 200;
/** How long typing pauses before the list is searched again. */
const searchDelayMs = 250;

function LastSeen({ at, timeZone }: { at: string | null; timeZone: string }) {
  if (at === null) return <span class="cell-null">never</span>;
  return <time dateTime={at} title={formatDateTime(at, timeZone)}>{formatRelative(at)}</time>;
}

function PlanEventDialog({ projectId, open, onClose }: { projectId: string; open: boolean; onClose(): void }) {
  const { route } = useLocation();
  const form = useFormAction(async (fields) => {
    const created = await createCatalogEvent(projectId, { name: fieldText(fields, "name"), description: fieldText(fields, "description") || null });
    route(paths.projectCatalogEvent(projectId, created.id));
  });
  return (
    <Dialog open={open} title="Plan an event" onClose={onClose}>
      <form class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <TextField label="Event name" name="name" required maxLength={200} hint="As the code will send it, e.g. order_completed" />
        <TextField label="Description" name="description" maxLength={2000} />
        <div class="dialog-footer">
          <Button onClick={onClose} disabled={form.busy}>Cancel</Button>
          <Button type="submit" variant="primary" busy={form.busy}>Plan it</Button>
        </div>
      </form>
    </Dialog>
  );
}

function CatalogContent({ project }: { project: ProjectDto }) {
  const { route } = useLocation();
  const { environment } = useRegion(project);
  const [status, setStatus] = useState<CatalogStatus | "">("");
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  const [planning, setPlanning] = useState(false);
  const [list, reload] = useResource(() => listCatalogEvents(project.id, { status: status || null, search: search.trim() || null }), [project.id, status, search]);
  const canWrite = project.role !== "viewer";
  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed), searchDelayMs);
    return () => clearTimeout(timer);
  }, [typed]);
  const counts = list.status === "ready" ? list.data.counts : null;
  const filtered = status !== "" || search.trim() !== "";

  return (
    <div class="page">
      <PageTitle title="Tracking plan">
        The events this project plans to send and the ones it does, with what each carries. Sync to bring in what the region has seen.
      </PageTitle>
      <CatalogActions projectId={project.id} environment={environment} canWrite={canWrite} onSynced={reload} />
      <div class="card filter-bar catalog-filters" role="search">
        <TextField label="Search" name="search" type="search" value={typed} maxLength={catalogSearchLengthMax} placeholder="Event name" onInput={(input) => setTyped(input.currentTarget.value)} />
        <label class="field">
          <span class="field-label">Status</span>
          <select class="input select" name="status" value={status} onChange={(change) => setStatus(change.currentTarget.value as CatalogStatus | "")}>
            <option value="">Every status{counts ? ` (${formatNumber(catalogStatuses.reduce((sum, name) => sum + counts[name], 0))})` : ""}</option>
            {catalogStatuses.map((name) => (
              <option key={name} value={name}>{statusLabels[name]}{counts ? ` (${formatNumber(counts[name])})` : ""}</option>
            ))}
          </select>
        </label>
        <div class="filter-actions">
          {canWrite && <Button onClick={() => setPlanning(true)}><PlusIcon /> Plan an event</Button>}
        </div>
      </div>
      {list.status === "loading" && <LoadingState label="Loading the tracking plan…" />}
      {list.status === "failed" && <ErrorState title="The tracking plan could not be loaded" error={list.error} onRetry={reload} />}
      {list.status === "ready" && (
        <section class="card table-card" aria-label="Events of the plan">
          <DataTable<CatalogEventDto>
            caption="Events of the tracking plan"
            columns={[
              {
                label: "Event",
                cell: (event) => (
                  <a class="catalog-event-link" href={paths.projectCatalogEvent(project.id, event.id)} onClick={(click) => click.stopPropagation()}>
                    <code class="cell-code">{event.name}</code>
                    {event.display_name && <span class="catalog-display-name">{event.display_name}</span>}
                  </a>
                ),
              },
              { label: "Status", cell: (event) => <StatusBadge status={event.status} /> },
              { label: "Properties", numeric: true, cell: (event) => formatNumber(event.properties.length) },
              { label: "Volume (30 days)", numeric: true, cell: (event) => (event.volume_30d === null ? <span class="cell-null">not synced</span> : formatNumber(event.volume_30d)) },
              { label: "Last seen", cell: (event) => <LastSeen at={event.last_seen_at} timeZone={project.timezone} /> },
              { label: "Tags", cell: (event) => <span class="tag-list">{event.tags.map((tag) => <span key={tag} class="badge">{tag}</span>)}</span> },
            ]}
            rows={list.data.events}
            rowKey={(event) => event.id}
            onRowClick={(event) => route(paths.projectCatalogEvent(project.id, event.id))}
            empty={
              filtered ? (
                <EmptyState icon={<SearchOffIcon size={20} />} title="No events match" action={<Button onClick={() => (setTyped(""), setSearch(""), setStatus(""))}>Show every event</Button>}>
                  Nothing in the plan has that name or status.
                </EmptyState>
              ) : (
                <EmptyState icon={<ClipboardListIcon size={20} />} title="The tracking plan is empty">
                  {canWrite ? `Sync from ${environment} to list the events it receives, or plan an event before the code sends it.` : "Members of the project can sync it from the region or plan events."}
                </EmptyState>
              )
            }
          />
        </section>
      )}
      {canWrite && <PlanEventDialog projectId={project.id} open={planning} onClose={() => setPlanning(false)} />}
    </div>
  );
}

export default function CatalogPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <CatalogContent project={project} />}</ProjectScope>;
}
