// Raised findings in the region's SQLite file (docs/findings-evaluation.md): one row per rule
// and period ever (UNIQUE (rule_id, period_start)), so re-evaluating a period, after a restart
// too, never raises it twice; the periods each rule judged (kept judgedPeriodsKeptMs), so a pass
// does not ask the engine again about a period already judged; whether each finding was sent (false past the
// rule's daily cap, counted per UTC day of raising) and handed on to delivery (a finding
// stored but not yet handed on when the process died is handed on at the next pass); and its
// acknowledgement. The tables are created here, if missing, like the findings configuration's.
import type { Database, Statement } from "bun:sqlite";
import type { RaisedFinding } from "../server/findings/findings-types.ts";

const schema = `
CREATE TABLE IF NOT EXISTS findings (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  rule_id TEXT NOT NULL,
  period_start INTEGER NOT NULL,
  raised_at INTEGER NOT NULL,
  raised_day TEXT NOT NULL,
  sent INTEGER NOT NULL,
  handed_on INTEGER NOT NULL,
  acknowledged_at INTEGER,
  acknowledged_by TEXT,
  finding TEXT NOT NULL,
  UNIQUE (rule_id, period_start)
);
CREATE INDEX IF NOT EXISTS findings_by_project ON findings (project_id, raised_at DESC);
CREATE INDEX IF NOT EXISTS findings_by_rule_day ON findings (rule_id, raised_day, sent);
CREATE INDEX IF NOT EXISTS findings_to_hand_on ON findings (handed_on) WHERE handed_on = 0;
CREATE TABLE IF NOT EXISTS findings_rule_periods (
  rule_id TEXT NOT NULL,
  period_start INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  evaluated_at INTEGER NOT NULL,
  PRIMARY KEY (rule_id, period_start)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS findings_rule_periods_by_start ON findings_rule_periods (period_start);
`;

/** Judged periods are remembered this long (a period is only judged while it is the latest due, a day at most). */
export const judgedPeriodsKeptMs = 8 * 86_400_000;

/** A finding as stored: what was raised, and its acknowledgement. */
export interface StoredFinding extends RaisedFinding {
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
}

export interface FindingFilter {
  ruleId: string | null;
  acknowledged: boolean | null;
  limit: number;
  offset: number;
}

interface FindingRow {
  finding: string;
  sent: number;
  acknowledged_at: number | null;
  acknowledged_by: string | null;
}

const utcDay = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
const iso = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());

const fromRow = (row: FindingRow): StoredFinding => ({
  ...(JSON.parse(row.finding) as RaisedFinding),
  sent: row.sent === 1,
  acknowledgedAt: iso(row.acknowledged_at),
  acknowledgedBy: row.acknowledged_by,
});

const columns = "finding, sent, acknowledged_at, acknowledged_by";

export class FindingsStore {
  private readonly statements: Record<"wasJudged" | "judged" | "pruneJudged" | "insert" | "sentOnDay" | "get" | "list" | "acknowledge" | "toHandOn" | "handedOn", Statement>;

  constructor(private readonly db: Database) {
    db.exec(schema);
    this.statements = {
      wasJudged: db.query("SELECT 1 AS judged FROM findings_rule_periods WHERE rule_id = ? AND period_start = ?"),
      judged: db.query(`INSERT INTO findings_rule_periods (rule_id, period_start, project_id, evaluated_at) VALUES ($ruleId, $periodStart, $projectId, $now)
        ON CONFLICT DO NOTHING`),
      pruneJudged: db.query("DELETE FROM findings_rule_periods WHERE period_start < ?"),
      insert: db.query(`INSERT INTO findings (id, project_id, rule_id, period_start, raised_at, raised_day, sent, handed_on, finding)
        VALUES ($id, $projectId, $ruleId, $periodStart, $raisedAt, $raisedDay, $sent, $handedOn, $finding) ON CONFLICT (rule_id, period_start) DO NOTHING`),
      sentOnDay: db.query("SELECT COUNT(*) AS sent FROM findings WHERE rule_id = ? AND raised_day = ? AND sent = 1"),
      get: db.query(`SELECT ${columns} FROM findings WHERE project_id = ? AND id = ?`),
      list: db.query(`SELECT ${columns} FROM findings WHERE project_id = $projectId AND ($ruleId IS NULL OR rule_id = $ruleId)
        AND ($acknowledged IS NULL OR (acknowledged_at IS NOT NULL) = $acknowledged) ORDER BY raised_at DESC, rowid DESC LIMIT $limit OFFSET $offset`),
      acknowledge: db.query("UPDATE findings SET acknowledged_at = ?, acknowledged_by = ? WHERE project_id = ? AND id = ? AND acknowledged_at IS NULL"),
      toHandOn: db.query(`SELECT ${columns} FROM findings WHERE handed_on = 0 ORDER BY raised_at, rowid LIMIT ?`),
      handedOn: db.query("UPDATE findings SET handed_on = 1 WHERE id = ?"),
    };
  }

  /** Whether the rule's period starting at `periodStart` (epoch ms) was judged. */
  wasJudged(ruleId: string, periodStart: number): boolean {
    return this.statements.wasJudged.get(ruleId, periodStart) !== null;
  }

  /** Forgets the judged periods older than judgedPeriodsKeptMs (the findings stay). */
  pruneJudged(now: number): void {
    this.statements.pruneJudged.run(now - judgedPeriodsKeptMs);
  }

  /**
   * Records that the rule's period was judged and, when it raised `finding`, stores it (one
   * transaction): sent while the rule has sent fewer than `dailyCap` findings on the UTC day of
   * `raisedAt`. Returns the stored finding, or null when none was raised or the period already
   * had one (it is never raised twice).
   */
  recordJudgement(projectId: string, ruleId: string, periodStart: number, finding: Omit<RaisedFinding, "sent"> | null, dailyCap: number, now: number): RaisedFinding | null {
    return this.db.transaction((): RaisedFinding | null => {
      this.statements.judged.run({ ruleId, projectId, periodStart, now });
      if (finding === null) return null;
      const raisedAt = Date.parse(finding.raisedAt);
      const raisedDay = utcDay(raisedAt);
      const { sent: sentToday } = this.statements.sentOnDay.get(ruleId, raisedDay) as { sent: number };
      const stored: RaisedFinding = { ...finding, sent: sentToday < dailyCap };
      const result = this.statements.insert.run({
        id: stored.id, projectId, ruleId, periodStart, raisedAt, raisedDay, sent: stored.sent ? 1 : 0,
        // A finding past the cap is never handed on.
        handedOn: stored.sent ? 0 : 1, finding: JSON.stringify(stored),
      });
      return result.changes === 1 ? stored : null;
    })();
  }

  /** Sent findings not handed on to delivery yet, oldest first. */
  toHandOn(limit: number): StoredFinding[] {
    return (this.statements.toHandOn.all(limit) as FindingRow[]).map(fromRow);
  }

  markHandedOn(findingId: string): void {
    this.statements.handedOn.run(findingId);
  }

  get(projectId: string, findingId: string): StoredFinding | null {
    const row = this.statements.get.get(projectId, findingId) as FindingRow | null;
    return row ? fromRow(row) : null;
  }

  /** A project's findings in the filter, newest first (raised last first; of one pass, the last stored first), limit rows from offset. */
  list(projectId: string, filter: FindingFilter): StoredFinding[] {
    const acknowledged = filter.acknowledged === null ? null : filter.acknowledged ? 1 : 0;
    return (this.statements.list.all({ projectId, ruleId: filter.ruleId, acknowledged, limit: filter.limit, offset: filter.offset }) as FindingRow[]).map(fromRow);
  }

  /** Acknowledges the finding (the first acknowledgement is kept); null when the project has no such finding. */
  acknowledge(projectId: string, findingId: string, userId: string, now: number): StoredFinding | null {
    this.statements.acknowledge.run(now, userId, projectId, findingId);
    return this.get(projectId, findingId);
  }
}
