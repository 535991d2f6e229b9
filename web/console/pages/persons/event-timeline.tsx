// A person's events, newest first, a page at a time: the event, its time in the project's time
// zone, a few properties and, for an event sent in a session, a link to its recording; a row
// opens to every property and the event's raw JSON.
import { useState } from "preact/hooks";
import { personEvents, type PersonEvent } from "../../api/persons-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import type { RegionAccess } from "../../hooks/use-region.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { Button } from "../../ui/button.tsx";
import { ChevronRightIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { WatchRecordingLink } from "../replays/person-recordings.tsx";
import { hasMasked, MaskedNote, PropertyTable } from "./personal-data.tsx";
import { PropertyChips } from "./person-table.tsx";

export const eventsPageSize = 25;

/** The event's fields beyond its properties, as a property table shows them. */
const eventDetails = (event: PersonEvent) => ({
  uuid: event.uuid,
  distinct_id: event.distinct_id,
  anon_id: event.anon_id,
  session_id: event.session_id,
  window_id: event.window_id,
  lib: `${event.lib.name} ${event.lib.version}`,
  consent: event.consent,
  groups: event.groups,
  location: [event.location.city, event.location.region, event.location.country].filter(Boolean).join(", ") || null,
  is_suspect: event.is_suspect,
  sample_rate: event.sample_rate,
});

function EventDetail({ event, masking }: { event: PersonEvent; masking: boolean }) {
  return (
    <div class="event-detail">
      <section>
        <h4 class="detail-title">Properties</h4>
        <PropertyTable properties={event.properties} masking={masking} caption={`Properties of ${event.event}`} />
      </section>
      {event.$set && (
        <section>
          <h4 class="detail-title">Sets on the person ($set)</h4>
          <PropertyTable properties={event.$set} masking={masking} caption="$set" />
        </section>
      )}
      {event.$set_once && (
        <section>
          <h4 class="detail-title">Sets once on the person ($set_once)</h4>
          <PropertyTable properties={event.$set_once} masking={masking} caption="$set_once" />
        </section>
      )}
      <section>
        <h4 class="detail-title">Event</h4>
        <PropertyTable properties={eventDetails(event)} masking={false} caption="Event fields" />
      </section>
      <section>
        <h4 class="detail-title">Raw JSON</h4>
        <pre class="raw-json" aria-label={`Raw JSON of ${event.event}`}>{JSON.stringify(event, null, 2)}</pre>
      </section>
    </div>
  );
}

function EventRow({ project, event, masking }: { project: ProjectDto; event: PersonEvent; masking: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <tr class={open ? "event-row event-row-open" : "event-row"}>
        <td class="cell-toggle">
          <Button variant="ghost" small aria-expanded={open} aria-label={`${open ? "Hide" : "Show"} all of ${event.event}`} onClick={() => setOpen(!open)}>
            <span class="toggle-chevron"><ChevronRightIcon /></span>
          </Button>
        </td>
        <td class="event-name">{event.event}</td>
        <td><time dateTime={event.timestamp}>{formatDateTime(event.timestamp, project.timezone)}</time></td>
        <td class="event-distinct-id">{event.distinct_id}</td>
        <td>
          <PropertyChips properties={event.properties} masking={masking} />
        </td>
        <td>{event.session_id !== null && <WatchRecordingLink project={project} sessionId={event.session_id} at={event.timestamp} />}</td>
      </tr>
      {open && (
        <tr class="event-detail-row">
          <td colSpan={6}><EventDetail event={event} masking={masking} /></td>
        </tr>
      )}
    </>
  );
}

export function EventTimeline({ project, region, personId, masking }: { project: ProjectDto; region: RegionAccess; personId: string; masking: boolean }) {
  const controls = usePagedList((cursor) => personEvents(region.tokens, personId, cursor, eventsPageSize), [region.tokens, personId]);
  const { list } = controls;
  if (list.status === "loading") return <LoadingState label="Loading events…" />;
  if (list.status === "failed") return <ErrorState title="Events could not be loaded" error={list.error} onRetry={controls.reload} />;
  if (list.items.length === 0) return <p class="muted-text">No events from this person in {region.environment}.</p>;
  return (
    <>
      {list.items.some((event) => hasMasked(event.properties, masking) || hasMasked(event.$set, masking) || hasMasked(event.$set_once, masking)) && (
        <MaskedNote project={project} what="event properties" />
      )}
      <div class="table-scroll">
        <table class="data-table event-table">
          <caption class="visually-hidden">Events, newest first</caption>
          <thead>
            <tr>
              <th scope="col"><span class="visually-hidden">Details</span></th>
              <th scope="col">Event</th>
              <th scope="col">Time ({project.timezone})</th>
              <th scope="col">Distinct id</th>
              <th scope="col">Properties</th>
              <th scope="col">Recording</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((event, index) => <EventRow key={`${event.uuid}-${index}`} project={project} event={event} masking={masking} />)}
          </tbody>
        </table>
      </div>
      <p class="muted-text" aria-live="polite">{list.items.length} event{list.items.length === 1 ? "" : "s"} shown{list.more ? "; older ones follow" : ", the oldest included"}.</p>
      <LoadMore controls={controls} label="Load older events" />
    </>
  );
}
