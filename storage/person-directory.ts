// The read side of the person store (person-store.ts writes): persons by id, index or
// distinct id, listings with cursors, identity history, groups, the override array the query
// executor resolves person indexes through, and the catalog's personal-data property names.
import type { Database, Statement } from "bun:sqlite";

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

export type IdentityLogKind = "merge" | "refused" | "unmerge";

/** A merge (survivor took absorbed), a refused merge, or an unmerge (survivor gave ids to the new person `absorbed`). */
export interface IdentityLogEntry {
  kind: IdentityLogKind;
  at: number;
  eventUuid: string;
  survivor: number;
  absorbed: number;
}

/**
 * Groups a search examines at most per call, in (type, key) order from its cursor: matching a
 * key costs far less than matching a person, so this many take about as long as
 * personsExaminedPerPageMax persons.
 */
export const groupsExaminedPerPageMax = 50_000;

/** Where a page of groups ended. */
export interface GroupPosition {
  typeIndex: number;
  key: string;
}

export interface GroupPage {
  groups: GroupRecord[];
  /** Where the next page starts after, or null when no group is left to examine. */
  next: GroupPosition | null;
}

export interface GroupRecord {
  typeIndex: number;
  key: string;
  properties: Record<string, unknown>;
  createdAt: number;
}

/**
 * Person indexes one listing call examines at most, newest first from its cursor: a search or
 * property filter that matches few persons reads this many persons rather than the whole
 * project (a search of distinct ids matching nobody: 9.8 ms for this many in bench/persons at
 * a million users; reading the whole project took about 3 us per person), so no page holds up
 * the process for longer than a few tens of milliseconds however large the project.
 */
export const personsExaminedPerPageMax = 10_000;

/** Which persons a listing returns: all, or those matching a search and/or one property. */
export interface PersonFilter {
  /** A person id, or part of one of the person's distinct ids (case-insensitive). */
  search?: string;
  /** Persons having this property; with `value`, having it equal to `value` (compared as text). */
  property?: string;
  value?: string;
}

export interface PersonPage {
  persons: PersonRecord[];
  /** The `before` of the next page, or null when no older person is left to examine. */
  nextBefore: number | null;
}

interface PersonRow {
  person_index: number;
  id: string;
  properties: string;
  created_at: number;
  is_identified: number;
  version: number;
  merged_into: number | null;
}

interface GroupRow {
  group_index: number;
  group_key: string;
  properties: string;
  created_at: number;
}

const toPerson = (projectId: string, row: PersonRow): PersonRecord => ({
  projectId,
  index: row.person_index,
  id: row.id,
  properties: JSON.parse(row.properties),
  createdAt: row.created_at,
  isIdentified: row.is_identified === 1,
  version: row.version,
  mergedInto: row.merged_into,
});

/** A page of groups read as `limit` + 1 rows: the next page starts after the last shown when there are more, else at `resume`. */
function groupPage(rows: GroupRecord[], limit: number, resume: GroupPosition | null): GroupPage {
  if (rows.length <= limit) return { groups: rows, next: resume };
  const groups = rows.slice(0, limit);
  const last = groups.at(-1)!;
  return { groups, next: { typeIndex: last.typeIndex, key: last.key } };
}

const toGroup = (row: GroupRow): GroupRecord => ({
  typeIndex: row.group_index,
  key: row.group_key,
  properties: JSON.parse(row.properties),
  createdAt: row.created_at,
});

/**
 * A JSON path naming one top-level key: SQLite quotes a key with double quotes, in which a
 * backslash escapes the next character (a key holding `"` or `\` made a bad path, which SQLite
 * refuses with an error, before they were escaped).
 */
const keyPath = (key: string) => `$."${key.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** A property's value as text: strings as they are, numbers and booleans in their JSON form. */
const propertyText = `CASE json_type(properties, $path) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
  ELSE CAST(json_extract(properties, $path) AS TEXT) END`;

export class PersonDirectory {
  private readonly statements: Record<string, Statement>;
  private readonly canonicalCache = new Map<string, Int32Array>();

  constructor(private readonly db: Database) {
    const q = (sql: string) => db.query(sql);
    this.statements = {
      person: q("SELECT * FROM persons WHERE project_id = ? AND person_index = ?"),
      personById: q("SELECT * FROM persons WHERE project_id = ? AND id = ?"),
      findDistinctId: q("SELECT person_index FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?"),
      distinctIdsOf: q("SELECT distinct_id FROM person_distinct_ids WHERE project_id = ? AND person_index = ? ORDER BY distinct_id"),
      absorbedBy: q("SELECT old_index FROM person_overrides WHERE project_id = ? AND new_index = ? ORDER BY old_index"),
      // The newest index as a page of one, read from the end of the primary key.
      lastIndex: q("SELECT person_index FROM persons WHERE project_id = ? ORDER BY person_index DESC LIMIT 1"),
      overrides: q("SELECT old_index, new_index FROM person_overrides WHERE project_id = ?"),
      createdTimes: q("SELECT person_index, created_at FROM persons WHERE project_id = ? AND merged_into IS NULL"),
      propertyValues: q(`SELECT person_index, json_type(properties, $path) AS type, json_extract(properties, $path) AS value
        FROM persons WHERE project_id = $project AND merged_into IS NULL AND json_type(properties, $path) IS NOT NULL`),
      // A union rather than "survivor = ? OR absorbed = ?", which SQLite answers by walking the project's log.
      logOf: q(`SELECT kind, at, event_uuid, survivor, absorbed FROM identity_log WHERE project_id = ?1 AND survivor = ?2
        UNION SELECT kind, at, event_uuid, survivor, absorbed FROM identity_log WHERE project_id = ?1 AND absorbed = ?2
        ORDER BY at, event_uuid`),
      groupTypes: q("SELECT group_index, name FROM group_types WHERE project_id = ? ORDER BY group_index"),
      group: q("SELECT * FROM groups WHERE project_id = ? AND group_index = ? AND group_key = ?"),
      piiProperties: q("SELECT name FROM pii_properties WHERE project_id = ? ORDER BY name"),
      // The newest surviving persons come from the primary key's end; json_each reads their keys.
      propertyKeys: q(`SELECT j.key AS key, j.type AS type, count(*) AS persons
        FROM (SELECT properties FROM persons WHERE project_id = $project AND merged_into IS NULL ORDER BY person_index DESC LIMIT $sample) AS p,
        json_each(p.properties) AS j GROUP BY j.key, j.type`),
      sampledCount: q(`SELECT count(*) AS persons FROM
        (SELECT 1 FROM persons WHERE project_id = $project AND merged_into IS NULL ORDER BY person_index DESC LIMIT $sample)`),
      clearPii: q("DELETE FROM pii_properties WHERE project_id = ?"),
      addPii: q("INSERT OR IGNORE INTO pii_properties (project_id, name) VALUES (?, ?)"),
    };
  }

  /** A person by index or uuid, as stored (a merged-away person names its survivor in mergedInto). */
  person(projectId: string, indexOrId: number | string): PersonRecord | null {
    const row = (typeof indexOrId === "number"
      ? this.statements.person!.get(projectId, indexOrId)
      : this.statements.personById!.get(projectId, indexOrId)) as PersonRow | null;
    return row ? toPerson(projectId, row) : null;
  }

  /** The person a uuid stands for now: itself, or the person it was merged into (following merges of merges). */
  currentPerson(projectId: string, id: string): PersonRecord | null {
    let person = this.person(projectId, id);
    while (person && person.mergedInto !== null) person = this.person(projectId, person.mergedInto);
    return person;
  }

  /** The person a distinct id belongs to now, or null. */
  personOf(projectId: string, distinctId: string): PersonRecord | null {
    const found = this.statements.findDistinctId!.get(projectId, distinctId) as { person_index: number } | null;
    return found ? this.person(projectId, found.person_index) : null;
  }

  distinctIdsOf(projectId: string, index: number): string[] {
    return (this.statements.distinctIdsOf!.all(projectId, index) as { distinct_id: string }[]).map((row) => row.distinct_id);
  }

  /** Every index whose events count as this person's: its own and those of persons merged into it. */
  indexesOf(projectId: string, index: number): number[] {
    const absorbed = (this.statements.absorbedBy!.all(projectId, index) as { old_index: number }[]).map((row) => row.old_index);
    return [index, ...absorbed];
  }

  /**
   * Surviving persons matching `filter`, newest first, at most `limit`, from person indexes
   * below `before` (the previous page's `nextBefore`; null for the first page). One call
   * examines at most personsExaminedPerPageMax indexes, so a filter that matches few persons
   * may give fewer than `limit`, even none, with a `nextBefore` to go on from.
   */
  listPersons(projectId: string, filter: PersonFilter, before: number | null, limit: number): PersonPage {
    const start = Math.min(before ?? Number.MAX_SAFE_INTEGER, this.indexCount(projectId));
    const floor = Math.max(0, start - personsExaminedPerPageMax);
    const where = ["project_id = $project", "merged_into IS NULL", "person_index < $before", "person_index >= $floor"];
    const params: Record<string, string | number> = { project: projectId, before: start, floor, limit: limit + 1 };
    if (filter.search !== undefined) {
      where.push(`(id = $search OR EXISTS (SELECT 1 FROM person_distinct_ids d
        WHERE d.project_id = persons.project_id AND d.person_index = persons.person_index AND d.distinct_id LIKE $pattern ESCAPE '\\'))`);
      params.search = filter.search;
      params.pattern = likePattern(filter.search);
    }
    if (filter.property !== undefined) {
      params.path = keyPath(filter.property);
      if (filter.value === undefined) where.push("json_type(properties, $path) IS NOT NULL AND json_type(properties, $path) != 'null'");
      else {
        where.push(`${propertyText} = $value`);
        params.value = filter.value;
      }
    }
    const sql = `SELECT * FROM persons WHERE ${where.join(" AND ")} ORDER BY person_index DESC LIMIT $limit`;
    const persons = (this.db.query(sql).all(params) as PersonRow[]).map((row) => toPerson(projectId, row));
    if (persons.length > limit) return { persons: persons.slice(0, limit), nextBefore: persons[limit - 1]!.index };
    return { persons, nextBefore: floor > 0 ? floor : null };
  }

  /** Merges, refusals and unmerges that involved the person, oldest first. */
  identityLog(projectId: string, index: number): IdentityLogEntry[] {
    return (this.statements.logOf!.all(projectId, index) as Record<string, unknown>[]).map((row) => ({
      kind: row.kind as IdentityLogKind,
      at: row.at as number,
      eventUuid: row.event_uuid as string,
      survivor: row.survivor as number,
      absorbed: row.absorbed as number,
    }));
  }

  /** How many person indexes the project has used (indexes are dense from 0). */
  indexCount(projectId: string): number {
    const last = this.statements.lastIndex!.get(projectId) as { person_index: number } | null;
    return last === null ? 0 : last.person_index + 1;
  }

  /**
   * For the executor: `canonical[i]` is the surviving person of index i (i itself when it was
   * never merged away), for every index the project had when it was read. Kept until the person
   * store changes the overrides, so queries and their cached per-chunk persons reuse it; persons
   * created since stand for themselves (an index past the end is its own canonical person).
   */
  canonicalIndexes(projectId: string): Int32Array {
    const cached = this.canonicalCache.get(projectId);
    if (cached) return cached;
    const count = this.indexCount(projectId);
    const canonical = new Int32Array(count);
    for (let i = 0; i < count; i++) canonical[i] = i;
    for (const row of this.statements.overrides!.all(projectId) as { old_index: number; new_index: number }[]) canonical[row.old_index] = row.new_index;
    this.canonicalCache.set(projectId, canonical);
    return canonical;
  }

  /** The person store changed a project's overrides: its override array is read again on next use. */
  overridesChanged(projectId: string): void {
    this.canonicalCache.delete(projectId);
  }

  /**
   * For the executor: when each current person was created (first seen; the earliest of merged
   * persons), indexed by person index; NaN for persons merged away.
   */
  createdTimes(projectId: string): Float64Array {
    const created = new Float64Array(this.indexCount(projectId)).fill(Number.NaN);
    for (const row of this.statements.createdTimes!.all(projectId) as { person_index: number; created_at: number }[]) created[row.person_index] = row.created_at;
    return created;
  }

  /**
   * For the executor: each current person's value of one property (JSON scalars as JS values,
   * objects and arrays as their JSON text); persons without it, or whose value is null, are left out.
   */
  propertyValues(projectId: string, key: string): Map<number, unknown> {
    const rows = this.statements.propertyValues!.all({ $project: projectId, $path: keyPath(key) }) as { person_index: number; type: string; value: unknown }[];
    const values = new Map<number, unknown>();
    for (const row of rows) {
      if (row.type === "null") continue;
      values.set(row.person_index, row.type === "true" ? true : row.type === "false" ? false : row.value);
    }
    return values;
  }

  /** The project's group types in index order. */
  groupTypes(projectId: string): { index: number; name: string }[] {
    return (this.statements.groupTypes!.all(projectId) as { group_index: number; name: string }[]).map((row) => ({ index: row.group_index, name: row.name }));
  }

  group(projectId: string, typeIndex: number, key: string): GroupRecord | null {
    const row = this.statements.group!.get(projectId, typeIndex, key) as GroupRow | null;
    return row ? toGroup(row) : null;
  }

  /**
   * Groups ordered by (type index, key), optionally of one type and with `search` in the key
   * (case-insensitive), at most `limit`, after `after` (the previous page's `next`; null for
   * the first page). A search examines at most groupsExaminedPerPageMax groups per call, so it
   * may give fewer than `limit`, even none, with a `next` to go on from.
   */
  listGroups(projectId: string, typeIndex: number | null, search: string | null, after: GroupPosition | null, limit: number): GroupPage {
    const where = ["project_id = $project"];
    const params: Record<string, string | number> = { project: projectId };
    if (typeIndex !== null) {
      where.push("group_index = $type");
      params.type = typeIndex;
    }
    // The cursor as a range SQLite starts the page from in the primary key, so a later page
    // costs what the first does (an OR of type and key made it walk from the first group on).
    if (after !== null && typeIndex === null) {
      where.push("(group_index, group_key) > ($afterType, $afterKey)");
      params.afterType = after.typeIndex;
      params.afterKey = after.key;
    } else if (after !== null) {
      // Of one type: a cursor past that type leaves nothing, one before it starts at its first group.
      if (after.typeIndex > typeIndex!) return { groups: [], next: null };
      if (after.typeIndex === typeIndex) {
        where.push("group_key > $afterKey");
        params.afterKey = after.key;
      }
    }
    const conditions = where.join(" AND ");
    const read = (sql: string, more: Record<string, string | number>) => this.db.query(sql).all({ ...params, ...more }) as GroupRow[];
    if (search === null) {
      const rows = read(`SELECT * FROM groups WHERE ${conditions} ORDER BY group_index, group_key LIMIT $limit`, { limit: limit + 1 });
      return groupPage(rows.map(toGroup), limit, null);
    }
    // The examined keys come from the primary key alone; only the matches' rows are read (reading
    // whole rows, properties and all, made examining 50,000 groups take 100 ms instead of 8).
    const examinedKeys = `SELECT group_index, group_key FROM groups WHERE ${conditions} ORDER BY group_index, group_key`;
    const examined = { examined: groupsExaminedPerPageMax };
    const matches = read(`SELECT g.* FROM (${examinedKeys} LIMIT $examined) AS w
      JOIN groups AS g ON g.project_id = $project AND g.group_index = w.group_index AND g.group_key = w.group_key
      WHERE w.group_key LIKE $pattern ESCAPE '\\' ORDER BY w.group_index, w.group_key LIMIT $limit`, { ...examined, pattern: likePattern(search), limit: limit + 1 });
    if (matches.length > limit) return groupPage(matches.map(toGroup), limit, null);
    // A short page goes on after the last group it examined, unless that was the listing's last.
    const [last] = read(`${examinedKeys} LIMIT 1 OFFSET $examined - 1`, examined);
    return groupPage(matches.map(toGroup), limit, last ? { typeIndex: last.group_index, key: last.group_key } : null);
  }

  /**
   * The person property keys of the project's newest `sample` surviving persons: for each key,
   * how many of them have it and its JSON types (SQLite's json_type names) with their counts.
   */
  personPropertyKeys(projectId: string, sample: number): { sampled: number; keys: { key: string; type: string; persons: number }[] } {
    const params = { $project: projectId, $sample: sample };
    const keys = this.statements.propertyKeys!.all(params) as { key: string; type: string; persons: number }[];
    const { persons } = this.statements.sampledCount!.get(params) as { persons: number };
    return { sampled: persons, keys };
  }

  /** Property names the project's catalog marks as personal data. */
  piiProperties(projectId: string): string[] {
    return (this.statements.piiProperties!.all(projectId) as { name: string }[]).map((row) => row.name);
  }

  /** Replaces the project's catalog-marked personal-data property names. */
  setPiiProperties(projectId: string, names: string[]): void {
    this.db.transaction(() => {
      this.statements.clearPii!.run(projectId);
      for (const name of names) this.statements.addPii!.run(projectId, name);
    })();
  }
}
