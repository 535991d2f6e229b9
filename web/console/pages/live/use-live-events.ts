// The live events page's state: follows the environment's stream with the route's own filters,
// keeps the newest events (at most liveEventsShownMax), and while paused holds the events that
// arrive, counted, until the person resumes.
import { useEffect, useRef, useState } from "preact/hooks";
import { followLiveEvents, type LiveEventsFilters } from "../../api/live-events.ts";
import type { RegionTokenSource } from "../../api/region-token.ts";
import type { LiveEvent } from "../../api/types.ts";

/** The most events the page shows (and holds while paused): the newest are kept. */
export const liveEventsShownMax = 200;
/** The route's recent events a stream starts with: all it keeps (docs/live-events.md, at most 100). */
export const liveEventsBacklogMax = 100;

export type LiveConnection =
  | { status: "connecting" }
  | { status: "live" }
  | { status: "reconnecting"; error: unknown }
  | { status: "stopped"; error: unknown };

export interface LiveEventsState {
  connection: LiveConnection;
  /** Newest first. */
  events: LiveEvent[];
  paused: boolean;
  /** Events that arrived while paused, newest first (at most liveEventsShownMax of them). */
  held: LiveEvent[];
  /** How many arrived while paused, including any past what is held. */
  heldCount: number;
  /** Events the route said this page lost (a slow reader, or gone before a reconnect). */
  dropped: number;
}

const initial = (): LiveEventsState => ({ connection: { status: "connecting" }, events: [], paused: false, held: [], heldCount: 0, dropped: 0 });

const newestFirst = (newer: LiveEvent[], older: LiveEvent[]) => [...newer, ...older].slice(0, liveEventsShownMax);

export interface LiveEvents extends LiveEventsState {
  pause(): void;
  resume(): void;
  clear(): void;
  /** Opens the stream again after it stopped. */
  retry(): void;
}

export function useLiveEvents(tokens: RegionTokenSource, filters: LiveEventsFilters): LiveEvents {
  const [state, setState] = useState<LiveEventsState>(initial);
  const [attempt, setAttempt] = useState(0);
  // Read by the stream's callbacks, which outlive a render.
  const paused = useRef(false);

  useEffect(() => {
    const following = new AbortController();
    setState((current) => ({ ...initial(), paused: current.paused }));
    void followLiveEvents(tokens, {
      limit: liveEventsBacklogMax,
      filters,
      signal: following.signal,
      onOpen: () => setState((current) => ({ ...current, connection: { status: "live" } })),
      onEvent(event, kind) {
        setState((current) => {
          // The backlog is what was there before: it lists downwards, newest first, paused or not.
          if (kind === "backlog") return { ...current, events: [...current.events, event].slice(0, liveEventsShownMax) };
          if (paused.current) return { ...current, held: newestFirst([event], current.held), heldCount: current.heldCount + 1 };
          return { ...current, events: newestFirst([event], current.events) };
        });
      },
      onDropped: (count) => setState((current) => ({ ...current, dropped: current.dropped + count })),
      onError(error, retrying) {
        setState((current) => ({ ...current, connection: retrying ? { status: "reconnecting", error } : { status: "stopped", error } }));
      },
    });
    return () => following.abort();
  }, [tokens, filters.event, filters.distinct_id, attempt]);

  return {
    ...state,
    pause() {
      paused.current = true;
      setState((current) => ({ ...current, paused: true }));
    },
    resume() {
      paused.current = false;
      setState((current) => ({ ...current, paused: false, events: newestFirst(current.held, current.events), held: [], heldCount: 0 }));
    },
    clear: () => setState((current) => ({ ...current, events: [], held: [], heldCount: 0, dropped: 0 })),
    retry: () => setAttempt((count) => count + 1),
  };
}
