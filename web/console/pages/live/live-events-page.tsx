// "Live events": the environment's events as the region stores them, newest on top, with
// pause and resume, filters, and each event's detail. The list is bounded (liveEventsShownMax).
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import type { LiveEventsFilters } from "../../api/live-events.ts";
import type { LiveEvent, ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ActivityIcon, PauseIcon, PlayIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, LoadingState } from "../../ui/states.tsx";
import { propertiesContain } from "./event-values.ts";
import { LiveEventDetail } from "./live-event-detail.tsx";
import { LiveFilters } from "./live-filters.tsx";
import { LiveStatus } from "./live-status.tsx";
import { liveEventsShownMax, useLiveEvents, type LiveEvents } from "./use-live-events.ts";

const plural = (count: number, one: string, many: string) => `${formatNumber(count)} ${count === 1 ? one : many}`;

function EventList({ live, shown, project, filtered, onOpen }: { live: LiveEvents; shown: LiveEvent[]; project: ProjectDto; filtered: boolean; onOpen(event: LiveEvent): void }) {
  const empty = (
    <EmptyState icon={<ActivityIcon size={20} />} title={filtered ? "No events match the filters" : "No events yet"}>
      {filtered
        ? "Events that match show up here as they arrive. Reset the filters to see every event."
        : "Events sent to this environment show up here as soon as they are stored. Send one with a snippet from Get started."}
    </EmptyState>
  );
  return (
    <DataTable<LiveEvent>
      caption="Live events, newest first"
      columns={[
        { label: "Event", cell: (event) => <code class="cell-code">{event.event}</code> },
        { label: "Distinct ID", cell: (event) => <span class="cell-value">{event.distinct_id}</span> },
        { label: "Properties", numeric: true, cell: (event) => formatNumber(Object.keys(event.properties).length) },
        { label: "Time", cell: (event) => <time dateTime={event.timestamp}>{formatDateTime(event.timestamp, project.timezone)}</time> },
      ]}
      rows={shown}
      rowKey={(event) => event.uuid}
      onRowClick={onOpen}
      empty={
        live.connection.status === "connecting" ? (
          <LoadingState label="Opening the live stream…" />
        ) : live.connection.status === "live" || live.events.length > 0 ? (
          empty
        ) : (
          <EmptyState icon={<ActivityIcon size={20} />} title="Not connected">Events show up here once the live stream is open again.</EmptyState>
        )
      }
    />
  );
}

function LiveEventsContent({ project }: { project: ProjectDto }) {
  const { environment, tokens } = useRegion(project);
  const [filters, setFilters] = useState<LiveEventsFilters>({});
  const [contains, setContains] = useState("");
  const [open, setOpen] = useState<LiveEvent | null>(null);
  const live = useLiveEvents(tokens, filters);
  const shown = contains === "" ? live.events : live.events.filter((event) => propertiesContain(event.properties, contains));
  const filtered = Boolean(filters.event || filters.distinct_id || contains);

  return (
    <div class="page">
      <PageTitle title="Live events">
        Events of <span class="text-strong">{environment}</span> as the region stores them, newest on top. The newest {formatNumber(liveEventsShownMax)} are kept on this page.
      </PageTitle>
      <div class="toolbar">
        <LiveStatus connection={live.connection} paused={live.paused} onRetry={live.retry} />
        <div class="toolbar-actions">
          {live.paused ? (
            <Button variant="primary" onClick={live.resume}><PlayIcon /> Resume</Button>
          ) : (
            <Button onClick={live.pause}><PauseIcon /> Pause</Button>
          )}
          <Button variant="ghost" onClick={live.clear} disabled={live.events.length === 0}>Clear</Button>
        </div>
      </div>
      <LiveFilters filters={filters} onApply={setFilters} contains={contains} onContainsChange={setContains} />
      {live.paused && (
        <Alert tone="info">
          <span class="held-count">{live.heldCount === 0 ? "Paused: no new events yet." : `Paused: ${plural(live.heldCount, "new event", "new events")} since.`}</span>{" "}
          {live.heldCount > liveEventsShownMax ? `Resume to show the newest ${formatNumber(liveEventsShownMax)}.` : "Resume to show them."}
        </Alert>
      )}
      {live.dropped > 0 && <Alert tone="info">{plural(live.dropped, "event was", "events were")} not received: the connection fell behind or was lost.</Alert>}
      <section class="card table-card" aria-label="Events">
        <EventList live={live} shown={shown} project={project} filtered={filtered} onOpen={setOpen} />
        {live.events.length > 0 && (
          <p class="table-foot">
            {contains === "" ? plural(shown.length, "event", "events") : `${plural(shown.length, "event", "events")} of ${formatNumber(live.events.length)} contain “${contains}”`}
            {live.events.length === liveEventsShownMax && ` (the newest ${formatNumber(liveEventsShownMax)}; older ones leave the page)`}
          </p>
        )}
      </section>
      <LiveEventDetail event={open} project={project} onClose={() => setOpen(null)} />
    </div>
  );
}

export default function LiveEventsPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <LiveEventsContent project={project} />}</ProjectScope>;
}
