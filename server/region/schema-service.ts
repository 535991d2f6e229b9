// GET /schema/events and GET /schema/properties for one region (docs/sql.md, "Schema"): the
// event names and event property keys of the token's project environment, each with its
// volume (stored rows, not weighted by sample rate) and first and last time seen, from a
// snapshot of the partition (so rows acknowledged a moment ago count). Reading the data is a
// query: it holds the project's concurrency gate and the query time-out.
import { snapshotChunks, type ChunkRef } from "../../engine/chunk-store.ts";
import type { ChunkSummaries, ChunkSummary, Seen } from "../../engine/chunk-summary.ts";
import { propertyKind, type PropertySource } from "../../engine/query-data.ts";
import { ApiError } from "../http/errors.ts";
import { queryTimeoutMs, tooManyConcurrentQueries, type QueryGate } from "./query-service.ts";
import type { RegionClaims } from "./region-auth.ts";
import type { RegionNode } from "./region-node.ts";

export interface EventSchema {
  name: string;
  volume: number;
  first_seen: string;
  last_seen: string;
}

/** `bool`: every stored value is a boolean (filters compare them as the text "true" / "false"). */
export type PropertyType = "number" | "text" | "bool";

export interface PropertySchema {
  key: string;
  type: PropertyType;
  volume: number;
  first_seen: string;
  last_seen: string;
}

function addSeen(into: Map<string, Seen>, name: string, seen: Seen): void {
  const known = into.get(name);
  if (!known) into.set(name, { ...seen });
  else {
    known.rows += seen.rows;
    known.first = Math.min(known.first, seen.first);
    known.last = Math.max(known.last, seen.last);
  }
}

/** Volume descending, then name in code-unit order. */
function ranked(seen: Map<string, Seen>): [string, Seen][] {
  return [...seen].sort(([a, x], [b, y]) => y.rows - x.rows || (a < b ? -1 : a > b ? 1 : 0));
}

/** The executor's kind of a key (number or text), with text made `bool` when every file stores booleans. */
function propertyType(sources: PropertySource[]): PropertyType {
  if (propertyKind(sources) === "number") return "number";
  const present = sources.filter((source) => source !== "absent");
  return present.length > 0 && present.every((source) => source === "bool") ? "bool" : "text";
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

export class SchemaService {
  constructor(
    private readonly node: RegionNode,
    private readonly summaries: ChunkSummaries,
    private readonly gate: QueryGate,
    private readonly timeoutMs = queryTimeoutMs,
  ) {}

  async events(claims: RegionClaims): Promise<{ events: EventSchema[] }> {
    const seen = new Map<string, Seen>();
    for (const summary of await this.read(claims)) for (const [name, figures] of summary.events) addSeen(seen, name, figures);
    return { events: ranked(seen).map(([name, { rows, first, last }]) => ({ name, volume: rows, first_seen: iso(first), last_seen: iso(last) })) };
  }

  /** Every key, or with `event` the keys set on that event (types always count every file). */
  async properties(claims: RegionClaims, event: string | undefined): Promise<{ properties: PropertySchema[] }> {
    const seen = new Map<string, Seen>();
    const sources = new Map<string, PropertySource[]>();
    for (const summary of await this.read(claims)) {
      for (const [key, { source, byEvent }] of summary.properties) {
        const known = sources.get(key);
        if (known) known.push(source);
        else sources.set(key, [source]);
        for (const [name, figures] of byEvent) if (event === undefined || name === event) addSeen(seen, key, figures);
      }
    }
    return {
      properties: ranked(seen).map(([key, { rows, first, last }]) => ({
        key, type: propertyType(sources.get(key)!), volume: rows, first_seen: iso(first), last_seen: iso(last),
      })),
    };
  }

  private async read(claims: RegionClaims): Promise<ChunkSummary[]> {
    const deadline = Date.now() + this.timeoutMs;
    const release = this.gate.tryAcquire(claims.projectId);
    if (!release) throw tooManyConcurrentQueries();
    let chunks: ChunkRef[] = [];
    try {
      chunks = snapshotChunks(await this.node.events.snapshot(claims.dataId, claims.environment), this.node.dataDir);
      const summaries: ChunkSummary[] = [];
      for (const ref of chunks) {
        if (Date.now() > deadline) throw new ApiError(422, "query_too_large", `reading the schema ran past the ${this.timeoutMs / 1000} s limit`);
        summaries.push(await this.summaries.summary(ref));
      }
      return summaries;
    } finally {
      this.summaries.release(chunks);
      release();
    }
  }
}
