// Erasure jobs in the region's SQLite file. Before an erasure deletes anything it records the
// subjects it resolved (every distinct id, person index and person uuid of the persons named),
// so a job resumed after a crash erases the same set even where the mappings are gone already;
// counts accumulate per finished stage. A stage whose destructive step a crash could separate
// from its record first records what it is about to remove (an intent): run again, the stage
// keeps those counts, as what it then finds is only what the crash left. When the job completes the subjects are deleted (the
// file runs with secure_delete, so their bytes go too) and only the report stays, to answer a
// repeated request. The table is created here, if missing, rather than by a schema version of
// region-store.ts: nothing else refers to it.
import type { Database, Statement } from "bun:sqlite";

const schema = `
CREATE TABLE IF NOT EXISTS erasures (
  erasure_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  subjects TEXT,
  stages_done TEXT NOT NULL,
  removed TEXT NOT NULL,
  report TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS erasure_intents (
  erasure_id TEXT NOT NULL,
  stage TEXT NOT NULL,
  counts TEXT NOT NULL,
  PRIMARY KEY (erasure_id, stage)
) WITHOUT ROWID;
`;

/** Who an erasure erases, as resolved before anything was deleted. */
export interface ErasureSubjects {
  distinctIds: string[];
  /** Person indexes of the project (survivors and the persons merged into them). */
  personIndexes: number[];
  /** The uuids of those persons. */
  personIds: string[];
  /** How many of them were current persons (not merged into another). */
  currentPersons: number;
}

/** A job that has started and not completed. */
export interface ErasureJob {
  projectId: string;
  subjects: ErasureSubjects;
  stagesDone: string[];
  removed: Record<string, number>;
}

interface JobRow {
  project_id: string;
  subjects: string | null;
  stages_done: string;
  removed: string;
  report: string | null;
}

export class ErasureJournal {
  private readonly statements: Record<"get" | "begin" | "stage" | "complete" | "intent" | "intend" | "forgetIntents", Statement>;

  constructor(private readonly db: Database) {
    db.exec(schema);
    this.statements = {
      get: db.query("SELECT project_id, subjects, stages_done, removed, report FROM erasures WHERE erasure_id = ?"),
      begin: db.query("INSERT INTO erasures (erasure_id, project_id, subjects, stages_done, removed, report) VALUES (?, ?, ?, '[]', ?, NULL)"),
      stage: db.query("UPDATE erasures SET stages_done = ?, removed = ? WHERE erasure_id = ? AND report IS NULL"),
      complete: db.query("UPDATE erasures SET subjects = NULL, report = ? WHERE erasure_id = ?"),
      intent: db.query("SELECT counts FROM erasure_intents WHERE erasure_id = ? AND stage = ?"),
      intend: db.query("INSERT OR IGNORE INTO erasure_intents (erasure_id, stage, counts) VALUES (?, ?, ?)"),
      forgetIntents: db.query("DELETE FROM erasure_intents WHERE erasure_id = ?"),
    };
  }

  /** The stored report of a completed job (as stored: JSON), or null. */
  report(erasureId: string): string | null {
    return (this.statements.get.get(erasureId) as JobRow | null)?.report ?? null;
  }

  /** A started job not completed yet, or null. */
  job(erasureId: string): ErasureJob | null {
    const row = this.statements.get.get(erasureId) as JobRow | null;
    if (!row || row.report !== null || row.subjects === null) return null;
    return {
      projectId: row.project_id,
      subjects: JSON.parse(row.subjects) as ErasureSubjects,
      stagesDone: JSON.parse(row.stages_done) as string[],
      removed: JSON.parse(row.removed) as Record<string, number>,
    };
  }

  begin(erasureId: string, projectId: string, subjects: ErasureSubjects, removed: Record<string, number>): void {
    this.statements.begin.run(erasureId, projectId, JSON.stringify(subjects), JSON.stringify(removed));
  }

  /** Records a finished stage and the counts so far (inside the stage's own transaction where it has one). */
  finishStage(erasureId: string, job: ErasureJob): void {
    this.statements.stage.run(JSON.stringify(job.stagesDone), JSON.stringify(job.removed), erasureId);
  }

  /**
   * The counts a stage recorded before its destructive step: those recorded first, or, when the
   * stage has none yet, `counted()` recorded now.
   */
  intended<T extends object>(erasureId: string, stage: string, counted: () => T): T {
    const row = this.statements.intent.get(erasureId, stage) as { counts: string } | null;
    if (row) return JSON.parse(row.counts) as T;
    const counts = counted();
    this.statements.intend.run(erasureId, stage, JSON.stringify(counts));
    return counts;
  }

  /** Stores the report and forgets the subjects and intents. */
  complete(erasureId: string, report: string): void {
    this.db.transaction(() => {
      this.statements.complete.run(report, erasureId);
      this.statements.forgetIntents.run(erasureId);
    })();
  }
}
