// /projects/{id}/insights: the project's saved insights, searched and filtered (favourites,
// kind, a tag) with the filters in the URL, each opened, favourited or deleted from its row.
import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { deleteInsight, favoriteInsight, listInsights, type InsightListFilters } from "../../api/insights.ts";
import type { InsightDto, InsightListResponse } from "../../api/insight-types.ts";
import type { InsightKind } from "../../api/query-types.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Button, LinkButton } from "../../ui/button.tsx";
import { DataTable, type Column } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ChartIcon, PlusIcon, SearchOffIcon, StarIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { insightKindList } from "./url-state.ts";

/** Quiet time after typing in the search box before the list is asked again. */
export const searchDebounceMs = 300;

const kindNames: Record<InsightKind, string> = { trends: "Trends", funnel: "Funnel", retention: "Retention", paths: "Paths", lifecycle: "Lifecycle", stickiness: "Stickiness", revenue: "Revenue" };

function filtersFrom(url: string): InsightListFilters {
  const params = new URLSearchParams(url.includes("?") ? url.slice(url.indexOf("?")) : "");
  return { search: params.get("search") ?? undefined, favorited: params.get("favorited") === "true" || undefined, kind: params.get("kind") ?? undefined, tag: params.get("tag") ?? undefined };
}

function urlOf(path: string, filters: InsightListFilters): string {
  const params = new URLSearchParams();
  if (filters.search) params.set("search", filters.search);
  if (filters.favorited) params.set("favorited", "true");
  if (filters.kind) params.set("kind", filters.kind);
  if (filters.tag) params.set("tag", filters.tag);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function loadAll(projectId: string, filters: InsightListFilters, pages: number): Promise<InsightListResponse> {
  const insights: InsightDto[] = [];
  let offset: number | null = 0;
  for (let page = 0; page < pages && offset !== null; page++) {
    const answer: InsightListResponse = await listInsights(projectId, { ...filters, offset });
    insights.push(...answer.insights);
    offset = answer.next_offset;
  }
  return { insights, next_offset: offset };
}

const hasFilters = (filters: InsightListFilters) => Boolean(filters.search || filters.favorited || filters.kind || filters.tag);

function InsightsList({ project }: { project: ProjectDto }) {
  const location = useLocation();
  const filters = filtersFrom(location.url);
  const [searchText, setSearchText] = useState(filters.search ?? "");
  const [pages, setPages] = useState(1);
  const [list, reload] = useResource(() => loadAll(project.id, filters, pages), [project.id, location.url, pages]);
  const [deleting, setDeleting] = useState<InsightDto | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const setFilters = (next: InsightListFilters) => {
    setPages(1);
    location.route(urlOf(location.path, next), true);
  };

  useEffect(() => {
    if ((filters.search ?? "") === searchText.trim()) return;
    const timer = setTimeout(() => setFilters({ ...filters, search: searchText.trim() || undefined }), searchDebounceMs);
    return () => clearTimeout(timer);
  }, [searchText]);

  const act = async (call: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await call();
      reload();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const columns: Column<InsightDto>[] = [
    {
      label: "Favourite",
      actions: true,
      cell: (insight) => (
        <button type="button" class="star-button" aria-pressed={insight.favorited} aria-label={`Favourite ${insight.name}`} onClick={() => act(() => favoriteInsight(project.id, insight.id, !insight.favorited))}>
          <StarIcon filled={insight.favorited} />
        </button>
      ),
    },
    {
      label: "Name",
      cell: (insight) => (
        <div class="insight-name-cell">
          <a href={paths.insight(project.id, insight.id)} class="insight-link">{insight.name}</a>
          {insight.tags.length > 0 && (
            <ul class="tag-list" aria-label="Tags">
              {insight.tags.map((tag) => (
                <li key={tag}>
                  <button type="button" class="tag tag-button" aria-label={`Show insights tagged ${tag}`} onClick={() => setFilters({ ...filters, tag })}>{tag}</button>
                </li>
              ))}
            </ul>
          )}
        </div>
      ),
    },
    { label: "Kind", cell: (insight) => kindNames[insight.query.insight.kind] },
    { label: "Last modified", cell: (insight) => <time dateTime={insight.updated_at} title={formatDateTime(insight.updated_at, project.timezone)}>{formatRelative(insight.updated_at)}</time> },
    { label: "Actions", actions: true, cell: (insight) => <Button variant="ghost" small aria-label={`Delete ${insight.name}`} onClick={() => setDeleting(insight)}>Delete</Button> },
  ];

  return (
    <div class="page">
      <div class="page-heading-row">
        <PageTitle title="Insights">Saved trends, funnels, retention, paths, lifecycle, stickiness and revenue of {project.name}.</PageTitle>
        <LinkButton variant="primary" href={paths.newInsight(project.id)}>
          <PlusIcon />
          New insight
        </LinkButton>
      </div>
      <div class="list-filters" role="search">
        <input class="input list-search" type="search" aria-label="Search insights" placeholder="Search by name or description" value={searchText} onInput={(event) => setSearchText(event.currentTarget.value)} />
        <select class="input select" aria-label="Kind" value={filters.kind ?? ""} onChange={(event) => setFilters({ ...filters, kind: event.currentTarget.value || undefined })}>
          <option value="">All kinds</option>
          {insightKindList.map((kind) => <option key={kind} value={kind}>{kindNames[kind]}</option>)}
        </select>
        <label class="check">
          <input type="checkbox" checked={filters.favorited === true} onChange={(event) => setFilters({ ...filters, favorited: event.currentTarget.checked || undefined })} />
          Favourites only
        </label>
        {filters.tag && (
          <button type="button" class="tag tag-button tag-active" aria-label={`Stop filtering by tag ${filters.tag}`} onClick={() => setFilters({ ...filters, tag: undefined })}>
            {filters.tag} ×
          </button>
        )}
      </div>
      <FormError error={error} />
      {list.status === "loading" && <LoadingState label="Loading insights…" />}
      {list.status === "failed" && <ErrorState title="The insights could not be loaded" error={list.error} onRetry={reload} />}
      {list.status === "ready" && (
        <>
          <DataTable
            caption="Saved insights"
            columns={columns}
            rows={list.data.insights}
            rowKey={(insight) => insight.id}
            empty={
              hasFilters(filters) ? (
                <EmptyState icon={<SearchOffIcon size={20} />} title="No insights match" action={<Button onClick={() => { setSearchText(""); setFilters({}); }}>Clear the filters</Button>}>
                  Try another search, kind or tag.
                </EmptyState>
              ) : (
                <EmptyState icon={<ChartIcon size={20} />} title="No insights yet" action={<LinkButton variant="primary" href={paths.newInsight(project.id)}>New insight</LinkButton>}>
                  An insight charts your events: trends over time, funnels, retention and more. Saved ones show here.
                </EmptyState>
              )
            }
          />
          {list.data.next_offset !== null && <Button onClick={() => setPages(pages + 1)}>Load more</Button>}
        </>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this insight?"
        confirmLabel="Delete"
        danger
        busy={busy}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (deleting && (await act(() => deleteInsight(project.id, deleting.id)))) setDeleting(null);
        }}
      >
        <p>
          <span class="text-strong">{deleting?.name}</span> will be deleted and taken off every dashboard that shows it.
        </p>
      </ConfirmDialog>
    </div>
  );
}

export default function InsightsListPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <InsightsList project={project} />}</ProjectScope>;
}
