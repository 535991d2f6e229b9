// Person and group properties for flag evaluation, kept between requests. A flag request reads
// its person's (and groups') stored properties; from SQLite that was about a tenth of a flag
// request's cost. Entries stay valid while the region store's connection has written nothing
// (SQLite's total_changes(), which every person, group or key write moves), so an event that
// sets a property is seen by the next flag request; under ingest the cache simply empties often.
import type { RegionStore } from "../../../storage/region-store.ts";

/** Entries kept at most (persons and groups together); past it the cache starts over. */
export const storedPropertiesEntriesMax = 100_000;

export class StoredProperties {
  private generation = -1;
  private readonly entries = new Map<string, Record<string, unknown>>();

  constructor(private readonly store: RegionStore) {}

  private current(): void {
    const generation = this.store.changes();
    if (generation !== this.generation || this.entries.size >= storedPropertiesEntriesMax) {
      this.entries.clear();
      this.generation = generation;
    }
  }

  private remembered(key: string, read: () => Record<string, unknown>): Record<string, unknown> {
    this.current();
    let properties = this.entries.get(key);
    if (properties === undefined) {
      properties = read();
      this.entries.set(key, properties);
    }
    return properties;
  }

  /** The stored properties of the person `distinctId` belongs to ({} for an unknown id). */
  person(projectId: string, distinctId: string): Record<string, unknown> {
    return this.remembered(`p\u0000${projectId}\u0000${distinctId}`, () => this.store.directory.personOf(projectId, distinctId)?.properties ?? {});
  }

  /** The stored properties of a group ({} for an unknown group). */
  group(projectId: string, typeIndex: number, key: string): Record<string, unknown> {
    return this.remembered(`g\u0000${projectId}\u0000${typeIndex}\u0000${key}`, () => this.store.directory.group(projectId, typeIndex, key)?.properties ?? {});
  }
}
