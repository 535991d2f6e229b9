// Person index by (project, distinct id) in memory, bounded by two generations: a lookup that
// misses the current generation but hits the previous one moves the entry forward, so ids in
// use survive each turnover, while ids unseen for a whole generation are forgotten (the
// person_distinct_ids table still has them). Memory stays under two generations of entries.

/** Entries per generation. Measured: about 110 bytes of heap per entry with ids like "user-12345", so about 55 MB at most. */
export const distinctIdGenerationEntriesMax = 250_000;

type Generation = Map<string, Map<string, number>>;

export class DistinctIdCache {
  private current: Generation = new Map();
  private previous: Generation = new Map();
  private currentEntries = 0;

  constructor(private readonly generationEntriesMax = distinctIdGenerationEntriesMax) {}

  get(projectId: string, distinctId: string): number | undefined {
    const hit = this.current.get(projectId)?.get(distinctId);
    if (hit !== undefined) return hit;
    const earlier = this.previous.get(projectId)?.get(distinctId);
    if (earlier !== undefined) this.set(projectId, distinctId, earlier);
    return earlier;
  }

  set(projectId: string, distinctId: string, index: number): void {
    let people = this.current.get(projectId);
    if (!people?.has(distinctId)) {
      if (this.currentEntries >= this.generationEntriesMax) {
        this.previous = this.current;
        this.current = new Map();
        this.currentEntries = 0;
        people = undefined;
      }
      this.currentEntries++;
    }
    if (!people) this.current.set(projectId, (people = new Map()));
    people.set(distinctId, index);
  }

  clear(): void {
    this.current = new Map();
    this.previous = new Map();
    this.currentEntries = 0;
  }
}
