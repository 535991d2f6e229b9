// The result cache of POST /query, shared by every region of the process: answers kept as
// their JSON text (what is sent again), bounded in bytes (least recently used go first) and
// in entries, and rid of expired answers by a sweep (an expired answer was kept until the
// same query came again, so a burst of large answers stayed resident for good).

/** Spec 2, Limits: results of ranges reaching into today are kept this long; older ranges an hour. */
export const resultCacheRecentMs = 60_000;
export const resultCacheHistoricalMs = 3_600_000;
/** Default bound of the cache (QUERY_RESULT_CACHE_MB). */
export const defaultResultCacheBytes = 64 * 1024 * 1024;
/** Entries at most, whatever their size (each costs a key and bookkeeping). */
export const resultCacheEntriesMax = 10_000;
/** How often expired answers are swept out. */
export const resultCacheSweepIntervalMs = 30_000;

interface Entry {
  json: string;
  bytes: number;
  expiresAt: number;
}

export interface ResultCacheStats {
  entries: number;
  bytes: number;
  bytes_max: number;
}

/** An answer's project: its key starts with the project id (server/region/query-service.ts). */
const projectOf = (key: string) => key.slice(0, key.indexOf("\u0000"));

export class ResultCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Bumped by forgetProject: an answer computed from data read before is not kept. */
  private readonly generations = new Map<string, number>();

  constructor(readonly bytesMax: number) {}

  /** The project's generation now: read before the data an answer is computed from, and given to set. */
  generation(projectId: string): number {
    return this.generations.get(projectId) ?? 0;
  }

  /** The answer's JSON, or null when there is none or it has expired. */
  get(key: string, now: number): string | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.expiresAt <= now) {
      this.bytes -= entry.bytes;
      return null;
    }
    // Most recently used last: eviction takes from the front.
    this.entries.set(key, entry);
    return entry.json;
  }

  /**
   * Keeps `json` until `expiresAt`; an answer larger than a quarter of the bound is not kept (it
   * would push out many), nor one computed in an earlier `generation` of its project (an erasure
   * forgot the project's answers while it ran: it may count the persons erased).
   */
  set(key: string, json: string, expiresAt: number, generation: number): void {
    this.remove(key);
    if (generation !== this.generation(projectOf(key))) return;
    const bytes = Buffer.byteLength(json) + Buffer.byteLength(key);
    if (bytes > this.bytesMax / 4) return;
    this.entries.set(key, { json, bytes, expiresAt });
    this.bytes += bytes;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.bytesMax && this.entries.size <= resultCacheEntriesMax) break;
      this.remove(oldest);
    }
  }

  /** Drops every answer expired at `now`. */
  sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.remove(key);
  }

  /** Drops every answer of a project (an erasure: answers may count its persons), and those being computed; how many. */
  forgetProject(projectId: string): number {
    this.generations.set(projectId, this.generation(projectId) + 1);
    const prefix = `${projectId}\u0000`;
    let forgotten = 0;
    for (const key of [...this.entries.keys()]) {
      if (!key.startsWith(prefix)) continue;
      this.remove(key);
      forgotten++;
    }
    return forgotten;
  }

  stats(): ResultCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, bytes_max: this.bytesMax };
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
