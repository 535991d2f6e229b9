// The session's analytics events on the player: marks along the seek bar and a list beside the
// player, each seeking to its moment when chosen. Names and URLs are ingest's text, shown as text.
import type { ReplaySessionEvent } from "../../api/replays-api.ts";
import { formatPlayerTime } from "./replay-format.ts";

export interface TimelineEvent extends ReplaySessionEvent {
  /** Milliseconds from the recording's first event. */
  offsetMs: number;
}

export function ReplayEventMarkers({ events, totalMs, onSeek }: { events: TimelineEvent[]; totalMs: number; onSeek(offsetMs: number): void }) {
  if (totalMs <= 0) return null;
  return (
    <div class="replay-markers">
      {events.map((event) => (
        <button
          key={event.uuid}
          type="button"
          class="replay-marker"
          style={{ left: `${(event.offsetMs / totalMs) * 100}%` }}
          title={`${event.event} at ${formatPlayerTime(event.offsetMs)}`}
          aria-label={`Seek to ${event.event} at ${formatPlayerTime(event.offsetMs)}`}
          tabIndex={-1}
          onClick={() => onSeek(event.offsetMs)}
        />
      ))}
    </div>
  );
}

export function ReplayEventList({ events, currentMs, onSeek }: { events: TimelineEvent[]; currentMs: number; onSeek(offsetMs: number): void }) {
  // The event last reached is marked, so the list says where the recording is.
  const reached = events.reduce((last, event, index) => (event.offsetMs <= currentMs ? index : last), -1);
  return (
    <section class="replay-events" aria-labelledby="replay-events-title">
      <h2 id="replay-events-title" class="section-title">Events in this session</h2>
      {events.length === 0 ? (
        <p class="muted-text">No analytics events were sent with this session's id.</p>
      ) : (
        <ol class="replay-event-list">
          {events.map((event, index) => (
            <li key={event.uuid}>
              <button type="button" class={index === reached ? "replay-event replay-event-reached" : "replay-event"} aria-current={index === reached ? "step" : undefined} onClick={() => onSeek(event.offsetMs)}>
                <span class="replay-event-time mono">{formatPlayerTime(event.offsetMs)}</span>
                <span class="replay-event-name">{event.event}</span>
                {event.current_url !== null && <span class="replay-event-url">{event.current_url}</span>}
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
