// The erasure of persons in the region's SQLite file (see server/region/erasure/): who the
// identifiers named stand for (their current persons, the persons merged into those, and every
// distinct id of any of them), and deleting them with their merges, identity log entries,
// cohort memberships and ingestion-warning examples, in one transaction.
//
// An erased person's row is replaced by a tombstone: no data, a fresh uuid, `merged_into` =
// erasedPersonMark. Person indexes are dense and the next one is the highest plus one
// (PersonDirectory.indexCount): a deleted highest index would be given again to the next new
// person, whose events a resumed erasure (which matches events by index) would then erase too.
// Nothing reaches a tombstone: no distinct id maps to it, its uuid was never given out, and
// listings and the executor skip persons merged away.
import type { Database, Statement } from "bun:sqlite";
import type { PersonDirectory, PersonRecord } from "./person-directory.ts";
import type { PersonStore } from "./person-store.ts";
import type { CohortStore } from "./cohort-store.ts";
import type { ErasureSubjects } from "./erasure-journal.ts";

/** `merged_into` of an erased person's tombstone: no person has this index. */
export const erasedPersonMark = -1;

/** What the SQLite side of an erasure removed. */
export type PersonErasureCounts = {
  persons: number;
  distinct_ids: number;
  merges: number;
  cohort_memberships: number;
  ingestion_warning_examples: number;
};

/**
 * How an ingestion-warning example stored before its ids were (JSON text of what was sent) shows
 * an id: as a whole JSON string, quotes included, so a short id does not match every example
 * that merely contains it.
 */
const asJsonString = (id: string) => JSON.stringify(id);

export class PersonErasure {
  private readonly statements: Record<string, Statement>;

  constructor(
    private readonly db: Database,
    private readonly directory: PersonDirectory,
    private readonly persons: PersonStore,
    private readonly cohorts: CohortStore,
  ) {
    const q = (sql: string) => db.query(sql);
    this.statements = {
      deleteDistinctId: q("DELETE FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?"),
      deleteDistinctIdsOf: q("DELETE FROM person_distinct_ids WHERE project_id = ? AND person_index = ?"),
      deletePerson: q("DELETE FROM persons WHERE project_id = ? AND person_index = ? AND (merged_into IS NULL OR merged_into != ?)"),
      insertTombstone: q(`INSERT OR IGNORE INTO persons (project_id, person_index, id, properties, stamps, created_at, is_identified, version, merged_into)
        VALUES (?, ?, ?, '{}', '{}', 0, 0, 0, ?)`),
      deleteOverrides: q("DELETE FROM person_overrides WHERE project_id = ?1 AND (old_index = ?2 OR new_index = ?2)"),
      deleteLog: q("DELETE FROM identity_log WHERE project_id = ?1 AND (survivor = ?2 OR absorbed = ?2)"),
      // By the ids stored beside the example; a row from before they were stored, by its text.
      eraseExample: q(`UPDATE ingestion_warnings SET example = '', example_ids = '[]' WHERE project_id = ?1 AND example != '' AND (
        CASE WHEN example_ids IS NULL THEN instr(example, ?2) > 0 ELSE EXISTS (SELECT 1 FROM json_each(example_ids) WHERE value = ?3) END)`),
    };
  }

  /** The current person a record stands for (following merges), or null for none or an erased one. */
  private current(person: PersonRecord | null): PersonRecord | null {
    let at = person;
    while (at && at.mergedInto !== null) at = at.mergedInto === erasedPersonMark ? null : this.directory.person(at.projectId, at.mergedInto);
    return at;
  }

  /** Everything the identifiers stand for now; identifiers that name no one stand for themselves only. */
  resolve(projectId: string, personIds: readonly string[], distinctIds: readonly string[]): ErasureSubjects {
    const roots = new Map<number, PersonRecord>();
    const found = [
      ...personIds.map((id) => this.current(this.directory.person(projectId, id.toLowerCase()))),
      ...distinctIds.map((id) => this.current(this.directory.personOf(projectId, id))),
    ];
    for (const person of found) if (person) roots.set(person.index, person);
    const indexes = new Set<number>();
    const ids = new Set(personIds.map((id) => id.toLowerCase()));
    const distinct = new Set(distinctIds);
    for (const root of roots.values()) {
      for (const index of this.directory.indexesOf(projectId, root.index)) {
        indexes.add(index);
        const person = this.directory.person(projectId, index);
        if (person && person.mergedInto !== erasedPersonMark) ids.add(person.id);
        for (const id of this.directory.distinctIdsOf(projectId, index)) distinct.add(id);
      }
    }
    return {
      distinctIds: [...distinct].sort(),
      personIndexes: [...indexes].sort((a, b) => a - b),
      personIds: [...ids].sort(),
      currentPersons: roots.size,
    };
  }

  /**
   * Deletes the subjects' rows; `within` runs in the same transaction (the job records the stage
   * there, so it is done exactly when the deletion is).
   */
  erase(projectId: string, subjects: ErasureSubjects, within: (counts: PersonErasureCounts) => void): PersonErasureCounts {
    const s = this.statements;
    const counts: PersonErasureCounts = { persons: 0, distinct_ids: 0, merges: 0, cohort_memberships: 0, ingestion_warning_examples: 0 };
    try {
      this.db.transaction(() => {
        for (const id of subjects.distinctIds) counts.distinct_ids += s.deleteDistinctId!.run(projectId, id).changes;
        for (const index of subjects.personIndexes) {
          counts.distinct_ids += s.deleteDistinctIdsOf!.run(projectId, index).changes;
          counts.merges += s.deleteOverrides!.run(projectId, index).changes + s.deleteLog!.run(projectId, index).changes;
          const deleted = s.deletePerson!.run(projectId, index, erasedPersonMark).changes;
          counts.persons += deleted;
          if (deleted > 0) s.insertTombstone!.run(projectId, index, crypto.randomUUID(), erasedPersonMark);
        }
        counts.cohort_memberships = this.cohorts.removeMembers(projectId, new Set(subjects.personIndexes));
        for (const id of subjects.distinctIds) counts.ingestion_warning_examples += s.eraseExample!.run(projectId, asJsonString(id), id).changes;
        within(counts);
      })();
    } finally {
      // What the caches learned of these persons is gone from the file (or, rolled back, may be wrong).
      this.persons.forgetCaches();
      this.directory.overridesChanged(projectId);
    }
    return counts;
  }
}
