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

/** A URL and when it was first loaded. */
export interface UrlVisit {
  url: string;
  ms: number;
}

/** Whole epoch seconds from the first to the last, both included. */
export type SecondRange = [number, number];

export interface ReplaySummary {
  startMs: number;
  endMs: number;
  /** The seconds in which the person did something, as sorted, disjoint ranges. */
  activeRanges: SecondRange[];
  /** Visited URLs in the order first loaded (at most replayUrlsMax: the earliest). */
  visits: UrlVisit[];
  pageCount: number;
  clickCount: number;
  keypressCount: number;
  consoleErrorCount: number;
  eventCount: number;
}

const objectData = (event: RrwebEvent): Record<string, unknown> | null =>
  typeof event.data === "object" && event.data !== null && !Array.isArray(event.data) ? (event.data as Record<string, unknown>) : null;

/** Sorted, disjoint ranges covering exactly `seconds`. */
function rangesOf(seconds: Iterable<number>): SecondRange[] {
  const ranges: SecondRange[] = [];
  for (const second of [...seconds].sort((a, b) => a - b)) {
    const last = ranges.at(-1);
    if (last && second <= last[1] + 1) last[1] = Math.max(last[1], second);
    else ranges.push([second, second]);
  }
  return ranges;
}

/** The union of two lists of ranges (sorted, disjoint, adjacent ones joined). */
export function mergeRanges(a: readonly SecondRange[], b: readonly SecondRange[]): SecondRange[] {
  const merged: SecondRange[] = [];
  for (const [first, last] of [...a, ...b].sort((x, y) => x[0] - y[0])) {
    const previous = merged.at(-1);
    if (previous && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else merged.push([first, last]);
  }
  return merged;
}

export const secondsIn = (ranges: readonly SecondRange[]) => ranges.reduce((sum, [first, last]) => sum + last - first + 1, 0);

/** Both lists' URLs, each at its earliest visit, in time order, the earliest replayUrlsMax. */
export function mergeVisits(a: readonly UrlVisit[], b: readonly UrlVisit[]): UrlVisit[] {
  const earliest = new Map<string, number>();
  for (const { url, ms } of [...a, ...b]) earliest.set(url, Math.min(ms, earliest.get(url) ?? Number.POSITIVE_INFINITY));
  return [...earliest].map(([url, ms]) => ({ url, ms })).sort((x, y) => x.ms - y.ms).slice(0, replayUrlsMax);
}

/** The summary of events sorted by timestamp (at least one). */
export function summarise(events: readonly RrwebEvent[]): ReplaySummary {
  const summary: ReplaySummary = {
    startMs: events[0]!.timestamp,
    endMs: events.at(-1)!.timestamp,
    activeRanges: [],
    visits: [],
    pageCount: 0,
    clickCount: 0,
    keypressCount: 0,
    consoleErrorCount: 0,
    eventCount: events.length,
  };
  const activeSeconds = new Set<number>();
  const visited = new Map<string, number>();
  for (const event of events) {
    const data = objectData(event);
    if (!data) continue;
    if (event.type === metaEvent && typeof data.href === "string") {
      const url = data.href.slice(0, replayUrlLengthMax);
      summary.pageCount++;
      if (!visited.has(url)) visited.set(url, event.timestamp);
    } else if (event.type === incrementalSnapshot && typeof data.source === "number") {
      if (activeSources.has(data.source)) activeSeconds.add(Math.floor(event.timestamp / 1000));
      if (data.source === source.mouseInteraction && data.type === clickInteraction) summary.clickCount++;
      if (data.source === source.input) summary.keypressCount++;
    } else if (event.type === pluginEvent && data.plugin === consolePlugin) {
      const payload = data.payload as { level?: unknown } | null | undefined;
      if (payload?.level === "error") summary.consoleErrorCount++;
    }
  }
  summary.activeRanges = rangesOf(activeSeconds);
  summary.visits = mergeVisits([...visited].map(([url, ms]) => ({ url, ms })), []);
  return summary;
}
