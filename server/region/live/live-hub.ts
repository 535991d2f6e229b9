// A region's live events: ingest publishes each request's stored events here once they are
// durable (server/ingest/capture.ts), every project environment keeps its last ones
// (recent-events.ts), and GET /events/live reads them and opens streams on them. With no
// stream open on an environment, publishing only fills its ring. Lives in memory: after a
// restart an environment's ring starts empty, and event ids carry the hub's epoch so ids from
// before it are recognised as such.
import { randomBytes } from "node:crypto";
import type { AcceptedEvent, Location } from "../../../storage/event-record.ts";
import type { ValidEvent } from "../../ingest/validate-event.ts";
import { logInternalError } from "../../http/errors.ts";
import { sseIdOnly, sseMessage, sseRetry } from "../../http/sse.ts";
import type { LiveEventDto } from "./live-event-dto.ts";
import { matches, type LiveFilter } from "./live-query.ts";
import { LiveRendering, type PersonLookup } from "./live-rendering.ts";
import { defaultLiveStreamOptions, LiveStream, type LiveStreamOptions, type LiveWatcher } from "./live-stream.ts";
import { RecentEvents, type RecentEvent } from "./recent-events.ts";

/** Streams a project may have open at once, all environments together. */
export const liveStreamsPerProjectMax = 10;
/** What a client is told to wait before reconnecting (the SSE `retry` field). */
export const reconnectDelayMs = 3_000;

const noEvents = new RecentEvents(0);

interface Feed {
  recent: RecentEvents;
  streams: Set<LiveStream>;
}

/** PostHog's properties that carry the anonymous id (as server/ingest/contact-ids.ts names them). */
const anonymousIdProperties = ["$anon_distinct_id", "$device_id"];

export class LiveHub {
  /** Distinguishes this process's event ids from those of an earlier one. */
  readonly epoch = randomBytes(4).toString("hex");
  private readonly feeds = new Map<string, Map<string, Feed>>();
  private readonly streamsByProject = new Map<string, Set<LiveStream>>();
  private closing = false;

  constructor(private readonly directory: PersonLookup, private readonly streamOptions: LiveStreamOptions = defaultLiveStreamOptions) {}

  private feed(projectId: string, environment: string): Feed {
    let environments = this.feeds.get(projectId);
    if (!environments) this.feeds.set(projectId, (environments = new Map()));
    let feed = environments.get(environment);
    if (!feed) environments.set(environment, (feed = { recent: new RecentEvents(), streams: new Set() }));
    return feed;
  }

  /**
   * One ingest request's accepted events, after the WAL sync that made them durable: `stored[i]`
   * is what was stored of `events[i]`, null when sampling left it out (it is not shown either).
   * `bytesEach` is the request's size per event (recent-events.ts, recentEventBytesMax).
   */
  publish(
    projectId: string, environment: string, events: readonly ValidEvent[], stored: readonly (AcceptedEvent | null)[],
    locations: readonly Location[], receivedAt: number, bytesEach: number,
  ): void {
    const { recent, streams } = this.feed(projectId, environment);
    const rendering = streams.size > 0 ? new LiveRendering(this.directory, projectId, this.epoch) : null;
    for (let index = 0; index < events.length; index++) {
      const decision = stored[index];
      if (!decision) continue;
      const seq = recent.push(events[index]!, decision, locations[decision.location]!, receivedAt, bytesEach);
      if (rendering) this.deliver(streams, recent.at(seq)!, rendering);
    }
  }

  private deliver(streams: Set<LiveStream>, event: RecentEvent, rendering: LiveRendering): void {
    for (const stream of streams) {
      try {
        stream.deliver(event, rendering);
      } catch (error) {
        // The events are stored whatever happens to a stream (reading the person store may
        // fail): that must not fail the ingest request that published them.
        logInternalError(error);
        stream.end("internal_error");
      }
    }
  }

  /** The environment's recent events that pass `filter`, newest first, at most `limit`. */
  list(projectId: string, environment: string, filter: LiveFilter, limit: number, pii: boolean): { events: LiveEventDto[]; last_event_id: string } {
    const recent = this.feeds.get(projectId)?.get(environment)?.recent ?? noEvents;
    const rendering = new LiveRendering(this.directory, projectId, this.epoch);
    const events: LiveEventDto[] = [];
    for (let seq = recent.lastSeq; seq >= recent.firstSeq && events.length < limit; seq--) {
      const event = recent.at(seq);
      if (event && matches(filter, event.event)) events.push(rendering.dto(event, pii));
    }
    return { events, last_event_id: rendering.eventId(recent.lastSeq) };
  }

  /**
   * A stream of the environment's events for `watcher`, or null when the project has
   * liveStreamsPerProjectMax open. It starts with the recent events (newest first, at most
   * `limit`), or, resuming after the event numbered `resumeAfter` (the client's last event id),
   * with the events after it in acceptance order; then come events as they are accepted.
   */
  open(projectId: string, environment: string, watcher: LiveWatcher, limit: number, resumeAfter: number | null): LiveStream | null {
    const open = this.streamsByProject.get(projectId) ?? new Set<LiveStream>();
    if (open.size >= liveStreamsPerProjectMax) return null;
    this.streamsByProject.set(projectId, open);
    const feed = this.feed(projectId, environment);
    const stream = new LiveStream(watcher, this.streamOptions, () => {
      feed.streams.delete(stream);
      open.delete(stream);
      if (open.size === 0 && this.streamsByProject.get(projectId) === open) this.streamsByProject.delete(projectId);
    });
    open.add(stream);
    feed.streams.add(stream);
    const rendering = new LiveRendering(this.directory, projectId, this.epoch);
    stream.control(sseRetry(reconnectDelayMs));
    try {
      if (resumeAfter !== null) this.replayAfter(stream, feed.recent, rendering, resumeAfter);
      else this.sendBacklog(stream, feed.recent, rendering, limit);
    } catch (error) {
      // Reading the person store failed: the request fails, and the stream must not live on unread.
      stream.end("internal_error");
      throw error;
    }
    // Opened while the service stops: the client is told so at once and reconnects later.
    if (this.closing) stream.end("shutting_down");
    return stream;
  }

  private sendBacklog(stream: LiveStream, recent: RecentEvents, rendering: LiveRendering, limit: number): void {
    let sent = 0;
    for (let seq = recent.lastSeq; seq >= recent.firstSeq && sent < limit; seq--) {
      const event = recent.at(seq);
      if (!event || !matches(stream.watcher.filter, event.event)) continue;
      stream.send(rendering.message(event, "backlog", stream.watcher.pii));
      sent++;
    }
    // The backlog's last message is its oldest event: the client's position is the newest.
    stream.control(sseIdOnly(rendering.eventId(recent.lastSeq)));
  }

  private replayAfter(stream: LiveStream, recent: RecentEvents, rendering: LiveRendering, after: number): void {
    // Counted before the stream's filter: the events are gone, so which of them it would show is not known.
    const notKept = recent.firstSeq - 1 - after;
    if (notKept > 0) stream.control(sseMessage({ event: "dropped", data: JSON.stringify({ dropped: notKept, reason: "not_kept" }) }));
    for (let seq = Math.max(after + 1, recent.firstSeq); seq <= recent.lastSeq; seq++) {
      const event = recent.at(seq);
      if (event) stream.deliver(event, rendering);
    }
  }

  /** Forgets the project's recent events (every environment) of these distinct ids or person indexes (an erasure); how many. */
  forget(projectId: string, distinctIds: ReadonlySet<string>, personIndexes: ReadonlySet<number>): number {
    let forgotten = 0;
    for (const feed of this.feeds.get(projectId)?.values() ?? []) {
      forgotten += feed.recent.forget((event, stored) => {
        if (personIndexes.has(stored.personIndex) || distinctIds.has(event.distinctId)) return true;
        // Another person's event naming one of their ids as its anonymous id (a shared device)
        // stays, without that id (as storage/event-erasure.ts keeps stored events).
        if (event.anonId !== null && distinctIds.has(event.anonId)) event.anonId = null;
        for (const name of anonymousIdProperties) if (distinctIds.has(event.properties[name] as string)) delete event.properties[name];
        return false;
      });
    }
    return forgotten;
  }

  /** The streams a project has open. */
  streams(projectId: string): LiveStream[] {
    return [...(this.streamsByProject.get(projectId) ?? [])];
  }

  /** Ends every stream (the service is stopping: the HTTP server waits for open answers). */
  close(): Promise<void> {
    this.closing = true;
    const streams = [...this.streamsByProject.values()].flatMap((open) => [...open]);
    for (const stream of streams) stream.end("shutting_down");
    return Promise.all(streams.map((stream) => stream.closed)).then(() => {});
  }
}
