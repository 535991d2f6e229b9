// What a replay's index row says of its rrweb events: time span, activity, pages and counts.
// Computed once per block when chunks are compacted and merged into the session's row, so
// listing and filtering recordings never opens a block.

/** rrweb's EventType values the summary reads. */
const metaEvent = 4;
const incrementalSnapshot = 3;
const pluginEvent = 6;
/** rrweb's IncrementalSource values. */
const source = { mouseMove: 1, mouseInteraction: 2, scroll: 3, input: 5, touchMove: 6, mediaInteraction: 7, drag: 12 } as const;
/** rrweb's MouseInteractions.Click. */
const clickInteraction = 2;
/** A second with any of these counts as active (the person moved, clicked, scrolled or typed). */
const activeSources: ReadonlySet<number> = new Set([
  source.mouseMove, source.mouseInteraction, source.scroll, source.input, source.touchMove, source.mediaInteraction, source.drag,
]);
/** rrweb's console-record plugin, whose `level: "error"` payloads are console errors. */
const consolePlugin = "rrweb/console@1";

/** Distinct URLs kept per session: enough for any filter a person types, bounded against a crawler-like page. */
export const replayUrlsMax = 50;
/** A URL longer than this is cut (it is shown and searched, never followed). */
export const replayUrlLengthMax = 2048;

/** An rrweb event as ingest validated it: an integer type, an epoch-ms timestamp, and whatever data. */
export interface RrwebEvent {
  type: number;
  timestamp: number;
  data?: unknown;
}

export interface ReplaySummary {
  startMs: number;
  endMs: number;
  /** Whole seconds (epoch) in which the person did something. */
  activeSeconds: Set<number>;
  /** The URL of the earliest page load, and when it was. */
  firstUrl: string | null;
  firstUrlMs: number;
  /** Visited URLs in the order first seen (at most replayUrlsMax). */
  urls: string[];
  pageCount: number;
  clickCount: number;
  keypressCount: number;
  consoleErrorCount: number;
  eventCount: number;
}

const objectData = (event: RrwebEvent): Record<string, unknown> | null =>
  typeof event.data === "object" && event.data !== null && !Array.isArray(event.data) ? (event.data as Record<string, unknown>) : null;

/** Adds `url` to `urls` unless it is there or the list is full. */
export function addUrl(urls: string[], url: string): void {
  if (urls.length < replayUrlsMax && !urls.includes(url)) urls.push(url);
}

/** The summary of events sorted by timestamp (at least one). */
export function summarise(events: readonly RrwebEvent[]): ReplaySummary {
  const summary: ReplaySummary = {
    startMs: events[0]!.timestamp,
    endMs: events.at(-1)!.timestamp,
    activeSeconds: new Set(),
    firstUrl: null,
    firstUrlMs: Number.POSITIVE_INFINITY,
    urls: [],
    pageCount: 0,
    clickCount: 0,
    keypressCount: 0,
    consoleErrorCount: 0,
    eventCount: events.length,
  };
  for (const event of events) {
    const data = objectData(event);
    if (!data) continue;
    if (event.type === metaEvent && typeof data.href === "string") {
      const url = data.href.slice(0, replayUrlLengthMax);
      summary.pageCount++;
      addUrl(summary.urls, url);
      if (event.timestamp < summary.firstUrlMs) {
        summary.firstUrl = url;
        summary.firstUrlMs = event.timestamp;
      }
    } else if (event.type === incrementalSnapshot && typeof data.source === "number") {
      if (activeSources.has(data.source)) summary.activeSeconds.add(Math.floor(event.timestamp / 1000));
      if (data.source === source.mouseInteraction && data.type === clickInteraction) summary.clickCount++;
      if (data.source === source.input) summary.keypressCount++;
    } else if (event.type === pluginEvent && data.plugin === consolePlugin) {
      const payload = data.payload as { level?: unknown } | null | undefined;
      if (payload?.level === "error") summary.consoleErrorCount++;
    }
  }
  return summary;
}
