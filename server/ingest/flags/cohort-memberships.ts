// Stored cohort memberships for remote flag evaluation (a cohort condition naming a cohort that
// is not matched on properties): per project environment and cohort, the members as a bitset
// over the person index, built once per calculation and per override array (a merge replaces
// it), so a flag request costs a look-up of the membership's version and one of its person.
import { PersonSet } from "../../../engine/cohorts/person-set.ts";
import type { RegionStore } from "../../../storage/region-store.ts";

/** Memberships kept at most (each takes a bit per person of its project); past it the cache starts over. */
export const flagCohortMembershipsMax = 64;

interface Entry {
  version: number;
  calculatedAt: number;
  canonical: Int32Array;
  members: PersonSet;
}

export class FlagCohortMemberships {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly store: RegionStore) {}

  /** Memberships kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** Whether the cohort's membership stored in the environment holds the person `distinctId` belongs to now (false without either). */
  has(projectId: string, environment: string, cohortId: string, distinctId: string): boolean {
    const members = this.members(projectId, environment, cohortId);
    if (members === null) return false;
    const person = this.store.directory.personOf(projectId, distinctId);
    return person !== null && members.has(person.index);
  }

  private members(projectId: string, environment: string, cohortId: string): PersonSet | null {
    const stored = this.store.cohorts.summary(projectId, environment, cohortId);
    if (stored === null) return null;
    const key = `${projectId}\u0000${environment}\u0000${cohortId}`;
    const canonical = this.store.directory.canonicalIndexes(projectId);
    const cached = this.entries.get(key);
    if (cached && cached.version === stored.version && cached.calculatedAt === stored.calculatedAt && cached.canonical === canonical) return cached.members;
    const { members: indexes } = this.store.cohorts.membership(projectId, environment, cohortId)!;
    const members = PersonSet.ofMembers(indexes, canonical, Math.max(canonical.length, (indexes.at(-1) ?? -1) + 1));
    if (this.entries.size >= flagCohortMembershipsMax) this.entries.clear();
    this.entries.set(key, { version: stored.version, calculatedAt: stored.calculatedAt, canonical, members });
    return members;
  }
}
