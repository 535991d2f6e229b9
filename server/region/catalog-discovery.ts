// The tracking plan's view of one project environment (docs/catalog.md, "Discovery"): the
// events seen in the last `days` days with their volume, first and last time seen and volume
// over the last 30 days, and per event the properties set on it with the value types met and a
// few example values, from a snapshot of the partition (rows acknowledged a moment ago count).
// Served to region tokens by GET /catalog/discovery and to the control plane's catalog sync
// through the region link. Reading the data is a query: it holds the project's concurrency gate
// and the query time-out.
import { dayMs } from "../clock.ts";
import { snapshotChunks, type ChunkRef, type ChunkStore } from "../../engine/chunk-store.ts";
import { EventDiscovery, type ExampleValue, type ObservedType } from "../../engine/event-discovery.ts";
import { ApiError } from "../http/errors.ts";
import { queryTimeoutMs, tooManyConcurrentQueries, type QueryGate } from "./query-service.ts";
import type { RegionNode } from "./region-node.ts";

export const discoveryDaysDefault = 30;
export const discoveryDaysMax = 365;
/** The window of each event's `volume_30d`, whatever `days` is. */
export const recentVolumeDays = 30;
/** The most frequent events and properties an answer lists (the catalog holds at most as many). */
export const discoveryEventsMax = 1000;
export const discoveryPropertiesPerEventMax = 100;
export const discoveryExamplesMax = 3;
export const discoveryExampleLengthMax = 200;

/** Whose data to read: from a region token's claims, or the control plane's request. */
export interface DiscoveryScope {
  projectId: string;
  dataId: number;
  environment: string;
}

export interface DiscoveryAnswer {
  environment: string;
  days: number;
  /** The window: events seen from `from` up to `to` are listed. */
  from: string;
  to: string;
  events: {
    name: string;
    volume: number;
    volume_30d: number;
    first_seen: string;
    last_seen: string;
    properties: { name: string; types: ObservedType[]; volume: number; examples: ExampleValue[] }[];
  }[];
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** Where the window of `days` starts: that many whole days before `now`; 0 is today (UTC) only. */
function windowStart(days: number, now: number): number {
  return days === 0 ? Math.floor(now / dayMs) * dayMs : now - days * dayMs;
}

export class CatalogDiscovery {
  constructor(
    private readonly node: RegionNode,
    private readonly columns: ChunkStore,
    private readonly gate: QueryGate,
    private readonly timeoutMs = queryTimeoutMs,
  ) {}

  async discover(scope: DiscoveryScope, days: number): Promise<DiscoveryAnswer> {
    const now = Date.now();
    const deadline = now + this.timeoutMs;
    const from = windowStart(days, now);
    const release = this.gate.tryAcquire(scope.projectId);
    if (!release) throw tooManyConcurrentQueries();
    let chunks: ChunkRef[] = [];
    try {
      chunks = snapshotChunks(await this.node.events.snapshot(scope.dataId, scope.environment), this.node.dataDir);
      const discovery = new EventDiscovery({ from, recentFrom: now - recentVolumeDays * dayMs }, { examplesMax: discoveryExamplesMax, exampleLengthMax: discoveryExampleLengthMax });
      for (const ref of chunks) {
        if (Date.now() > deadline) throw new ApiError(422, "query_too_large", `reading what the project sent ran past the ${this.timeoutMs / 1000} s limit; ask for fewer days`);
        await discovery.add(this.columns, ref);
      }
      const events = discovery.result(discoveryEventsMax, discoveryPropertiesPerEventMax).map((event) => ({
        name: event.name,
        volume: event.volume,
        volume_30d: event.recentVolume,
        first_seen: iso(event.first),
        last_seen: iso(event.last),
        properties: event.properties,
      }));
      return { environment: scope.environment, days, from: iso(from), to: iso(now), events };
    } finally {
      this.columns.release(chunks);
      release();
    }
  }
}
