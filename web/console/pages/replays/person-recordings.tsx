// A person's recordings on their profile (GET /replays?person_id=…): the newest first, a few at
// a time, each opening the player.
import { listReplays } from "../../api/replays-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import type { RegionAccess } from "../../hooks/use-region.ts";
import { paths } from "../../paths.ts";
import { LoadMore } from "../../ui/load-more.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { ReplayTable } from "./replay-table.tsx";

export const personRecordingsPageSize = 10;

export function PersonRecordings({ project, region, personId }: { project: ProjectDto; region: RegionAccess; personId: string }) {
  const controls = usePagedList((cursor) => listReplays(region.tokens, { person_id: personId }, cursor, personRecordingsPageSize), [region.tokens, personId]);
  const { list } = controls;
  return (
    <section class="card section" aria-labelledby="recordings-title">
      <div class="section-head">
        <h2 id="recordings-title" class="section-title">Recordings</h2>
        <a href={paths.replays(project.id, { person_id: personId })} class="cell-link">Open in Replays</a>
      </div>
      {list.status === "loading" && <LoadingState label="Loading recordings…" />}
      {list.status === "failed" && <ErrorState title="Recordings could not be loaded" error={list.error} onRetry={controls.reload} />}
      {list.status === "ready" && list.items.length === 0 && !list.more && <p class="muted-text">No recordings of this person in {region.environment}.</p>}
      {list.status === "ready" && list.items.length > 0 && <ReplayTable project={project} replays={list.items} caption="Recordings of this person, newest first" withPerson={false} />}
      <LoadMore controls={controls} label="Load more recordings" />
    </section>
  );
}

/** "Watch recording" for an event sent in a session: the player opened at the event's moment. */
export function WatchRecordingLink({ project, sessionId, at }: { project: ProjectDto; sessionId: string; at: string }) {
  return <a href={paths.replay(project.id, sessionId, at)} class="cell-link nowrap">Watch recording</a>;
}
