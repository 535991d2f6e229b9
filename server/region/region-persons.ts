// The person state the engine reads for one project environment (engine/query-data.ts
// PersonSource): the override array, person property values and creation times from the
// person store, and cohort memberships stored in the environment (a query or a definition
// naming a cohort without one is a 409 conflict).
import type { MissingCohortError } from "../../engine/cohorts/membership.ts";
import type { PersonSource } from "../../engine/query-data.ts";
import { conflict } from "../http/errors.ts";
import type { RegionNode } from "./region-node.ts";

export function regionPersons(node: RegionNode, projectId: string, environment: string): PersonSource {
  const { directory, cohorts } = node.store;
  return {
    canonical: directory.canonicalIndexes(projectId),
    propertyValues: (key) => directory.propertyValues(projectId, key),
    createdTimes: () => directory.createdTimes(projectId),
    cohortMembers: (cohortId) => cohorts.membership(projectId, environment, cohortId)?.members ?? null,
  };
}

/** A cohort named by a query or a definition has no membership in the environment: calculate it first. */
export const missingCohortConflict = (error: MissingCohortError, environment: string) =>
  conflict(`cohort ${error.cohortId} has no calculated membership in environment ${environment}; calculate it there first`);

/** What the stored memberships of these cohorts are now, for cache keys: a recalculation changes it. */
export function cohortStamps(node: RegionNode, projectId: string, environment: string, cohortIds: string[]): string {
  return cohortIds.map((cohortId) => {
    const stored = node.store.cohorts.summary(projectId, environment, cohortId);
    return stored === null ? `${cohortId}:none` : `${cohortId}:${stored.version}:${stored.calculatedAt}`;
  }).join(",");
}
