// What ingest stored, counted per project and UTC hour in the region's SQLite file: events
// received (accepted, before spend-cap sampling), events stored (after it), and replay
// recordings stored (a recording counts once, when its first chunk, seq 0, is stored). Billing
// meters from these counters rather than scanning Parquet. Capture writes them in the same
// turn as the request's write-ahead-log record, and the event WAL syncs this file's journal
// in its group commit, so a count is as durable as the events it counts. The table is created
// here, if missing (like ingestion warnings): nothing else refers to it.
import type { Database, Statement } from "bun:sqlite";

export const hourMs = 3_600_000;

const schema = `
CREATE TABLE IF NOT EXISTS usage_hourly (
  project_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  events_received INTEGER NOT NULL DEFAULT 0,
  events_stored INTEGER NOT NULL DEFAULT 0,
  replay_recordings INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, hour)
) WITHOUT ROWID;
`;

export interface UsageDelta {
  eventsReceived: number;
  eventsStored: number;
  replayRecordings: number;
}

export interface UsageTotals extends UsageDelta {
  projectId: string;
}

export class UsageCounterStore {
  private readonly addStatement: Statement;

  constructor(private readonly db: Database) {
    db.exec(schema);
    this.addStatement = db.query(`INSERT INTO usage_hourly (project_id, hour, events_received, events_stored, replay_recordings) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(project_id, hour) DO UPDATE SET
        events_received = events_received + excluded.events_received,
        events_stored = events_stored + excluded.events_stored,
        replay_recordings = replay_recordings + excluded.replay_recordings`);
  }

  /** Adds to the counters of the hour `atMs` falls in (a negative delta takes back a write that failed). */
  add(projectId: string, atMs: number, delta: UsageDelta): void {
    this.addStatement.run(projectId, Math.floor(atMs / hourMs), delta.eventsReceived, delta.eventsStored, delta.replayRecordings);
  }

  /**
   * Totals per project of the hours in [fromMs, toMs): an hour counts when it starts in the
   * range, so a period boundary inside an hour is rounded to that hour's start. Projects with
   * nothing counted are answered with zeros.
   */
  totals(projectIds: readonly string[], fromMs: number, toMs: number): UsageTotals[] {
    const fromHour = Math.ceil(fromMs / hourMs);
    const toHour = Math.ceil(toMs / hourMs);
    const query = this.db.query(`SELECT COALESCE(SUM(events_received), 0) AS received, COALESCE(SUM(events_stored), 0) AS stored, COALESCE(SUM(replay_recordings), 0) AS recordings
      FROM usage_hourly WHERE project_id = ? AND hour >= ? AND hour < ?`);
    return projectIds.map((projectId) => {
      const row = query.get(projectId, fromHour, toHour) as { received: number; stored: number; recordings: number };
      return { projectId, eventsReceived: row.received, eventsStored: row.stored, replayRecordings: row.recordings };
    });
  }
}
