// Ingestion warnings in the region's SQLite file: per project, environment, UTC day, reason and
// message, one row with a count, the first and last time seen and one example excerpt (the
// latest flushed). Messages are a small fixed set (server/ingest/rejections.ts), so a project
// environment has a few dozen rows a day at most, and rows older than warningDaysKept days are
// deleted. The table is created here, if missing, rather than by a schema version of
// region-store.ts: it holds nothing another table refers to, and a region that never rejected an
// event needs none of it.
import type { Database, Statement } from "bun:sqlite";

/** Days of warnings kept, today included. */
export const warningDaysKept = 30;
export const dayMs = 86_400_000;

/** The UTC day of an instant (epoch ms), YYYY-MM-DD: how warnings are counted and filtered. */
export const utcDay = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

const schema = `
CREATE TABLE IF NOT EXISTS ingestion_warnings (
  project_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  day TEXT NOT NULL,
  reason TEXT NOT NULL,
  message TEXT NOT NULL,
  count INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  example TEXT NOT NULL,
  example_ids TEXT,
  PRIMARY KEY (project_id, environment, day, reason, message)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ingestion_warnings_by_day ON ingestion_warnings (day);
`;

/** Warnings of one kind on one day, as counted since the last flush or as stored. */
export interface WarningCount {
  projectId: string;
  environment: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  reason: string;
  message: string;
  count: number;
  /** Epoch ms. */
  firstSeen: number;
  lastSeen: number;
  /** A bounded excerpt of one such event, as text (server/ingest/warning-example.ts). */
  example: string;
  /**
   * The ids the example's event named (its distinct id and anonymous ids, as sent), so an
   * erasure finds the examples of a person's events however masked or cut the excerpt is.
   */
  exampleIds: string[];
}

export interface WarningFilter {
  reason: string | null;
  /** First and last UTC day, YYYY-MM-DD, both included. */
  from: string;
  to: string;
}

interface WarningRow {
  day: string;
  reason: string;
  message: string;
  count: number;
  first_seen: number;
  last_seen: number;
  example: string;
  example_ids: string | null;
}

export class IngestionWarningStore {
  private readonly statements: Record<"add" | "prune" | "list", Statement>;

  constructor(private readonly db: Database) {
    db.exec(schema);
    // Rows written before the column was added have none (NULL): an erasure matches their examples' text.
    const columns = db.query("SELECT name FROM pragma_table_info('ingestion_warnings')").all() as { name: string }[];
    if (!columns.some((column) => column.name === "example_ids")) db.exec("ALTER TABLE ingestion_warnings ADD COLUMN example_ids TEXT");
    this.statements = {
      add: db.query(`INSERT INTO ingestion_warnings (project_id, environment, day, reason, message, count, first_seen, last_seen, example, example_ids)
        VALUES ($projectId, $environment, $day, $reason, $message, $count, $firstSeen, $lastSeen, $example, $exampleIds)
        ON CONFLICT DO UPDATE SET count = count + excluded.count, first_seen = MIN(first_seen, excluded.first_seen),
          example = CASE WHEN excluded.last_seen >= last_seen THEN excluded.example ELSE example END,
          example_ids = CASE WHEN excluded.last_seen >= last_seen THEN excluded.example_ids ELSE example_ids END,
          last_seen = MAX(last_seen, excluded.last_seen)`),
      prune: db.query("DELETE FROM ingestion_warnings WHERE day < ?"),
      list: db.query(`SELECT day, reason, message, count, first_seen, last_seen, example, example_ids FROM ingestion_warnings
        WHERE project_id = $projectId AND environment = $environment AND day BETWEEN $from AND $to AND ($reason IS NULL OR reason = $reason)
        ORDER BY reason, message, day DESC`),
    };
  }

  /** Adds the counts (one transaction). */
  add(counts: Iterable<WarningCount>): void {
    this.db.transaction(() => {
      for (const { projectId, environment, day, reason, message, count, firstSeen, lastSeen, example, exampleIds } of counts) {
        this.statements.add.run({ projectId, environment, day, reason, message, count, firstSeen, lastSeen, example, exampleIds: JSON.stringify(exampleIds) });
      }
    })();
  }

  /** Deletes the days before `oldestDay` (YYYY-MM-DD). */
  prune(oldestDay: string): void {
    this.statements.prune.run(oldestDay);
  }

  /** A project environment's rows in the filter, by reason and message, newest day first. */
  list(projectId: string, environment: string, filter: WarningFilter): WarningCount[] {
    const rows = this.statements.list.all({ projectId, environment, ...filter }) as WarningRow[];
    return rows.map((row) => ({
      projectId, environment, day: row.day, reason: row.reason, message: row.message, count: row.count,
      firstSeen: row.first_seen, lastSeen: row.last_seen, example: row.example, exampleIds: row.example_ids === null ? [] : (JSON.parse(row.example_ids) as string[]),
    }));
  }
}
