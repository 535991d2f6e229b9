// "/projects/{id}/replays": the environment's session recordings, newest first, filtered as the
// URL says and read a page at a time; and the project's recording settings.
import { useLocation, useRoute } from "preact-iso";
import { eventNames } from "../../api/persons-api.ts";
import { listReplays } from "../../api/replays-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { LinkButton } from "../../ui/button.tsx";
import { FilmIcon, SearchOffIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { useRegionScopes } from "../persons/personal-data.tsx";
import { filterQueryOf, ReplayFilters, replayFilterOf } from "./replay-filters.tsx";
import { ReplayPolicySection } from "./replay-policy.tsx";
import { ReplayTable } from "./replay-table.tsx";

export const replaysPageSize = 50;
const eventListId = "replay-event-names";

function ReplaysContent({ project }: { project: ProjectDto }) {
  const { query } = useLocation();
  const filterQuery = filterQueryOf(query);
  const filter = replayFilterOf(filterQuery, project.timezone);
  const filterKey = JSON.stringify(filter);
  const region = useRegion(project);
  const scopes = useRegionScopes(region.tokens);
  const controls = usePagedList((cursor) => listReplays(region.tokens, filter, cursor, replaysPageSize), [region.tokens, filterKey]);
  // Suggestions only: the list works without them.
  const [events] = useResource(() => eventNames(region.tokens).catch(() => []), [region.tokens]);
  const { list } = controls;
  const filtered = Object.keys(filterQuery).length > 0;
  return (
    <div class="page people-page">
      <PageTitle title="Replays">Recorded sessions of <span class="text-strong">{project.name}</span> in {region.environment}, newest first. Open one to watch it with the events sent during it.</PageTitle>
      <ReplayFilters key={filterKey} project={project} query={filterQuery} eventList={eventListId} />
      <datalist id={eventListId}>{events.status === "ready" && events.data.map((name) => <option key={name} value={name} />)}</datalist>
      {list.status === "loading" && <LoadingState label="Loading recordings…" />}
      {list.status === "failed" && <ErrorState title="Recordings could not be loaded" error={list.error} onRetry={controls.reload} />}
      {list.status === "ready" && list.items.length === 0 && !list.more && !filtered && (
        <EmptyState icon={<FilmIcon size={20} />} title="No recordings yet" action={<LinkButton href={paths.projectSetup(project.id)} variant="primary">Get started</LinkButton>}>
          Recordings appear once an SDK with session recording sends them to the region ({region.environment}).
        </EmptyState>
      )}
      {list.status === "ready" && list.items.length === 0 && !list.more && filtered && (
        <EmptyState icon={<SearchOffIcon size={20} />} title="No recordings match">Widen the dates or durations, or clear a filter.</EmptyState>
      )}
      {list.status === "ready" && list.items.length > 0 && <ReplayTable project={project} replays={list.items} caption="Recordings, newest first" />}
      <LoadMore controls={controls} label={list.status === "ready" && list.items.length === 0 ? "Keep searching" : "Load more"} />
      <ReplayPolicySection project={project} region={region} scopes={scopes} />
    </div>
  );
}

export default function ReplaysPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <ReplaysContent project={project} />}</ProjectScope>;
}
