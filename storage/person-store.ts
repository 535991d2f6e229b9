// Persons, their distinct ids, merges and groups, in the region's SQLite file. Ingest asks it
// for each event's person (resolving and applying the event's identity effects first), so the
// person is written on every event:
//   - `anon_id` (or `$anon_distinct_id` on `$identify`) links the device's anonymous id to the
//     identified `distinct_id`; `$identify` marks the person identified;
//   - `$create_alias` joins `properties.alias` and `distinct_id`;
//   - joining two persons merges the anonymous one into the identified one (or the newer into
//     the older when neither is identified); joining two identified persons is refused: the
//     event is kept, the merge is not, and the refusal is logged;
//   - `$set` / `$set_once` follow person-properties.ts; `groups` and `$groupidentify` keep the
//     project's group types (at most 5, indexed 0-4) and group properties.
// A merge moves the absorbed person's distinct ids to the survivor and records an override
// (absorbed index -> survivor index), so events already written with the old index count as
// the survivor. Events of one call are applied in event-time order; every rule is idempotent,
// so replaying the same events leaves the same state.
import type { Database, Statement } from "bun:sqlite";
import { applyWrites, emptyProperties, mergeProperties, type StampedProperties } from "./person-properties.ts";

export const groupTypesPerProjectMax = 5;
/** Distinct ids remembered in memory (across projects) before the cache starts over. */
export const distinctIdCacheEntriesMax = 1_000_000;

export interface IdentityEvent {
  uuid: string;
  event: string;
  /** Epoch ms. */
  timestamp: number;
  distinctId: string;
  anonId: string | null;
  set: Record<string, unknown> | null;
  setOnce: Record<string, unknown> | null;
  properties: Record<string, unknown>;
  groups: Record<string, string> | null;
}

/** Who an event is about: its person's dense index, and its group key per group type index. */
export interface Attribution {
  personIndex: number;
  groupKeys: (string | null)[];
}

export interface PersonRecord {
  projectId: string;
  index: number;
  id: string;
  properties: Record<string, unknown>;
  createdAt: number;
  isIdentified: boolean;
  version: number;
  /** The survivor's index when this person was merged away, else null. */
  mergedInto: number | null;
}

export type IdentityLogKind = "merge" | "refused";

export interface IdentityLogEntry {
  kind: IdentityLogKind;
  at: number;
  eventUuid: string;
  survivor: number;
  absorbed: number;
}

interface PersonRow {
  person_index: number;
  id: string;
  properties: string;
  stamps: string;
  created_at: number;
  is_identified: number;
  version: number;
  merged_into: number | null;
}

export const personSchema = `
  CREATE TABLE persons (
    project_id TEXT NOT NULL,
    person_index INTEGER NOT NULL,
    id TEXT NOT NULL UNIQUE,
    properties TEXT NOT NULL,
    stamps TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    is_identified INTEGER NOT NULL,
    version INTEGER NOT NULL,
    merged_into INTEGER,
    PRIMARY KEY (project_id, person_index)
  );
  CREATE TABLE person_distinct_ids (
    project_id TEXT NOT NULL,
    distinct_id TEXT NOT NULL,
    person_index INTEGER NOT NULL,
    PRIMARY KEY (project_id, distinct_id)
  );
  CREATE INDEX person_distinct_ids_by_person ON person_distinct_ids (project_id, person_index);
  CREATE TABLE person_overrides (
    project_id TEXT NOT NULL,
    old_index INTEGER NOT NULL,
    new_index INTEGER NOT NULL,
    PRIMARY KEY (project_id, old_index)
  );
  CREATE TABLE identity_log (
    project_id TEXT NOT NULL,
    event_uuid TEXT NOT NULL,
    kind TEXT NOT NULL,
    at INTEGER NOT NULL,
    survivor INTEGER NOT NULL,
    absorbed INTEGER NOT NULL,
    PRIMARY KEY (project_id, event_uuid, kind)
  );
  CREATE TABLE group_types (
    project_id TEXT NOT NULL,
    group_index INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (project_id, group_index),
    UNIQUE (project_id, name)
  );
  CREATE TABLE groups (
    project_id TEXT NOT NULL,
    group_index INTEGER NOT NULL,
    group_key TEXT NOT NULL,
    properties TEXT NOT NULL,
    stamps TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, group_index, group_key)
  );
`;

const cacheKey = (projectId: string, distinctId: string) => `${projectId}\u0000${distinctId}`;

export class PersonStore {
  private readonly distinctIds = new Map<string, number>();
  private readonly nextIndex = new Map<string, number>();
  private readonly groupTypeIndexes = new Map<string, Map<string, number>>();
  private readonly statements: Record<string, Statement>;

  constructor(private readonly db: Database) {
    const q = (sql: string) => db.query(sql);
    this.statements = {
      findDistinctId: q("SELECT person_index FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?"),
      mapDistinctId: q("INSERT OR REPLACE INTO person_distinct_ids (project_id, distinct_id, person_index) VALUES (?, ?, ?)"),
      distinctIdsOf: q("SELECT distinct_id FROM person_distinct_ids WHERE project_id = ? AND person_index = ? ORDER BY distinct_id"),
      moveDistinctIds: q("UPDATE person_distinct_ids SET person_index = ? WHERE project_id = ? AND person_index = ?"),
      maxIndex: q("SELECT MAX(person_index) AS max FROM persons WHERE project_id = ?"),
      insertPerson: q(`INSERT INTO persons (project_id, person_index, id, properties, stamps, created_at, is_identified, version, merged_into)
        VALUES (?, ?, ?, '{}', '{}', ?, 0, 0, NULL)`),
      person: q("SELECT * FROM persons WHERE project_id = ? AND person_index = ?"),
      personById: q("SELECT * FROM persons WHERE project_id = ? AND id = ?"),
      updatePerson: q(`UPDATE persons SET properties = ?, stamps = ?, created_at = ?, is_identified = ?, version = version + 1, merged_into = ?
        WHERE project_id = ? AND person_index = ?`),
      addOverride: q("INSERT OR REPLACE INTO person_overrides (project_id, old_index, new_index) VALUES (?, ?, ?)"),
      redirectOverrides: q("UPDATE person_overrides SET new_index = ? WHERE project_id = ? AND new_index = ?"),
      overrides: q("SELECT old_index, new_index FROM person_overrides WHERE project_id = ?"),
      log: q("INSERT OR IGNORE INTO identity_log (project_id, event_uuid, kind, at, survivor, absorbed) VALUES (?, ?, ?, ?, ?, ?)"),
      logOf: q(`SELECT kind, at, event_uuid, survivor, absorbed FROM identity_log
        WHERE project_id = ? AND (survivor = ? OR absorbed = ?) ORDER BY at, event_uuid`),
      groupTypes: q("SELECT group_index, name FROM group_types WHERE project_id = ? ORDER BY group_index"),
      addGroupType: q("INSERT INTO group_types (project_id, group_index, name) VALUES (?, ?, ?)"),
      group: q("SELECT * FROM groups WHERE project_id = ? AND group_index = ? AND group_key = ?"),
      insertGroup: q(`INSERT INTO groups (project_id, group_index, group_key, properties, stamps, created_at)
        VALUES (?, ?, ?, '{}', '{}', ?) ON CONFLICT DO UPDATE SET created_at = MIN(created_at, excluded.created_at)`),
      updateGroup: q("UPDATE groups SET properties = ?, stamps = ? WHERE project_id = ? AND group_index = ? AND group_key = ?"),
    };
  }

  /** Applies the events' identity effects (in event-time order) and says who each one is about, in input order. */
  attribute(projectId: string, events: IdentityEvent[]): Attribution[] {
    const order = events.map((_, index) => index).sort((a, b) => {
      const x = events[a]!;
      const y = events[b]!;
      return x.timestamp - y.timestamp || (x.uuid < y.uuid ? -1 : x.uuid > y.uuid ? 1 : 0);
    });
    const attributions: Attribution[] = new Array(events.length);
    try {
      this.db.transaction(() => {
        for (const index of order) attributions[index] = this.apply(projectId, events[index]!);
      })();
    } catch (error) {
      // The transaction rolled back; what the caches learned inside it may not be true.
      this.distinctIds.clear();
      this.nextIndex.clear();
      this.groupTypeIndexes.clear();
      throw error;
    }
    return attributions;
  }

  private apply(projectId: string, event: IdentityEvent): Attribution {
    const { distinctId, timestamp: at, uuid } = event;
    this.resolve(projectId, distinctId, at);
    const anonymous = event.anonId ?? (event.event === "$identify" ? stringProperty(event.properties, "$anon_distinct_id") : null);
    if (event.event === "$identify" || (anonymous !== null && anonymous !== distinctId)) this.markIdentified(projectId, distinctId, at);
    if (anonymous !== null && anonymous !== distinctId) this.join(projectId, distinctId, anonymous, event);
    const alias = event.event === "$create_alias" ? stringProperty(event.properties, "alias") : null;
    if (alias !== null && alias !== distinctId) this.join(projectId, distinctId, alias, event);

    const personIndex = this.resolve(projectId, distinctId, at);
    if (event.set || event.setOnce) {
      const person = this.row(projectId, personIndex)!;
      const properties = stamped(person);
      if (applyWrites(properties, at, uuid, event.set, event.setOnce)) this.save(projectId, person, { properties });
    }
    return { personIndex, groupKeys: this.applyGroups(projectId, event) };
  }

  /** The person of `distinctId`, created (first seen at `at`) when it has none. */
  private resolve(projectId: string, distinctId: string, at: number): number {
    const key = cacheKey(projectId, distinctId);
    const cached = this.distinctIds.get(key);
    if (cached !== undefined) return cached;
    const found = this.statements.findDistinctId!.get(projectId, distinctId) as { person_index: number } | null;
    const index = found ? found.person_index : this.createPerson(projectId, distinctId, at);
    this.remember(key, index);
    return index;
  }

  private remember(key: string, index: number): void {
    if (this.distinctIds.size >= distinctIdCacheEntriesMax) this.distinctIds.clear();
    this.distinctIds.set(key, index);
  }

  private createPerson(projectId: string, distinctId: string, at: number): number {
    let next = this.nextIndex.get(projectId);
    if (next === undefined) next = ((this.statements.maxIndex!.get(projectId) as { max: number | null }).max ?? -1) + 1;
    this.nextIndex.set(projectId, next + 1);
    this.statements.insertPerson!.run(projectId, next, Bun.randomUUIDv7(), at);
    this.statements.mapDistinctId!.run(projectId, distinctId, next);
    return next;
  }

  private row(projectId: string, index: number): PersonRow | null {
    return this.statements.person!.get(projectId, index) as PersonRow | null;
  }

  private save(projectId: string, row: PersonRow, change: { properties?: StampedProperties; createdAt?: number; identified?: boolean; mergedInto?: number }) {
    const properties = change.properties ?? stamped(row);
    this.statements.updatePerson!.run(
      JSON.stringify(properties.values),
      JSON.stringify(properties.stamps),
      change.createdAt ?? row.created_at,
      (change.identified ?? row.is_identified === 1) ? 1 : 0,
      change.mergedInto ?? row.merged_into,
      projectId,
      row.person_index,
    );
  }

  private markIdentified(projectId: string, distinctId: string, at: number): void {
    const row = this.row(projectId, this.resolve(projectId, distinctId, at))!;
    if (row.is_identified !== 1) this.save(projectId, row, { identified: true });
  }

  /**
   * Joins the person of `other` to the person of `distinctId` (for anon_id and $identify, the
   * person of `distinctId` is identified by now, so the anonymous person merges into it).
   */
  private join(projectId: string, distinctId: string, other: string, event: IdentityEvent): void {
    const target = this.resolve(projectId, distinctId, event.timestamp);
    const known = this.statements.findDistinctId!.get(projectId, other) as { person_index: number } | null;
    if (!known) {
      this.statements.mapDistinctId!.run(projectId, other, target);
      this.remember(cacheKey(projectId, other), target);
      return;
    }
    if (known.person_index === target) return;
    const a = this.row(projectId, target)!;
    const b = this.row(projectId, known.person_index)!;
    if (a.is_identified === 1 && b.is_identified === 1) {
      this.statements.log!.run(projectId, event.uuid, "refused", event.timestamp, target, known.person_index);
      return;
    }
    // The identified person survives; with neither identified, the older one (lower index).
    const survivorIsTarget = a.is_identified === 1 || (b.is_identified !== 1 && a.person_index < b.person_index);
    const [survivor, absorbed] = survivorIsTarget ? [a, b] : [b, a];
    this.merge(projectId, survivor, absorbed, event);
  }

  private merge(projectId: string, survivor: PersonRow, absorbed: PersonRow, event: IdentityEvent): void {
    const moved = (this.statements.distinctIdsOf!.all(projectId, absorbed.person_index) as { distinct_id: string }[]).map((r) => r.distinct_id);
    this.statements.moveDistinctIds!.run(survivor.person_index, projectId, absorbed.person_index);
    for (const distinctId of moved) this.remember(cacheKey(projectId, distinctId), survivor.person_index);
    this.statements.redirectOverrides!.run(survivor.person_index, projectId, absorbed.person_index);
    this.statements.addOverride!.run(projectId, absorbed.person_index, survivor.person_index);
    this.save(projectId, survivor, {
      properties: mergeProperties(stamped(survivor), stamped(absorbed)),
      createdAt: Math.min(survivor.created_at, absorbed.created_at),
      identified: survivor.is_identified === 1 || absorbed.is_identified === 1,
    });
    this.save(projectId, absorbed, { mergedInto: survivor.person_index });
    this.statements.log!.run(projectId, event.uuid, "merge", event.timestamp, survivor.person_index, absorbed.person_index);
  }

  /** Group keys of the event by group type index; a sixth group type of a project is not kept. */
  private applyGroups(projectId: string, event: IdentityEvent): (string | null)[] {
    const keys: (string | null)[] = new Array(groupTypesPerProjectMax).fill(null);
    for (const type in event.groups ?? {}) {
      const index = this.groupTypeIndex(projectId, type);
      if (index === null) continue;
      keys[index] = event.groups![type]!;
      this.statements.insertGroup!.run(projectId, index, keys[index], event.timestamp);
    }
    if (event.event === "$groupidentify") {
      const type = stringProperty(event.properties, "$group_type");
      const key = stringProperty(event.properties, "$group_key");
      const index = type === null ? null : this.groupTypeIndex(projectId, type);
      if (index !== null && key !== null) {
        this.statements.insertGroup!.run(projectId, index, key, event.timestamp);
        const set = event.properties.$group_set;
        if (set !== null && typeof set === "object" && !Array.isArray(set)) {
          const row = this.statements.group!.get(projectId, index, key) as { properties: string; stamps: string };
          const properties: StampedProperties = { values: JSON.parse(row.properties), stamps: JSON.parse(row.stamps) };
          if (applyWrites(properties, event.timestamp, event.uuid, set as Record<string, unknown>, null)) {
            this.statements.updateGroup!.run(JSON.stringify(properties.values), JSON.stringify(properties.stamps), projectId, index, key);
          }
        }
      }
    }
    return keys;
  }

  private groupTypeIndex(projectId: string, name: string): number | null {
    const types = this.groupTypes(projectId);
    const known = types.get(name);
    if (known !== undefined) return known;
    if (types.size >= groupTypesPerProjectMax) return null;
    const index = types.size;
    this.statements.addGroupType!.run(projectId, index, name);
    types.set(name, index);
    return index;
  }

  /** The project's group types by name, with their index. */
  groupTypes(projectId: string): Map<string, number> {
    let types = this.groupTypeIndexes.get(projectId);
    if (!types) {
      const rows = this.statements.groupTypes!.all(projectId) as { group_index: number; name: string }[];
      types = new Map(rows.map((row) => [row.name, row.group_index]));
      this.groupTypeIndexes.set(projectId, types);
    }
    return types;
  }

  group(projectId: string, index: number, key: string): { properties: Record<string, unknown>; createdAt: number } | null {
    const row = this.statements.group!.get(projectId, index, key) as { properties: string; created_at: number } | null;
    return row ? { properties: JSON.parse(row.properties), createdAt: row.created_at } : null;
  }

  /** A person by index or uuid, as stored (a merged-away person names its survivor). */
  person(projectId: string, indexOrId: number | string): PersonRecord | null {
    const row = (typeof indexOrId === "number"
      ? this.statements.person!.get(projectId, indexOrId)
      : this.statements.personById!.get(projectId, indexOrId)) as PersonRow | null;
    if (!row) return null;
    return {
      projectId,
      index: row.person_index,
      id: row.id,
      properties: JSON.parse(row.properties),
      createdAt: row.created_at,
      isIdentified: row.is_identified === 1,
      version: row.version,
      mergedInto: row.merged_into,
    };
  }

  /** The person a distinct id belongs to now, or null. */
  personOf(projectId: string, distinctId: string): PersonRecord | null {
    const found = this.statements.findDistinctId!.get(projectId, distinctId) as { person_index: number } | null;
    return found ? this.person(projectId, found.person_index) : null;
  }

  distinctIdsOf(projectId: string, index: number): string[] {
    return (this.statements.distinctIdsOf!.all(projectId, index) as { distinct_id: string }[]).map((row) => row.distinct_id);
  }

  /** Merges and refusals that involved the person, oldest first. */
  identityLog(projectId: string, index: number): IdentityLogEntry[] {
    return (this.statements.logOf!.all(projectId, index, index) as Record<string, unknown>[]).map((row) => ({
      kind: row.kind as IdentityLogKind,
      at: row.at as number,
      eventUuid: row.event_uuid as string,
      survivor: row.survivor as number,
      absorbed: row.absorbed as number,
    }));
  }

  /**
   * For the executor: `canonical[i]` is the surviving person of index i (i itself when it was
   * never merged away), for every index the project has.
   */
  canonicalIndexes(projectId: string): Int32Array {
    const count = ((this.statements.maxIndex!.get(projectId) as { max: number | null }).max ?? -1) + 1;
    const canonical = new Int32Array(count);
    for (let i = 0; i < count; i++) canonical[i] = i;
    for (const row of this.statements.overrides!.all(projectId) as { old_index: number; new_index: number }[]) canonical[row.old_index] = row.new_index;
    return canonical;
  }
}

function stringProperty(properties: Record<string, unknown>, name: string): string | null {
  const value = properties[name];
  return typeof value === "string" && value !== "" ? value : null;
}

function stamped(row: PersonRow): StampedProperties {
  return row.properties === "{}" ? emptyProperties() : { values: JSON.parse(row.properties), stamps: JSON.parse(row.stamps) };
}
