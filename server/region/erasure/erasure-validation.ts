// The region's checks of an erasure request before anything runs: well-formed ids, at most
// erasureIdentifiersMax identifiers, and a data id and environment that match what the region
// knows of the project (a project it has no key of has nothing stored here to contradict them).
import type { RegionStore } from "../../../storage/region-store.ts";
import { distinctIdLengthMax } from "../../ingest/limits.ts";
import { badRequest } from "../region-access.ts";
import { erasureIdentifiersMax, type RegionErasureRequest } from "./erasure-types.ts";

/** Environment names as the control plane makes them, with room to spare. */
export const erasureEnvironmentLengthMax = 100;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const environmentPattern = /^[a-z0-9][a-z0-9_-]*$/;

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

/** Throws a 400 ApiError naming the first problem of `request`. */
export function validateErasureRequest(request: RegionErasureRequest, store: RegionStore): void {
  const { erasure_id, project_id, data_id, environment, person_ids, distinct_ids } = request as Partial<RegionErasureRequest>;
  if (typeof erasure_id !== "string" || !uuidPattern.test(erasure_id)) throw badRequest("erasure_id must be a uuid");
  if (typeof project_id !== "string" || !uuidPattern.test(project_id)) throw badRequest("project_id must be a uuid");
  if (typeof data_id !== "number" || !Number.isSafeInteger(data_id) || data_id < 1) throw badRequest("data_id must be a positive integer");
  if (typeof environment !== "string" || environment.length > erasureEnvironmentLengthMax || !environmentPattern.test(environment)) {
    throw badRequest(`environment must be 1 to ${erasureEnvironmentLengthMax} lowercase letters, digits, '-' or '_'`);
  }
  if (!isStringArray(person_ids) || !isStringArray(distinct_ids)) throw badRequest("person_ids and distinct_ids must be arrays of strings");
  const named = person_ids.length + distinct_ids.length;
  if (named === 0 || named > erasureIdentifiersMax) {
    throw badRequest(`an erasure names 1 to ${erasureIdentifiersMax} identifiers (person_ids and distinct_ids together); this one names ${named}`);
  }
  // Identifiers are personal data: a refusal names their place, never them.
  const badPerson = person_ids.findIndex((id) => !uuidPattern.test(id));
  if (badPerson !== -1) throw badRequest(`person_ids[${badPerson}] must be a uuid`);
  const badDistinct = distinct_ids.findIndex((id) => id.length === 0 || id.length > distinctIdLengthMax || id.trim() === "");
  if (badDistinct !== -1) throw badRequest(`distinct_ids[${badDistinct}] must be a string of 1 to ${distinctIdLengthMax} characters, not only white space`);
  const knownDataId = store.projectDataId(project_id);
  if (knownDataId !== null && knownDataId !== data_id) throw badRequest(`data_id ${data_id} is not the data id of project ${project_id}`);
  const environments = store.projectEnvironments(project_id);
  if (environments.length > 0 && !environments.includes(environment)) throw badRequest(`project ${project_id} has no environment ${environment} in this region`);
}
