// The replay index in region.sqlite: one row per recorded session (what listing and filters
// read), its blocks, the (session, seq) of every chunk stored (deduplication once the replay
// log has been compacted), each project's replay policy, and how far the log is compacted.
// The store creates its own tables, as the region's other stores do.
import type { Database } from "bun:sqlite";
import type { WalPosition } from "../wal.ts";
import type { SecondRange, UrlVisit } from "./replay-summary.ts";

export interface ReplayPolicy {
  projectId: string;
  /** Share of sessions recorded, decided per session (0–1). */
  sampleRate: number;
  /** Recordings shorter than this are not listed, and deleted once the session is over. */
  minDurationMs: number;
  /** Record only persons for whom this flag is enabled; null: everyone. */
  flagKey: string | null;
  updatedAt: string;
}

export const defaultReplayPolicy = (projectId: string): ReplayPolicy => ({ projectId, sampleRate: 1, minDurationMs: 0, flagKey: null, updatedAt: "" });

export interface ReplaySessionRow {
  projectId: string;
  environment: string;
  sessionId: string;
  dataId: number;
  distinctId: string;
  platform: string;
  mode: string;
  startMs: number;
  endMs: number;
  /** Seconds with activity, and the ranges they are in (so blocks that overlap in time count each second once). */
  activeSeconds: number;
  activeRanges: SecondRange[];
  /** The earliest page's URL (visits[0]), kept as a column for reading without JSON. */
  firstUrl: string | null;
  /** Visited URLs in the order first loaded. */
  visits: UrlVisit[];
  pageCount: number;
  clickCount: number;
  keypressCount: number;
  consoleErrorCount: number;
  chunkCount: number;
  eventCount: number;
  sizeBytes: number;
  /** When its newest chunk arrived, by the server's clock (whether a session is over is not the visitor's clock's say). */
  receivedMs: number;
}

export interface ReplayBlockRow {
  name: string;
  startMs: number;
  endMs: number;
  eventCount: number;
  sizeBytes: number;
}

/** Where listing resumes: the last row's start and id (newest start first). */
export interface ReplayPosition {
  startMs: number;
  sessionId: string;
}

/** Filters of GET /replays that the index answers itself. */
export interface ReplayFilter {
  projectId: string;
  environment: string;
  distinctIds?: readonly string[];
  fromMs?: number;
  toMs?: number;
  durationMinMs?: number;
  durationMaxMs?: number;
  urlContains?: string;
  hasErrors?: boolean;
  platform?: string;
  sessionIds?: ReadonlySet<string>;
}

const schema = `
CREATE TABLE IF NOT EXISTS replay_sessions (
  project_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  session_id TEXT NOT NULL,
  data_id INTEGER NOT NULL,
  distinct_id TEXT NOT NULL,
  platform TEXT NOT NULL,
  mode TEXT NOT NULL,
  start_ms INTEGER NOT NULL,
  end_ms INTEGER NOT NULL,
  active_seconds INTEGER NOT NULL,
  active_ranges TEXT NOT NULL,
  first_url TEXT,
  urls TEXT NOT NULL,
  url_times TEXT NOT NULL,
  page_count INTEGER NOT NULL,
  click_count INTEGER NOT NULL,
  keypress_count INTEGER NOT NULL,
  console_error_count INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL,
  event_count INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL,
  received_ms INTEGER NOT NULL,
  PRIMARY KEY (project_id, environment, session_id)
);
CREATE INDEX IF NOT EXISTS replay_sessions_by_start ON replay_sessions (project_id, environment, start_ms DESC, session_id DESC);
CREATE INDEX IF NOT EXISTS replay_sessions_by_end ON replay_sessions (project_id, end_ms);
CREATE TABLE IF NOT EXISTS replay_blocks (
  project_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  session_id TEXT NOT NULL,
  name TEXT NOT NULL,
  start_ms INTEGER NOT NULL,
  end_ms INTEGER NOT NULL,
  event_count INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL,
  PRIMARY KEY (project_id, environment, session_id, name)
);
CREATE TABLE IF NOT EXISTS replay_chunks (
  project_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (project_id, environment, session_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS replay_policy (
  project_id TEXT PRIMARY KEY,
  sample_rate REAL NOT NULL,
  min_duration_ms INTEGER NOT NULL,
  flag_key TEXT,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS replay_log_checkpoint (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  file INTEGER NOT NULL,
  offset INTEGER NOT NULL
);`;

const sessionColumns = {
  projectId: "project_id", environment: "environment", sessionId: "session_id", dataId: "data_id", distinctId: "distinct_id",
  platform: "platform", mode: "mode", startMs: "start_ms", endMs: "end_ms", activeSeconds: "active_seconds",
  firstUrl: "first_url", pageCount: "page_count", clickCount: "click_count", keypressCount: "keypress_count",
  consoleErrorCount: "console_error_count", chunkCount: "chunk_count", eventCount: "event_count", sizeBytes: "size_bytes",
  receivedMs: "received_ms",
} as const satisfies Record<Exclude<keyof ReplaySessionRow, "activeRanges" | "visits">, string>;

function toSessionRow(row: Record<string, unknown>): ReplaySessionRow {
  const session = Object.fromEntries(Object.entries(sessionColumns).map(([field, column]) => [field, row[column]])) as unknown as ReplaySessionRow;
  const times = JSON.parse(row.url_times as string) as number[];
  session.visits = (JSON.parse(row.urls as string) as string[]).map((url, at) => ({ url, ms: times[at]! }));
  session.activeRanges = JSON.parse(row.active_ranges as string) as SecondRange[];
  return session;
}

/** `%` and `_` are LIKE wildcards and `\` its escape here: a URL filter matches them literally. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

export class ReplayIndex {
  constructor(private readonly db: Database) {
    db.exec(schema);
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  hasChunk(projectId: string, environment: string, sessionId: string, seq: number): boolean {
    return this.db.query("SELECT 1 FROM replay_chunks WHERE project_id = ? AND environment = ? AND session_id = ? AND seq = ?").get(projectId, environment, sessionId, seq) !== null;
  }

  /** Records a chunk as stored; false when it was already (then it must not be stored again). */
  addChunk(projectId: string, environment: string, sessionId: string, seq: number): boolean {
    return this.db.query("INSERT OR IGNORE INTO replay_chunks (project_id, environment, session_id, seq) VALUES (?, ?, ?, ?)").run(projectId, environment, sessionId, seq).changes === 1;
  }

  session(projectId: string, environment: string, sessionId: string): ReplaySessionRow | null {
    const row = this.db.query("SELECT * FROM replay_sessions WHERE project_id = ? AND environment = ? AND session_id = ?").get(projectId, environment, sessionId) as Record<string, unknown> | null;
    return row ? toSessionRow(row) : null;
  }

  putSession(session: ReplaySessionRow): void {
    // URLs and their times apart: the URL filter searches the `urls` text, where digits of a time would match.
    const columns = [...Object.values(sessionColumns), "urls", "url_times", "active_ranges"];
    const values = [
      ...Object.keys(sessionColumns).map((field) => session[field as keyof typeof sessionColumns]),
      JSON.stringify(session.visits.map((visit) => visit.url)),
      JSON.stringify(session.visits.map((visit) => visit.ms)),
      JSON.stringify(session.activeRanges),
    ];
    this.db.query(`INSERT OR REPLACE INTO replay_sessions (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`).run(...(values as (string | number | null)[]));
  }

  addBlock(projectId: string, environment: string, sessionId: string, block: ReplayBlockRow): void {
    this.db
      .query("INSERT OR REPLACE INTO replay_blocks (project_id, environment, session_id, name, start_ms, end_ms, event_count, size_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(projectId, environment, sessionId, block.name, block.startMs, block.endMs, block.eventCount, block.sizeBytes);
  }

  blocks(projectId: string, environment: string, sessionId: string): ReplayBlockRow[] {
    return (this.db
      .query("SELECT name, start_ms, end_ms, event_count, size_bytes FROM replay_blocks WHERE project_id = ? AND environment = ? AND session_id = ? ORDER BY start_ms, name")
      .all(projectId, environment, sessionId) as Record<string, number | string>[]).map((row) => ({
      name: row.name as string,
      startMs: row.start_ms as number,
      endMs: row.end_ms as number,
      eventCount: row.event_count as number,
      sizeBytes: row.size_bytes as number,
    }));
  }

  /** Every block file name of the index, as `{dataId}/{environment}/{sessionId}/{name}` (startup removes the others). */
  blockPaths(): Set<string> {
    const rows = this.db
      .query("SELECT s.data_id, b.environment, b.session_id, b.name FROM replay_blocks b JOIN replay_sessions s USING (project_id, environment, session_id)")
      .all() as { data_id: number; environment: string; session_id: string; name: string }[];
    return new Set(rows.map((row) => `${row.data_id}/${row.environment}/${row.session_id}/${row.name}`));
  }

  /** Up to `limit` sessions matching `filter`, newest start first, after `after`. */
  list(filter: ReplayFilter, after: ReplayPosition | null, limit: number, minDurationMs: number): ReplaySessionRow[] {
    const where = ["project_id = ?", "environment = ?", "end_ms - start_ms >= ?"];
    const params: (string | number)[] = [filter.projectId, filter.environment, minDurationMs];
    const add = (clause: string, ...values: (string | number)[]) => {
      where.push(clause);
      params.push(...values);
    };
    if (filter.distinctIds) add(`distinct_id IN (${filter.distinctIds.map(() => "?").join(", ") || "NULL"})`, ...filter.distinctIds);
    if (filter.fromMs !== undefined) add("start_ms >= ?", filter.fromMs);
    if (filter.toMs !== undefined) add("start_ms <= ?", filter.toMs);
    if (filter.durationMinMs !== undefined) add("end_ms - start_ms >= ?", filter.durationMinMs);
    if (filter.durationMaxMs !== undefined) add("end_ms - start_ms <= ?", filter.durationMaxMs);
    if (filter.urlContains !== undefined) add("urls LIKE ? ESCAPE '\\'", likePattern(JSON.stringify(filter.urlContains).slice(1, -1)));
    if (filter.hasErrors) add("console_error_count > 0");
    if (filter.platform !== undefined) add("platform = ?", filter.platform);
    if (filter.sessionIds) {
      const ids = [...filter.sessionIds];
      add(`session_id IN (SELECT value FROM json_each(?))`, JSON.stringify(ids));
    }
    if (after) add("(start_ms < ? OR (start_ms = ? AND session_id < ?))", after.startMs, after.startMs, after.sessionId);
    const rows = this.db
      .query(`SELECT * FROM replay_sessions WHERE ${where.join(" AND ")} ORDER BY start_ms DESC, session_id DESC LIMIT ?`)
      .all(...params, limit) as Record<string, unknown>[];
    return rows.map(toSessionRow);
  }

  /** A project's sessions whose last event is before `endedBeforeMs` (at most `limit`). */
  expiredSessions(projectId: string, endedBeforeMs: number, limit: number): ReplaySessionRow[] {
    const rows = this.db.query("SELECT * FROM replay_sessions WHERE project_id = ? AND end_ms < ? LIMIT ?").all(projectId, endedBeforeMs, limit) as Record<string, unknown>[];
    return rows.map(toSessionRow);
  }

  /** A project's sessions shorter than `shorterThanMs` with no chunk received since `quietSinceMs` (at most `limit`). */
  quietShortSessions(projectId: string, quietSinceMs: number, shorterThanMs: number, limit: number): ReplaySessionRow[] {
    const rows = this.db
      .query("SELECT * FROM replay_sessions WHERE project_id = ? AND received_ms < ? AND end_ms - start_ms < ? LIMIT ?")
      .all(projectId, quietSinceMs, shorterThanMs, limit) as Record<string, unknown>[];
    return rows.map(toSessionRow);
  }

  /** Projects that have recordings. */
  projects(): string[] {
    return (this.db.query("SELECT DISTINCT project_id FROM replay_sessions").all() as { project_id: string }[]).map((row) => row.project_id);
  }

  /** The project's sessions (any environment) recorded under these distinct ids. */
  sessionsOf(projectId: string, distinctIds: readonly string[]): ReplaySessionRow[] {
    if (distinctIds.length === 0) return [];
    // One parameter however many ids (a variable per id would pass SQLite's limit).
    const rows = this.db
      .query("SELECT * FROM replay_sessions WHERE project_id = ? AND distinct_id IN (SELECT value FROM json_each(?))")
      .all(projectId, JSON.stringify(distinctIds));
    return (rows as Record<string, unknown>[]).map(toSessionRow);
  }

  /** Forgets a session, its blocks and its chunks (their (session, seq) may come again: a new recording). */
  deleteSession(projectId: string, environment: string, sessionId: string): void {
    for (const table of ["replay_sessions", "replay_blocks", "replay_chunks"]) {
      this.db.query(`DELETE FROM ${table} WHERE project_id = ? AND environment = ? AND session_id = ?`).run(projectId, environment, sessionId);
    }
  }

  policy(projectId: string): ReplayPolicy {
    const row = this.db.query("SELECT * FROM replay_policy WHERE project_id = ?").get(projectId) as Record<string, unknown> | null;
    if (!row) return defaultReplayPolicy(projectId);
    return {
      projectId,
      sampleRate: row.sample_rate as number,
      minDurationMs: row.min_duration_ms as number,
      flagKey: row.flag_key as string | null,
      updatedAt: row.updated_at as string,
    };
  }

  setPolicy(policy: ReplayPolicy): void {
    this.db
      .query(`INSERT INTO replay_policy (project_id, sample_rate, min_duration_ms, flag_key, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(project_id) DO UPDATE SET sample_rate = excluded.sample_rate, min_duration_ms = excluded.min_duration_ms,
          flag_key = excluded.flag_key, updated_at = excluded.updated_at`)
      .run(policy.projectId, policy.sampleRate, policy.minDurationMs, policy.flagKey, policy.updatedAt);
  }

  checkpoint(): WalPosition {
    const row = this.db.query("SELECT file, offset FROM replay_log_checkpoint WHERE id = 1").get() as WalPosition | null;
    return row ?? { file: 0, offset: 0 };
  }

  setCheckpoint(position: WalPosition): void {
    this.db.query("INSERT INTO replay_log_checkpoint (id, file, offset) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET file = excluded.file, offset = excluded.offset").run(position.file, position.offset);
  }
}
