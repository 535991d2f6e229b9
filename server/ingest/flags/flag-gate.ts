// One flag's verdict for one distinct id, evaluated like POST /flags with no properties sent
// (stored person and group properties, cohort memberships): what gates a feature such as
// session recording on the server side.
import type { RegionNode } from "../../region/region-node.ts";
import type { RegistryKey } from "../../../storage/region-store.ts";
import type { EnvironmentFlags } from "./flag-routes.ts";
import { RequestSubject } from "./flag-request.ts";
import { StoredProperties } from "./stored-properties.ts";
import { FlagCohortMemberships } from "./cohort-memberships.ts";

export class FlagGate {
  private readonly stored: StoredProperties;
  private readonly memberships: FlagCohortMemberships;

  constructor(node: RegionNode, private readonly environments: EnvironmentFlags) {
    this.stored = new StoredProperties(node.store);
    this.memberships = new FlagCohortMemberships(node.store);
  }

  /** Whether flag `flagKey` is enabled for `distinctId` in the key's environment (a flag that does not exist is off). */
  enabled(key: RegistryKey, flagKey: string, distinctId: string): boolean {
    const compiled = this.environments.of(key);
    const request = { apiKey: key.key, distinctId, groups: {}, personProperties: {}, groupProperties: {}, keys: [flagKey] };
    const subject = new RequestSubject(this.stored, key.projectId, request, compiled.groupTypes, (cohortId) =>
      this.memberships.has(key.projectId, key.environment, cohortId, distinctId),
    );
    return compiled.evaluator.results(subject, [flagKey]).some((result) => result.key === flagKey && result.enabled);
  }
}
