// "/projects/{id}/replays/{replayId}?at=": one recording: who, when, how long, where and how
// busy, and the player (with the session's events) once every block has been read. `at` opens
// the player at that instant (a "Watch recording" link from an event).
import { useLocation, useRoute } from "preact-iso";
import { isNotFound } from "../../api/http.ts";
import { getReplay, recordingEvents, type ReplayDetail } from "../../api/replays-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { type RegionAccess, useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { LinkButton } from "../../ui/button.tsx";
import { FilmIcon, SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { formatDuration } from "./replay-format.ts";
import { ReplayPlayer } from "./replay-player.tsx";
import { ErrorsBadge, ReplayPerson } from "./replay-table.tsx";
import { FactList, type Fact } from "../../ui/fact-list.tsx";

function ReplayFacts({ project, replay }: { project: ProjectDto; replay: ReplayDetail }) {
  const facts: Fact[] = [
    ["Person", <ReplayPerson project={project} replay={replay} />],
    ["Started", <time dateTime={replay.start_time}>{formatDateTime(replay.start_time, project.timezone)}</time>],
    ["Duration", formatDuration(replay.duration_seconds)],
    ["Active", formatDuration(replay.active_seconds)],
    ["Pages", replay.page_count],
    ["Clicks", replay.click_count],
    ["Keypresses", replay.keypress_count],
    ["Console errors", <ErrorsBadge count={replay.console_error_count} />],
    ["Platform", `${replay.platform} (${replay.mode})`],
  ];
  return (
    <section class="card section" aria-labelledby="replay-facts-title">
      <h2 id="replay-facts-title" class="section-title">Session</h2>
      <FactList facts={facts} />
      <h3 class="detail-title">URLs visited</h3>
      {replay.urls.length === 0 ? <p class="muted-text">None recorded.</p> : (
        <ol class="replay-urls">{replay.urls.map((url, index) => <li key={`${index}-${url}`} class="replay-url">{url}</li>)}</ol>
      )}
    </section>
  );
}

function Player({ region, replay, at }: { region: RegionAccess; replay: ReplayDetail; at: string | undefined }) {
  const [events, reload] = useResource(() => recordingEvents(region.tokens, replay), [region.tokens, replay]);
  if (events.status === "loading") return <LoadingState label="Loading the recording…" />;
  if (events.status === "failed") return <ErrorState title="The recording could not be loaded" error={events.error} onRetry={reload} />;
  if (events.data.length === 0) return <EmptyState icon={<FilmIcon size={20} />} title="Nothing to play">This recording has no stored events yet: its chunks are still being compacted.</EmptyState>;
  const startAt = at === undefined ? null : Date.parse(at);
  return <ReplayPlayer events={events.data} sessionEvents={replay.events} startAtMs={startAt === null || Number.isNaN(startAt) ? null : startAt} />;
}

function ReplayContent({ project, replayId }: { project: ProjectDto; replayId: string }) {
  const region = useRegion(project);
  const { query } = useLocation();
  const [replay, reload] = useResource(() => getReplay(region.tokens, replayId), [region.tokens, replayId]);
  return (
    <div class="page replay-page">
      <div>
        <a href={paths.replays(project.id)} class="back-link">← Replays</a>
        <PageTitle title="Recording">
          <span class="mono">{replayId}</span>
        </PageTitle>
      </div>
      {replay.status === "loading" && <LoadingState label="Loading the recording…" />}
      {replay.status === "failed" && (isNotFound(replay.error) ? (
        <EmptyState icon={<SearchOffIcon size={20} />} title="No recording of this session" action={<LinkButton href={paths.replays(project.id)} variant="primary">Go to replays</LinkButton>}>
          The session was not recorded in {region.environment}, was sampled out, or its recording has expired.
        </EmptyState>
      ) : (
        <ErrorState title="The recording could not be loaded" error={replay.error} onRetry={reload} />
      ))}
      {replay.status === "ready" && (
        <>
          <Player region={region} replay={replay.data} at={query.at} />
          <ReplayFacts project={project} replay={replay.data} />
        </>
      )}
    </div>
  );
}

export default function ReplayPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <ReplayContent project={project} replayId={params.replayId!} />}</ProjectScope>;
}
