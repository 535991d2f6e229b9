// "Waiting for the first event", live: follows the environment's live events from the region
// and turns to "received" with the first one (already stored, or arriving while the page is
// open). It then stops following: this page waits for one event, and a project keeps at most
// a few live streams open.
import { useEffect, useState } from "preact/hooks";
import { describeError } from "../../api/errors.ts";
import { followLiveEvents } from "../../api/live-events.ts";
import type { LiveEvent, ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { regionTokens } from "../../state/region-tokens.ts";
import { Alert } from "../../ui/alert.tsx";
import { CheckIcon } from "../../ui/icons.tsx";

type Watch =
  | { status: "waiting"; trouble: unknown }
  | { status: "received"; event: LiveEvent }
  | { status: "stopped"; error: unknown };

export function FirstEvent({ project, environment }: { project: ProjectDto; environment: string }) {
  const [watch, setWatch] = useState<Watch>({ status: "waiting", trouble: null });

  useEffect(() => {
    const following = new AbortController();
    setWatch({ status: "waiting", trouble: null });
    void followLiveEvents(regionTokens(project.id, environment), {
      limit: 1,
      signal: following.signal,
      onEvent(event) {
        following.abort();
        setWatch({ status: "received", event });
      },
      onError(error, retrying) {
        setWatch(retrying ? { status: "waiting", trouble: error } : { status: "stopped", error });
      },
    });
    return () => following.abort();
  }, [project.id, environment]);

  if (watch.status === "received") {
    const { event } = watch;
    return (
      <div class="first-event first-event-received" role="status">
        <span class="first-event-badge"><CheckIcon /></span>
        <div>
          <p class="first-event-title">First event received</p>
          <p class="first-event-detail">
            <code>{event.event}</code> from <code>{event.distinct_id}</code> at {formatDateTime(event.received_at, project.timezone)}. The project is set up and storing events in {environment}.
          </p>
        </div>
      </div>
    );
  }
  if (watch.status === "stopped") return <Alert tone="error">Live events cannot be followed: {describeError(watch.error)}</Alert>;
  return (
    <div class="first-event" role="status">
      <span class="pulse" aria-hidden="true" />
      <div>
        <p class="first-event-title">Waiting for the first event…</p>
        <p class="first-event-detail">
          {watch.trouble === null ? `Send one to ${environment} with a snippet above; it shows here as soon as it is stored.` : `Reconnecting: ${describeError(watch.trouble)}`}
        </p>
      </div>
    </div>
  );
}
