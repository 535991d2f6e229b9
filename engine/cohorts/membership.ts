// Another cohort's members as a definition or a query names them: its membership as last
// stored in the environment, each stored person counted as the person it is now.
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

/** The stored members of `cohortId` as a set of persons below `size`. */
export function storedCohort(persons: PersonSource, cohortId: string, size: number): PersonSet {
  const members = persons.cohortMembers(cohortId);
  if (members === null) throw new MissingCohortError(cohortId);
  return PersonSet.ofMembers(members, persons.canonical, size);
}
