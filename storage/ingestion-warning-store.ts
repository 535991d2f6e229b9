// Ingestion warnings in the region's SQLite file: per project, environment, UTC day, reason and
// message, one row with a count, the first and last time seen and one example excerpt (the
// latest flushed). Messages are a small fixed set (server/ingest/rejections.ts), so a project
// environment has a few dozen rows a day at most, and rows older than warningDaysKept days are
// deleted. The table is created here, if missing, rather than by a schema version of
// region-store.ts: it holds nothing another table refers to, and a region that never rejected an
// event needs none of it.
//
// Beside the daily rows, `ingestion_warning_slots` counts warnings per quarter of an hour (UTC;
// every time zone's offset is a whole number of quarters, so a local hour or day is a whole
// number of slots) by reason, for findings rules on ingestion warnings (docs/findings-evaluation.md),
// kept warningSlotDaysKept days: a rule's baseline goes back up to that many weeks.
import type { Database, Statement } from "bun:sqlite";

/** Days of warnings kept, today included. */
export const warningDaysKept = 30;
export const dayMs = 86_400_000;
/** A warning slot: a quarter of an hour. */
export const warningSlotMs = 15 * 60_000;
/** Days of per-slot counts kept: 13 weeks of baseline and the week judged. */
export const warningSlotDaysKept = 14 * 7;
/** The slot of an instant (epoch ms): quarters of an hour since 1970. */
export const warningSlot = (epochMs: number) => Math.floor(epochMs / warningSlotMs);

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
CREATE TABLE IF NOT EXISTS ingestion_warning_slots (
  project_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  slot INTEGER NOT NULL,
  reason TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (project_id, environment, slot, reason)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ingestion_warning_slots_by_slot ON ingestion_warning_slots (slot);
`;

/** Warnings of one reason in one quarter of an hour. */
export interface WarningSlotCount {
  projectId: string;
  environment: string;
  slot: number;
  reason: string;
  count: number;
}

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
  private readonly statements: Record<"add" | "prune" | "list" | "addSlot" | "pruneSlots" | "slotTotal", Statement>;

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
      addSlot: db.query(`INSERT INTO ingestion_warning_slots (project_id, environment, slot, reason, count) VALUES ($projectId, $environment, $slot, $reason, $count)
        ON CONFLICT DO UPDATE SET count = count + excluded.count`),
      pruneSlots: db.query("DELETE FROM ingestion_warning_slots WHERE slot < ?"),
      slotTotal: db.query(`SELECT COALESCE(SUM(count), 0) AS total FROM ingestion_warning_slots
        WHERE project_id = $projectId AND environment = $environment AND slot >= $from AND slot < $to AND ($reason IS NULL OR reason = $reason)`),
    };
  }

  /** Adds the counts, daily and per slot (one transaction). */
  add(counts: Iterable<WarningCount>, slots: Iterable<WarningSlotCount> = []): void {
    this.db.transaction(() => {
      for (const { projectId, environment, day, reason, message, count, firstSeen, lastSeen, example, exampleIds } of counts) {
        this.statements.add.run({ projectId, environment, day, reason, message, count, firstSeen, lastSeen, example, exampleIds: JSON.stringify(exampleIds) });
      }
      for (const { projectId, environment, slot, reason, count } of slots) this.statements.addSlot.run({ projectId, environment, slot, reason, count });
    })();
  }

  /** Deletes the days before `oldestDay` (YYYY-MM-DD), and the slots before `oldestSlot`. */
  prune(oldestDay: string, oldestSlot = 0): void {
    this.statements.prune.run(oldestDay);
    this.statements.pruneSlots.run(oldestSlot);
  }

  /** Warnings of a project environment in [from, to) (epoch ms, whole slots), of one reason or of all (null). */
  countBetween(projectId: string, environment: string, reason: string | null, fromMs: number, toMs: number): number {
    const row = this.statements.slotTotal.get({ projectId, environment, reason, from: warningSlot(fromMs), to: warningSlot(toMs) }) as { total: number };
    return row.total;
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
