// The region's copy of flags (same region.sqlite): for each project environment the newest
// snapshot the control plane published, and the hashes of the flag secret keys that may
// download definitions for local evaluation. Snapshots are kept parsed in memory, so flag
// evaluation never reads SQLite on the request path.
import type { Database } from "bun:sqlite";

export type SnapshotCondition =
  | {
    type: "person" | "group";
    key: string;
    operator: string;
    value?: string | number | boolean | (string | number | boolean)[];
    group_type?: string;
  }
  | { type: "cohort"; cohort_id: string; operator: "in" | "not_in" };

export interface SnapshotFlag {
  /** Numeric id (PostHog's local evaluation documents carry one). */
  id: number;
  key: string;
  name: string;
  description: string | null;
  kind: "boolean" | "multivariate";
  enabled: boolean;
  payload: unknown;
  rules: { properties: SnapshotCondition[]; rollout_percentage: number | null; variant: string | null }[];
  variants: { key: string; name: string | null; rollout_percentage: number; payload: unknown }[];
  salt: string;
  /** "distinct_id" or "group:<group type>". */
  stickiness: string;
  version: number;
}

/** One environment's live flags at one version (what a publication carries). */
export interface FlagSnapshot {
  project_id: string;
  data_id: number;
  environment: string;
  version: number;
  checksum: string;
  flags: SnapshotFlag[];
  /**
   * The definitions of the property cohorts (person criteria only) its flags' cohort conditions
   * name, by cohort id: they are matched on properties (docs/cohorts.md). Absent before cohorts existed.
   */
  cohorts?: Record<string, unknown>;
}

export interface FlagSecretKeyEntry {
  id: string;
  /** sha256 hex of the secret. */
  secretHash: string;
  projectId: string;
  environment: string;
  revokedAt: string | null;
}

export const flagSchema = `
  CREATE TABLE flag_snapshots (
    project_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (project_id, environment)
  );
  CREATE TABLE flag_secret_keys (
    id TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    revoked_at TEXT
  );
`;

const snapshotKey = (projectId: string, environment: string) => `${projectId}\u0000${environment}`;

export class FlagStore {
  private readonly snapshots = new Map<string, FlagSnapshot>();

  constructor(private readonly db: Database) {
    for (const row of db.query("SELECT body FROM flag_snapshots").all() as { body: string }[]) {
      const snapshot = JSON.parse(row.body) as FlagSnapshot;
      this.snapshots.set(snapshotKey(snapshot.project_id, snapshot.environment), snapshot);
    }
  }

  /** Keeps the snapshot unless a newer (or the same) version is already here; true when kept. */
  publish(snapshot: FlagSnapshot): boolean {
    const key = snapshotKey(snapshot.project_id, snapshot.environment);
    const current = this.snapshots.get(key);
    if (current && current.version >= snapshot.version) return false;
    this.db
      .query(`INSERT INTO flag_snapshots (project_id, environment, version, body) VALUES (?, ?, ?, ?)
        ON CONFLICT(project_id, environment) DO UPDATE SET version = excluded.version, body = excluded.body`)
      .run(snapshot.project_id, snapshot.environment, snapshot.version, JSON.stringify(snapshot));
    this.snapshots.set(key, snapshot);
    return true;
  }

  /** The newest snapshot of a project environment, or null before its first publication. */
  snapshot(projectId: string, environment: string): FlagSnapshot | null {
    return this.snapshots.get(snapshotKey(projectId, environment)) ?? null;
  }

  upsertSecretKeys(keys: FlagSecretKeyEntry[]): void {
    const statement = this.db.query(`INSERT INTO flag_secret_keys (id, secret_hash, project_id, environment, revoked_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET revoked_at = excluded.revoked_at`);
    this.db.transaction(() => {
      for (const key of keys) statement.run(key.id, key.secretHash, key.projectId, key.environment, key.revokedAt);
    })();
  }

  findSecretKey(secretHash: string): FlagSecretKeyEntry | null {
    const row = this.db.query("SELECT * FROM flag_secret_keys WHERE secret_hash = ?").get(secretHash) as Record<string, string | null> | null;
    if (!row) return null;
    return { id: row.id!, secretHash: row.secret_hash!, projectId: row.project_id!, environment: row.environment!, revokedAt: row.revoked_at ?? null };
  }
}
