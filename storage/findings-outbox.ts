// The findings outbox (same region.sqlite): one row per (finding, destination) to deliver, with
// the body rendered when the finding was raised, its state and when it is next due, and every
// attempt made (status, error, duration). A row is `pending` until a 2xx (`delivered`) or a
// failure that is not retried (`failed`); it is written before anything is sent, so a process
// killed at any point finds its pending rows here when the file is reopened. The "send test"
// attempts are kept apart (the last few per destination): they belong to no finding. The tables
// are created here, if missing, like the other stores the control plane feeds: nothing else
// refers to them.
import type { Database, Statement } from "bun:sqlite";
import type { DestinationKind } from "../server/findings/findings-types.ts";

const schema = `
CREATE TABLE IF NOT EXISTS findings_outbox (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  finding_id TEXT NOT NULL,
  destination_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  created_at TEXT NOT NULL,
  UNIQUE (finding_id, destination_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS findings_outbox_due ON findings_outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS findings_outbox_by_project ON findings_outbox (project_id);
CREATE TABLE IF NOT EXISTS findings_delivery_attempts (
  delivery_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  at TEXT NOT NULL,
  status INTEGER,
  ok INTEGER NOT NULL,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS findings_test_attempts (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  destination_id TEXT NOT NULL,
  at TEXT NOT NULL,
  status INTEGER,
  ok INTEGER NOT NULL,
  error TEXT,
  duration_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS findings_test_attempts_by_destination ON findings_test_attempts (destination_id, at);
`;

export type OutboxState = "pending" | "delivered" | "failed";

/** A delivery to make: its id is also the webhook-id receivers deduplicate by. */
export interface NewOutboxDelivery {
  id: string;
  projectId: string;
  findingId: string;
  destinationId: string;
  kind: DestinationKind;
  body: string;
  createdAt: string;
  /** Due from this instant (epoch ms). */
  dueAt: number;
}

export interface OutboxDelivery {
  id: string;
  projectId: string;
  findingId: string;
  destinationId: string;
  kind: DestinationKind;
  body: string;
  state: OutboxState;
  attempts: number;
  /** Epoch ms; null once settled. */
  nextAttemptAt: number | null;
  createdAt: string;
}

export interface StoredAttempt {
  attempt: number;
  at: string;
  status: number | null;
  ok: boolean;
  error: string | null;
  durationMs: number;
}

interface DeliveryRow {
  id: string;
  project_id: string;
  finding_id: string;
  destination_id: string;
  kind: string;
  body: string;
  state: string;
  attempts: number;
  next_attempt_at: number | null;
  created_at: string;
}

interface AttemptRow {
  attempt: number;
  at: string;
  status: number | null;
  ok: number;
  error: string | null;
  duration_ms: number;
}

const fromDeliveryRow = (row: DeliveryRow): OutboxDelivery => ({
  id: row.id,
  projectId: row.project_id,
  findingId: row.finding_id,
  destinationId: row.destination_id,
  kind: row.kind as DestinationKind,
  body: row.body,
  state: row.state as OutboxState,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
});

const fromAttemptRow = (row: AttemptRow): StoredAttempt => ({
  attempt: row.attempt,
  at: row.at,
  status: row.status,
  ok: row.ok === 1,
  error: row.error,
  durationMs: row.duration_ms,
});

export class FindingsOutboxStore {
  private readonly statements: Record<
    "insert" | "due" | "insertAttempt" | "settle" | "ofFinding" | "attemptsOf" | "nextDue" | "insertTest" | "pruneTests" | "testsOf" | "get",
    Statement
  >;

  constructor(private readonly db: Database) {
    db.exec(schema);
    this.statements = {
      insert: db.query(`INSERT INTO findings_outbox (id, project_id, finding_id, destination_id, kind, body, state, attempts, next_attempt_at, created_at)
        VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (finding_id, destination_id) DO NOTHING`),
      due: db.query("SELECT * FROM findings_outbox WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?"),
      insertAttempt: db.query("INSERT OR REPLACE INTO findings_delivery_attempts (delivery_id, attempt, at, status, ok, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      settle: db.query("UPDATE findings_outbox SET state = ?, attempts = ?, next_attempt_at = ? WHERE id = ?"),
      ofFinding: db.query("SELECT * FROM findings_outbox WHERE finding_id = ? ORDER BY destination_id"),
      attemptsOf: db.query("SELECT attempt, at, status, ok, error, duration_ms FROM findings_delivery_attempts WHERE delivery_id = ? ORDER BY attempt"),
      nextDue: db.query("SELECT MIN(next_attempt_at) AS at FROM findings_outbox WHERE state = 'pending'"),
      insertTest: db.query("INSERT INTO findings_test_attempts (id, project_id, destination_id, at, status, ok, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
      pruneTests: db.query(`DELETE FROM findings_test_attempts WHERE destination_id = ? AND id NOT IN
        (SELECT id FROM findings_test_attempts WHERE destination_id = ? ORDER BY at DESC, id DESC LIMIT ?)`),
      testsOf: db.query("SELECT 1 AS attempt, at, status, ok, error, duration_ms FROM findings_test_attempts WHERE project_id = ? AND destination_id = ? ORDER BY at DESC, id DESC"),
      get: db.query("SELECT * FROM findings_outbox WHERE id = ?"),
    };
  }

  /** Stores these deliveries in one transaction; one already stored for the same finding and destination is kept as it is. */
  insert(deliveries: readonly NewOutboxDelivery[]): void {
    this.db.transaction(() => {
      for (const entry of deliveries) {
        this.statements.insert.run(entry.id, entry.projectId, entry.findingId, entry.destinationId, entry.kind, entry.body, entry.dueAt, entry.createdAt);
      }
    })();
  }

  /** Pending deliveries due at `nowMs`, the longest-waiting first. */
  due(nowMs: number, limit: number): OutboxDelivery[] {
    return (this.statements.due.all(nowMs, limit) as DeliveryRow[]).map(fromDeliveryRow);
  }

  get(id: string): OutboxDelivery | null {
    const row = this.statements.get.get(id) as DeliveryRow | null;
    return row ? fromDeliveryRow(row) : null;
  }

  /** Logs an attempt and moves the delivery on (state, attempts made, next due time) together. */
  recordAttempt(deliveryId: string, attempt: StoredAttempt, next: { state: OutboxState; nextAttemptAt: number | null }): void {
    this.db.transaction(() => {
      this.statements.insertAttempt.run(deliveryId, attempt.attempt, attempt.at, attempt.status, attempt.ok ? 1 : 0, attempt.error, attempt.durationMs);
      this.statements.settle.run(next.state, attempt.attempt, next.nextAttemptAt, deliveryId);
    })();
  }

  /** A finding's deliveries, each with its attempts in order. */
  ofFinding(findingId: string): { delivery: OutboxDelivery; attempts: StoredAttempt[] }[] {
    return (this.statements.ofFinding.all(findingId) as DeliveryRow[]).map((row) => ({
      delivery: fromDeliveryRow(row),
      attempts: (this.statements.attemptsOf.all(row.id) as AttemptRow[]).map(fromAttemptRow),
    }));
  }

  /** When the earliest pending delivery is due (epoch ms), or null when none is pending. */
  nextDueAt(): number | null {
    return (this.statements.nextDue.get() as { at: number | null }).at;
  }

  /** Logs a test attempt, keeping only the destination's last `keptMax`. */
  recordTest(id: string, projectId: string, destinationId: string, attempt: StoredAttempt, keptMax: number): void {
    this.db.transaction(() => {
      this.statements.insertTest.run(id, projectId, destinationId, attempt.at, attempt.status, attempt.ok ? 1 : 0, attempt.error, attempt.durationMs);
      this.statements.pruneTests.run(destinationId, destinationId, keptMax);
    })();
  }

  /** A destination's logged test attempts, newest first. */
  testsOf(projectId: string, destinationId: string): StoredAttempt[] {
    return (this.statements.testsOf.all(projectId, destinationId) as AttemptRow[]).map(fromAttemptRow);
  }
}
