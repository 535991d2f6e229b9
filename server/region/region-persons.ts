// The person state the engine reads for one project environment (engine/query-data.ts
// PersonSource): the override array, person property values and creation times from the
// person store, and cohort memberships stored in the environment.
import type { PersonSource } from "../../engine/query-data.ts";
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
