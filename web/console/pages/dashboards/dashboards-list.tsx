// "/projects/{id}/dashboards": the project's dashboards, the home one first, then by name
// (the API's order), with their descriptions, tags, tile counts and when they last changed.
// Search by name or description; create one (it opens at once); delete one after confirming.
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { createDashboard, deleteDashboard, listDashboards } from "../../api/dashboards-api.ts";
import type { DashboardListResponse, DashboardSummaryDto } from "../../api/dashboard-types.ts";
import { describeError } from "../../api/errors.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable, type Column } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { DashboardIcon, HomeIcon, PlusIcon, SearchOffIcon, TrashIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { DashboardDetailsDialog } from "./dashboard-dialogs.tsx";
import { Tags } from "./tags.tsx";
import { useDebounced } from "./use-debounced.ts";

/** Loads pages of the list until `pages` of them are in, so "Show more" keeps what is shown. */
async function loadPages(projectId: string, search: string, pages: number): Promise<DashboardListResponse> {
  const dashboards: DashboardSummaryDto[] = [];
  let offset: number | null = 0;
  for (let page = 0; page < pages && offset !== null; page++) {
    const answer: DashboardListResponse = await listDashboards(projectId, { search, offset });
    dashboards.push(...answer.dashboards);
    offset = answer.next_offset;
  }
  return { dashboards, next_offset: offset };
}

function DashboardsContent({ project }: { project: ProjectDto }) {
  const [search, setSearch] = useState("");
  const query = useDebounced(search.trim());
  const [pages, setPages] = useState(1);
  const [list, reload] = useResource(() => loadPages(project.id, query, pages), [project.id, query, pages]);
  const [creating, setCreating] = useState(false);
  const [doomed, setDoomed] = useState<DashboardSummaryDto | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const canWrite = project.role !== "viewer";
  const { route } = useLocation();

  const create = async ({ name, description }: { name: string; description: string | null }) => {
    const created = await createDashboard(project.id, { name, description });
    route(paths.dashboard(project.id, created.id));
  };
  const confirmDelete = async () => {
    if (!doomed) return;
    setDeleting(true);
    setDeleteError(null);
    try {
      await deleteDashboard(project.id, doomed.id);
      setDoomed(null);
      reload();
    } catch (error) {
      setDeleteError(error);
    } finally {
      setDeleting(false);
    }
  };

  const columns: Column<DashboardSummaryDto>[] = [
    {
      label: "Name",
      cell: (dashboard) => (
        <div class="list-name">
          <a href={paths.dashboard(project.id, dashboard.id)} class="list-name-link">{dashboard.name}</a>
          {dashboard.is_home && <span class="badge badge-accent home-badge" title="The project's home dashboard"><HomeIcon size={12} /> Home</span>}
          {dashboard.description && <p class="list-description">{dashboard.description}</p>}
        </div>
      ),
    },
    { label: "Tags", cell: (dashboard) => <Tags tags={dashboard.tags} /> },
    { label: "Tiles", numeric: true, cell: (dashboard) => formatNumber(dashboard.tile_count) },
    { label: "Updated", cell: (dashboard) => <time dateTime={dashboard.updated_at} title={formatDateTime(dashboard.updated_at, project.timezone)}>{formatRelative(dashboard.updated_at)}</time> },
    ...(canWrite
      ? [{
          label: "Actions",
          actions: true,
          cell: (dashboard: DashboardSummaryDto) => (
            <Button small variant="ghost" aria-label={`Delete ${dashboard.name}`} onClick={() => (setDeleteError(null), setDoomed(dashboard))}>
              <TrashIcon /> Delete
            </Button>
          ),
        }]
      : []),
  ];

  const newButton = canWrite && (
    <Button variant="primary" onClick={() => setCreating(true)}><PlusIcon /> New dashboard</Button>
  );

  return (
    <div class="page">
      <div class="page-heading">
        <PageTitle title="Dashboards">Tiles of saved insights and notes, arranged on a grid, for the {project.name} project.</PageTitle>
        {newButton}
      </div>
      <div class="list-toolbar">
        <TextField label="Search dashboards" name="search" type="search" placeholder="Name or description" value={search} onInput={(event) => (setSearch(event.currentTarget.value), setPages(1))} />
      </div>
      {list.status === "loading" && <LoadingState label="Loading dashboards…" />}
      {list.status === "failed" && <ErrorState title="The dashboards could not be loaded" error={list.error} onRetry={reload} />}
      {list.status === "ready" && (
        <>
          <DataTable
            caption="Dashboards"
            columns={columns}
            rows={list.data.dashboards}
            rowKey={(dashboard) => dashboard.id}
            empty={
              query ? (
                <EmptyState icon={<SearchOffIcon size={20} />} title="No dashboards match">Nothing is named or described with “{query}”.</EmptyState>
              ) : (
                <EmptyState icon={<DashboardIcon size={20} />} title="No dashboards yet" action={newButton}>
                  A dashboard gathers saved insights and notes on one page, for everyone in the project.
                </EmptyState>
              )
            }
          />
          {list.data.next_offset !== null && (
            <div class="list-more">
              <Button onClick={() => setPages((count) => count + 1)}>Show more</Button>
            </div>
          )}
        </>
      )}
      <DashboardDetailsDialog open={creating} title="New dashboard" submitLabel="Create dashboard" onClose={() => setCreating(false)} onSubmit={create} />
      <ConfirmDialog open={doomed !== null} title="Delete this dashboard?" confirmLabel="Delete dashboard" danger busy={deleting} onConfirm={confirmDelete} onClose={() => setDoomed(null)}>
        {deleteError !== null && <Alert tone="error">{describeError(deleteError)}</Alert>}
        <p>
          <span class="text-strong">{doomed?.name}</span> and its {formatNumber(doomed?.tile_count ?? 0)} tiles will be deleted. The saved insights it shows are kept.
        </p>
      </ConfirmDialog>
    </div>
  );
}

export default function DashboardsListPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <DashboardsContent project={project} />}</ProjectScope>;
}
