// Cohorts in one region (docs/cohorts.md): evaluating a definition over a snapshot of the
// environment's partition (a preview, or a dynamic cohort's calculation, which stores the
// members), recording a static cohort's calculation, and editing a static cohort's members.
// An evaluation is a query: it holds one of the project's concurrent-query slots and stops
// at the query time-out and the rows-read limit. A cohort's kind in an environment is fixed by
// its first stored membership; a calculation for a version older than the one stored is
// refused, so a late calculation cannot overwrite a newer one.
import { snapshotChunks, type ChunkRef, type ChunkStore } from "../../engine/chunk-store.ts";
import { InvalidCohortDefinitionError, parseCohortDefinition, referencedCohorts, type CohortDefinition } from "../../engine/cohorts/definition.ts";
import { evaluateCohort } from "../../engine/cohorts/evaluate.ts";
import { MissingCohortError } from "../../engine/cohorts/membership.ts";
import { PersonSet } from "../../engine/cohorts/person-set.ts";
import { QueryLimitError } from "../../engine/query-data.ts";
import type { CohortKind, CohortSummary } from "../../storage/cohort-store.ts";
import { ApiError, conflict, notFound } from "../http/errors.ts";
import { tooManyConcurrentQueries, type QueryGate } from "./query-service.ts";
import type { RegionNode } from "./region-node.ts";
import { missingCohortConflict, regionPersons } from "./region-persons.ts";

/** Where a cohort request applies: from a region token, or from the control plane's internal request. */
export interface CohortTarget {
  projectId: string;
  dataId: number;
  environment: string;
}

export interface MaterializeRequest {
  kind: CohortKind;
  version: number;
  /** A dynamic cohort's definition; null for a static cohort. */
  definition: unknown;
}

/** What the control plane asks a region to calculate (RegionLink.materializeCohort): a cohort of a project in one environment. */
export interface CohortMaterializeRequest extends MaterializeRequest {
  project_id: string;
  environment: string;
  cohort_id: string;
}

export interface CohortMaterialized {
  cohort_id: string;
  environment: string;
  version: number;
  size: number;
  calculated_at: string;
}

export type PersonIdentifier = { distinct_id: string } | { person_id: string };

export interface StaticEdit {
  add?: PersonIdentifier[];
  remove?: PersonIdentifier[];
}

export interface StaticEdited {
  cohort_id: string;
  environment: string;
  size: number;
  added: number;
  removed: number;
  not_found: PersonIdentifier[];
}

export interface CohortServiceLimits {
  rowsMax: number;
  timeoutMs: number;
}

/** The definition in a request, or 400 invalid_query naming the member at fault (under /definition). */
export function requestDefinition(value: unknown): CohortDefinition {
  try {
    return parseCohortDefinition(value);
  } catch (error) {
    if (error instanceof InvalidCohortDefinitionError) throw new ApiError(400, "invalid_query", `/definition${error.path}: ${error.problem}`);
    throw error;
  }
}

const materialized = (environment: string, summary: CohortSummary): CohortMaterialized => ({
  cohort_id: summary.cohortId, environment, version: summary.version, size: summary.size, calculated_at: new Date(summary.calculatedAt).toISOString(),
});

export class CohortService {
  constructor(
    private readonly node: RegionNode,
    private readonly columns: ChunkStore,
    private readonly gate: QueryGate,
    private readonly limits: CohortServiceLimits,
  ) {}

  /** The members (person indexes, ascending) of a definition now. */
  async evaluate(target: CohortTarget, definition: CohortDefinition): Promise<Int32Array> {
    const now = Date.now();
    const { projectId, dataId, environment } = target;
    const release = this.gate.tryAcquire(projectId);
    if (!release) throw tooManyConcurrentQueries();
    let chunks: ChunkRef[] = [];
    try {
      chunks = snapshotChunks(await this.node.events.snapshot(dataId, environment), this.node.dataDir);
      const source = { store: this.columns, chunks, persons: regionPersons(this.node, projectId, environment), personCount: this.node.store.directory.indexCount(projectId) };
      const options = { timeZone: this.node.store.projectTimeZone(projectId), now, deadline: now + this.limits.timeoutMs, rowsMax: this.limits.rowsMax };
      return (await evaluateCohort(definition, source, options)).members;
    } catch (error) {
      if (error instanceof MissingCohortError) throw missingCohortConflict(error, environment);
      if (error instanceof QueryLimitError) {
        throw new ApiError(422, "query_too_large", error.code === "timeout" ? `the cohort calculation ran past the ${this.limits.timeoutMs / 1000} s limit; use fewer days or fewer criteria` : error.message);
      }
      throw error;
    } finally {
      this.columns.release(chunks);
      release();
    }
  }

  /** Calculates a dynamic cohort and stores its members, or records a static cohort's calculation. */
  async materialize(target: CohortTarget, cohortId: string, request: MaterializeRequest): Promise<CohortMaterialized> {
    const { projectId, environment } = target;
    const cohorts = this.node.store.cohorts;
    if (request.kind === "static") {
      if (request.definition !== null) throw new ApiError(400, "bad_request", "definition must be null for a static cohort (its members are edited through /static)");
      this.checkStored(target, cohortId, request);
      const stored = cohorts.membership(projectId, environment, cohortId);
      const members = stored ? this.currentMembers(projectId, stored.members).members() : new Int32Array(0);
      return materialized(environment, cohorts.put(projectId, environment, { cohortId, kind: "static", version: request.version, calculatedAt: Date.now(), members }));
    }
    if (request.definition === null) throw new ApiError(400, "bad_request", "a dynamic cohort needs its definition");
    const definition = requestDefinition(request.definition);
    if (referencedCohorts(definition).includes(cohortId)) throw new ApiError(400, "invalid_query", `/definition: cohort ${cohortId} cannot be defined by its own membership`);
    this.checkStored(target, cohortId, request);
    const members = await this.evaluate(target, definition);
    // Checked again: another calculation may have stored a newer version meanwhile.
    this.checkStored(target, cohortId, request);
    return materialized(environment, cohorts.put(projectId, environment, { cohortId, kind: "dynamic", version: request.version, calculatedAt: Date.now(), members }));
  }

  /** The control plane's request, for the project's data id as its keys carry it (404 when none of its keys reached this region). */
  materializeRequested(request: CohortMaterializeRequest): Promise<CohortMaterialized> {
    const projectId = request.project_id.toLowerCase();
    const dataId = this.node.store.projectDataId(projectId);
    if (dataId === null) throw notFound(`project ${projectId} in region ${this.node.code}`);
    const { kind, version, definition } = request;
    return this.materialize({ projectId, dataId, environment: request.environment }, request.cohort_id.toLowerCase(), { kind, version, definition });
  }

  /** Refuses a calculation of another kind than the stored one, or of a version older than it. */
  private checkStored(target: CohortTarget, cohortId: string, request: MaterializeRequest): void {
    const stored = this.node.store.cohorts.summary(target.projectId, target.environment, cohortId);
    if (stored === null) return;
    if (stored.kind !== request.kind) throw conflict(`cohort ${cohortId} is ${stored.kind} in environment ${target.environment}, not ${request.kind}`);
    if (stored.version > request.version) {
      throw conflict(`cohort ${cohortId} was calculated for version ${stored.version} in environment ${target.environment}, newer than ${request.version}`);
    }
  }

  /** Stored person indexes as the current persons they are (merges since applied), persons merged away left out. */
  private currentMembers(projectId: string, members: Int32Array): PersonSet {
    const directory = this.node.store.directory;
    const size = directory.indexCount(projectId);
    return PersonSet.ofMembers(members, directory.canonicalIndexes(projectId), size);
  }

  /** The person an identifier names now, or null. */
  private resolve(projectId: string, identifier: PersonIdentifier): number | null {
    const directory = this.node.store.directory;
    const person = "distinct_id" in identifier ? directory.personOf(projectId, identifier.distinct_id) : directory.currentPerson(projectId, identifier.person_id.toLowerCase());
    if (person === null) return null;
    return person.mergedInto === null ? person.index : directory.currentPerson(projectId, person.id)!.index;
  }

  /** Adds and removes a static cohort's members (persons named by distinct id or person id). */
  editStatic(target: CohortTarget, cohortId: string, edit: StaticEdit): StaticEdited {
    const { projectId, environment } = target;
    const cohorts = this.node.store.cohorts;
    const stored = cohorts.membership(projectId, environment, cohortId);
    if (stored && stored.kind !== "static") throw conflict(`cohort ${cohortId} is ${stored.kind} in environment ${environment}; only a static cohort's members are edited`);
    const notFound: PersonIdentifier[] = [];
    const resolved = (identifiers: PersonIdentifier[] = []) => identifiers.flatMap((identifier) => {
      const person = this.resolve(projectId, identifier);
      if (person === null) notFound.push(identifier);
      return person === null ? [] : [{ identifier, person }];
    });
    const adding = resolved(edit.add);
    const removing = resolved(edit.remove);
    const removed = new Set(removing.map(({ person }) => person));
    const both = adding.find(({ person }) => removed.has(person));
    if (both) throw new ApiError(400, "bad_request", `${JSON.stringify(both.identifier)} names a person both added and removed`);
    const members = this.currentMembers(projectId, stored?.members ?? new Int32Array(0));
    let added = 0;
    for (const { person } of adding) {
      if (members.has(person)) continue;
      members.add(person);
      added++;
    }
    let removedCount = 0;
    for (const person of removed) {
      if (!members.has(person)) continue;
      members.remove(person);
      removedCount++;
    }
    const summary = cohorts.put(projectId, environment, { cohortId, kind: "static", version: stored?.version ?? 0, calculatedAt: Date.now(), members: members.members() });
    return { cohort_id: cohortId, environment, size: summary.size, added, removed: removedCount, not_found: notFound };
  }
}
