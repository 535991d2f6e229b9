// Runs the Query IR documents a rule's values come from, for one project environment, the way
// POST /query runs them (validated in the project's time zone, over a snapshot of the
// partition, through the executor) but without the result cache: each document is asked once
// per period. Evaluations share the region's per-project concurrency gate with the query
// routes, so a rule never takes a slot a person's query is waiting for: when the project
// already runs its maximum, the rule is left for the next pass (FindingsBusyError).
import { snapshotChunks, type ChunkRef, type ChunkStore } from "../../../engine/chunk-store.ts";
import { executeQuery, type InsightResult } from "../../../engine/execute.ts";
import { validateQuery } from "../../../engine/ir/validate.ts";
import type { QueryGate } from "../../region/query-service.ts";
import type { RegionNode } from "../../region/region-node.ts";
import { regionPersons } from "../../region/region-persons.ts";
import type { RegionFindingsProject } from "../findings-types.ts";

/** The project runs its maximum of concurrent queries: the rule is evaluated at a later pass. */
export class FindingsBusyError extends Error {}

export interface FindingsQueryLimits {
  rowsMax: number;
  timeoutMs: number;
}

/** What target values are computed with (an interface so the statistics can be tested without a region). */
export interface ProjectQueryRunner {
  run(project: RegionFindingsProject, document: Record<string, unknown>, now: number): Promise<InsightResult>;
}

export class FindingsQueries implements ProjectQueryRunner {
  constructor(
    private readonly node: RegionNode,
    private readonly columns: ChunkStore,
    private readonly gate: QueryGate,
    private readonly limits: FindingsQueryLimits,
  ) {}

  async run(project: RegionFindingsProject, document: Record<string, unknown>, now: number): Promise<InsightResult> {
    // The documents are built here from the rule, so an invalid one is a programming error or a hostile name the schema refuses: either way the rule fails, visibly.
    const query = validateQuery(document, project.timeZone, now);
    const release = this.gate.tryAcquire(project.projectId);
    if (!release) throw new FindingsBusyError(`project ${project.projectId} runs its maximum of concurrent queries`);
    let chunks: ChunkRef[] = [];
    try {
      chunks = snapshotChunks(await this.node.events.snapshot(project.dataId, project.environment), this.node.dataDir);
      const persons = regionPersons(this.node, project.projectId, project.environment);
      const started = Date.now();
      const execution = await executeQuery(query, { store: this.columns, chunks, persons }, { rowsMax: this.limits.rowsMax, deadline: started + this.limits.timeoutMs });
      return execution.result;
    } finally {
      this.columns.release(chunks);
      release();
    }
  }
}
