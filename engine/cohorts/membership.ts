// A cohort's members as a definition or a query names them: its membership as last stored in
// the environment, each stored person counted as the person it is now; and a chunk's rows
// whose person is (or is not) a member, for a query's cohort filters and breakdowns.
import type { Query } from "../ir/query.ts";
import type { PersonSource } from "../query-data.ts";
import { PersonSet } from "./person-set.ts";

/** A cohort named by a criterion, filter or breakdown has no stored membership in the environment. */
export class MissingCohortError extends Error {
  readonly code = "conflict";
  readonly status = 409;
  constructor(readonly cohortId: string) {
    super(`cohort ${cohortId} has no calculated membership in this environment; calculate it first`);
  }
}

/**
 * The stored members of `cohortId` as a set of persons below `size` (by default every person
 * the override array or the members name: members created since the array was read stand for themselves).
 */
export function storedCohort(persons: PersonSource, cohortId: string, size?: number): PersonSet {
  const members = persons.cohortMembers(cohortId);
  if (members === null) throw new MissingCohortError(cohortId);
  return PersonSet.ofMembers(members, persons.canonical, size ?? Math.max(persons.canonical.length, (members.at(-1) ?? -1) + 1));
}

/** 1 for each row whose person is a member (`member` true) or is not (false). */
export function cohortMask(persons: Int32Array, cohort: PersonSet, member: boolean): Uint8Array {
  const { words, size } = cohort;
  const mask = new Uint8Array(persons.length);
  const inside = member ? 1 : 0;
  const outside = 1 - inside;
  for (let row = 0; row < persons.length; row++) {
    const person = persons[row]!;
    mask[row] = person < size && (words[person >>> 5]! & (1 << (person & 31))) !== 0 ? inside : outside;
  }
  return mask;
}

/** The cohorts a query names: in its filters (global and per series) and its breakdown. */
export function queryCohorts(query: Query): string[] {
  const ids = new Set<string>();
  for (const filter of [...query.filters, ...query.series.flatMap((series) => series.filters)]) if (filter.type === "cohort") ids.add(filter.cohort_id);
  for (const id of query.breakdown?.cohortIds ?? []) ids.add(id);
  return [...ids];
}
