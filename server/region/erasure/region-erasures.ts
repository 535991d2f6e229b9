// A region's erasures (RegionLink.erase): one at a time, each a job that resolves its subjects,
// records them in region.sqlite, then erases stage by stage, recording each finished stage, and
// stores its report (forgetting the subjects) at the end. A job interrupted by a crash resumes
// from its recorded subjects and stages when the control plane asks again; asked again once
// done, it answers the stored report. What each stage erases, and how, is in docs/erasure.md.
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { ChunkStore } from "../../../engine/chunk-store.ts";
import type { ErasureJob } from "../../../storage/erasure-journal.ts";
import { EventMatcher } from "../../../storage/event-erasure.ts";
import { readBatchRecord } from "../../../storage/event-record.ts";
import { eraseQuarantinedRecords, quarantinedRecordsOf } from "../../../storage/quarantine-erasure.ts";
import type { PartitionSnapshot } from "../../../storage/event-store.ts";
import { sha256Hex } from "../../crypto.ts";
import type { RegionNode } from "../region-node.ts";
import type { ResultCache } from "../result-cache.ts";
import { noErasureCounts, type ErasureProgress, type RegionErasureReport, type RegionErasureRequest } from "./erasure-types.ts";
import { resolveErasureSubjects } from "./erasure-subjects.ts";
import { validateErasureRequest } from "./erasure-validation.ts";

/** Where, under the region's directory, the event store records what an erasure is about to commit. */
const erasureIntentsDir = "erasures";

/** The stages of a job, in order; progress counts them. */
export const erasureStages = ["persons", "events", "replays", "live events", "caches", "report"] as const;
type Stage = (typeof erasureStages)[number];

/** One environment's live files, as the digest covers them. */
export interface EnvironmentFiles {
  environment: string;
  snapshot: Pick<PartitionSnapshot, "parts" | "segments">;
}

/**
 * The digest a report carries: SHA-256 of the canonical JSON of the project's live files after
 * the erasure in every environment (events are erased from all of them): an array of
 * `{environment, parts, segments}` sorted by environment, parts by file, segments by file and offset.
 */
export function manifestDigest(environments: readonly EnvironmentFiles[]): string {
  const byFile = (a: { file: string }, b: { file: string }) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
  const entries = [...environments]
    .sort((a, b) => (a.environment < b.environment ? -1 : a.environment > b.environment ? 1 : 0))
    .map(({ environment, snapshot }) => ({
      environment,
      parts: snapshot.parts.map((part) => ({ file: part.file, day: part.day, level: part.level, rows: part.rows, bytes: part.bytes })).sort(byFile),
      segments: snapshot.segments
        .map((segment) => ({ file: segment.file, offset: segment.offset, bytes: segment.bytes, rows: segment.rows }))
        .sort((a, b) => byFile(a, b) || a.offset - b.offset),
    }));
  return sha256Hex(JSON.stringify(entries));
}

/** Whether a WAL record holds their events (a record that cannot be read holds nobody's: the store set it aside). */
function recordOfSubjects(matcher: EventMatcher, payload: Uint8Array): boolean {
  try {
    return matcher.inRecord(readBatchRecord(payload));
  } catch {
    return false;
  }
}

export class RegionErasures {
  /** The job running or waiting for each erasure id: asking again while it runs waits for the same one. */
  private readonly inFlight = new Map<string, Promise<RegionErasureReport>>();
  /** Jobs run one after another. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly node: RegionNode,
    private readonly columns: ChunkStore,
    private readonly results: ResultCache,
  ) {}

  /** Erases what the request names (see RegionLink.erase); a 400 ApiError for a malformed request. */
  erase(request: RegionErasureRequest, onProgress: ErasureProgress = () => {}): Promise<RegionErasureReport> {
    validateErasureRequest(request, this.node.store);
    const running = this.inFlight.get(request.erasure_id);
    if (running) return running;
    const job = this.queue.then(() => this.run(request, onProgress));
    this.queue = job.catch(() => {});
    this.inFlight.set(request.erasure_id, job);
    void job.catch(() => {}).finally(() => this.inFlight.delete(request.erasure_id));
    return job;
  }

  private async run(request: RegionErasureRequest, onProgress: ErasureProgress): Promise<RegionErasureReport> {
    const { erasure_id: erasureId, project_id: projectId } = request;
    const { store } = this.node;
    const stored = store.erasures.report(erasureId);
    if (stored !== null) {
      // A rebuild that failed after the report was stored is done now.
      store.compactFile();
      return JSON.parse(stored) as RegionErasureReport;
    }
    let job = store.erasures.job(erasureId);
    if (!job) {
      const subjects = resolveErasureSubjects(store, projectId, request.person_ids, request.distinct_ids);
      store.erasures.begin(erasureId, projectId, subjects, noErasureCounts());
      job = store.erasures.job(erasureId)!;
    }
    for (const [done, stage] of erasureStages.entries()) {
      onProgress(stage, done, erasureStages.length);
      if (job.stagesDone.includes(stage)) continue;
      if (stage === "report") break;
      await this.runStage(stage, erasureId, request.data_id, job);
    }
    const report: RegionErasureReport = {
      erasure_id: erasureId,
      identifier_hashes: [...new Set([
        ...job.subjects.personIds.map((id) => sha256Hex(`${projectId}:person_id:${id}`)),
        ...job.subjects.distinctIds.map((id) => sha256Hex(`${projectId}:distinct_id:${id}`)),
      ])].sort(),
      persons_erased: job.subjects.currentPersons,
      removed: job.removed,
      manifest_digest: manifestDigest(await this.liveFiles(request)),
      completed_at: new Date().toISOString(),
    };
    store.erasures.complete(erasureId, JSON.stringify(report));
    rmSync(this.eventsIntentFile(erasureId), { force: true });
    store.compactFile();
    onProgress("report", erasureStages.length, erasureStages.length);
    return report;
  }

  /** The project's live files in each of its environments (the request's among them). */
  private async liveFiles(request: RegionErasureRequest): Promise<EnvironmentFiles[]> {
    const environments = [...new Set([...this.node.store.projectEnvironments(request.project_id), request.environment])];
    return Promise.all(environments.map(async (environment) => ({ environment, snapshot: await this.node.events.snapshot(request.data_id, environment) })));
  }

  /** Where the event store keeps what a job's events stage is about to commit (EventStore.erase). */
  private eventsIntentFile(erasureId: string): string {
    return join(this.node.dataDir, erasureIntentsDir, `${erasureId}.json`);
  }

  private async runStage(stage: Exclude<Stage, "report">, erasureId: string, dataId: number, job: ErasureJob): Promise<void> {
    const { store, events, wal, replays, live, warnings } = this.node;
    const { projectId, subjects } = job;
    const finish = (counts: Partial<Record<string, number>>) => {
      for (const [key, count] of Object.entries(counts)) job.removed[key] = (job.removed[key] ?? 0) + count!;
      job.stagesDone.push(stage);
      store.erasures.finishStage(erasureId, job);
    };
    if (stage === "persons") {
      // Warnings counted since the last flush carry examples too: stored first, they are erased with the rest.
      warnings.flush();
      // The stage is recorded in the deletion's own transaction: it is done exactly when the rows are gone.
      // The project's Ask conversations go in the same transaction (AskConversationStore.deleteProject says why).
      store.personErasure.erase(projectId, subjects, (counts) => finish({ ...counts, ask_messages: store.askConversations.deleteProject(projectId) }));
    } else if (stage === "events") {
      // Every WAL record of theirs is in a file before `next`; once the store has sealed (and
      // erased) everything those files hold, the files go whole.
      const next = await wal.startNewFile();
      await wal.settled();
      const matcher = new EventMatcher({ projectId, distinctIds: subjects.distinctIds, personIndexes: subjects.personIndexes });
      // Counted before anything goes (the seals of the erasure let the log drop records): a stage
      // run again after a crash finds the files gone.
      const logged = store.erasures.intended(erasureId, stage, () => {
        let walRecords = 0;
        for (const { payload, position } of wal.records()) {
          if (position.file >= next) break;
          if (recordOfSubjects(matcher, payload)) walRecords++;
        }
        return { wal_records: walRecords };
      });
      const counts = await events.erase(matcher.subjects, this.eventsIntentFile(erasureId));
      await wal.truncateUpTo({ file: next, offset: 0 });
      // Records the store could not read were set aside whole, at the latest by the seal erase waited for.
      const setAside = store.erasures.intended(erasureId, `${stage}: quarantine`, () => ({
        quarantined_records: quarantinedRecordsOf(this.node.dataDir, projectId, subjects.distinctIds).length,
      }));
      eraseQuarantinedRecords(this.node.dataDir, projectId, subjects.distinctIds);
      finish({ ...counts, ...logged, ...setAside });
    } else if (stage === "replays") {
      const { sessions, chunks } = await replays.eraseDistinctIds(projectId, subjects.distinctIds, (found) => store.erasures.intended(erasureId, stage, () => found));
      finish({ replay_sessions: sessions, replay_chunks: chunks });
    } else if (stage === "live events") {
      finish({ live_events: live.forget(projectId, new Set(subjects.distinctIds), new Set(subjects.personIndexes)) });
    } else {
      // The project's parts, and every seal file: the events stage compacted them all away (each may hold several projects' segments).
      const parts = this.columns.forgetFilesUnder(join(this.node.dataDir, "parquet", String(dataId), "/"));
      const segments = this.columns.forgetFilesUnder(join(this.node.dataDir, "segments", "/"));
      finish({ cache_entries: parts + segments + this.results.forgetProject(projectId) });
    }
  }
}
