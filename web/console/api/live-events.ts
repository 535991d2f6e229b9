// Follows a project environment's live events (GET {region_api_url}/events/live, docs/live-events.md)
// over fetch with the region token: the recent events first, then each event as the region
// accepts it. A lost connection or an ended stream (the token expired) is reopened after the
// stream's retry delay with Last-Event-ID, so nothing is shown twice and nothing is missed.
import { ApiError, errorFromResponse } from "./errors.ts";
import { EventStreamParser, readEventStream } from "./event-stream.ts";
import { queryString } from "./region-api.ts";
import type { RegionTokenSource } from "./region-token.ts";
import type { LiveEvent } from "./types.ts";

/** The route's own `retry:` value: how long to wait before reconnecting. */
export const liveEventsRetryMs = 3_000;

/** The route's own filters (docs/live-events.md, "Query parameters"): exact matches, each optional. */
export interface LiveEventsFilters {
  event?: string;
  distinct_id?: string;
}

export interface LiveEventsOptions {
  /** How many recent events to start with (0-100). */
  limit: number;
  filters?: LiveEventsFilters;
  /** `backlog`: one of the recent events the stream starts with (newest first); `event`: one accepted since (oldest first). */
  onEvent(event: LiveEvent, kind: "backlog" | "event"): void;
  /** The stream is open (again): events flow. */
  onOpen?(): void;
  /** The route lost `count` events for this client (it read too slowly, or they were no longer kept when it reconnected). */
  onDropped?(count: number): void;
  /** `retrying`: the follower tries again after liveEventsRetryMs; otherwise it has stopped. */
  onError(error: unknown, retrying: boolean): void;
  signal: AbortSignal;
}

/** Network failures, a busy project (429) and server errors pass; other refusals will not. */
const worthRetrying = (error: unknown) => !(error instanceof ApiError) || error.status === 429 || error.status >= 500;

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export async function followLiveEvents(tokens: RegionTokenSource, options: LiveEventsOptions): Promise<void> {
  const { signal } = options;
  let lastEventId = "";
  while (!signal.aborted) {
    const parser = new EventStreamParser();
    parser.lastEventId = lastEventId;
    try {
      const headers: Record<string, string> = { Accept: "text/event-stream" };
      if (lastEventId) headers["Last-Event-ID"] = lastEventId;
      const response = await tokens.fetch(`/events/live${queryString({ limit: options.limit, ...options.filters })}`, { headers, signal });
      if (!response.ok || !response.body) throw await errorFromResponse(response);
      options.onOpen?.();
      for await (const message of readEventStream(response.body, parser)) {
        if (message.event === "backlog" || message.event === "event") options.onEvent(JSON.parse(message.data) as LiveEvent, message.event);
        else if (message.event === "dropped") options.onDropped?.((JSON.parse(message.data) as { dropped: number }).dropped);
      }
    } catch (error) {
      if (signal.aborted) return;
      const retrying = worthRetrying(error);
      options.onError(error, retrying);
      if (!retrying) return;
    } finally {
      lastEventId = parser.lastEventId;
    }
    await pause(liveEventsRetryMs, signal);
  }
}
