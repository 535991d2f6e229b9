// The region's copy of the project's revenue integrations (same region.sqlite): what the
// `/wh/{provider}/{token}` ingest route needs to find an integration by its path token and
// verify a notification (the secret included), without asking the control plane. The control
// plane pushes each change (PUT /internal/integrations, DELETE /internal/integrations/{id}) and,
// at start-up and after a failed push, the whole set of the region's integrations (`replaceAll`),
// which also removes the ones deleted while the region was unreachable. The table is created
// here, if missing, rather than by a schema version of region-store.ts: nothing else refers to it.
import type { Database, Statement } from "bun:sqlite";

export interface RegionIntegration {
  id: string;
  /** The path token of the webhook URL (unique). */
  token: string;
  projectId: string;
  /** The project's numeric id in the data plane. */
  dataId: number;
  provider: string;
  status: "active" | "disabled";
  secret: string | null;
  config: Record<string, unknown>;
  /** Events older than this many days are refused (the project's retention). */
  retentionDays: number;
}

const schema = `
CREATE TABLE IF NOT EXISTS revenue_integrations (
  id TEXT PRIMARY KEY,
  token TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL,
  data_id INTEGER NOT NULL,
  provider TEXT NOT NULL,
  status TEXT NOT NULL,
  secret TEXT,
  config TEXT NOT NULL,
  retention_days INTEGER NOT NULL,
  synced_at TEXT NOT NULL
) WITHOUT ROWID;
`;

interface Row {
  id: string;
  token: string;
  project_id: string;
  data_id: number;
  provider: string;
  status: string;
  secret: string | null;
  config: string;
  retention_days: number;
}

const fromRow = (row: Row): RegionIntegration => ({
  id: row.id,
  token: row.token,
  projectId: row.project_id,
  dataId: row.data_id,
  provider: row.provider,
  status: row.status === "active" ? "active" : "disabled",
  secret: row.secret,
  config: JSON.parse(row.config) as Record<string, unknown>,
  retentionDays: row.retention_days,
});

export class IntegrationStore {
  private readonly statements: Record<"upsert" | "deleteOne" | "deleteToken" | "byToken" | "ids", Statement>;

  constructor(private readonly db: Database) {
    db.exec(schema);
    this.statements = {
      upsert: db.query(`INSERT INTO revenue_integrations (id, token, project_id, data_id, provider, status, secret, config, retention_days, synced_at)
        VALUES ($id, $token, $projectId, $dataId, $provider, $status, $secret, $config, $retentionDays, $syncedAt)
        ON CONFLICT(id) DO UPDATE SET token = excluded.token, status = excluded.status, secret = excluded.secret, config = excluded.config,
          data_id = excluded.data_id, retention_days = excluded.retention_days, synced_at = excluded.synced_at`),
      deleteOne: db.query("DELETE FROM revenue_integrations WHERE id = ?"),
      // A token is unique: another integration holding it here is a stale copy (its own push is on its way).
      deleteToken: db.query("DELETE FROM revenue_integrations WHERE token = $token AND id <> $id"),
      byToken: db.query("SELECT * FROM revenue_integrations WHERE token = ?"),
      ids: db.query("SELECT id FROM revenue_integrations"),
    };
  }

  /** Inserts or replaces each integration (idempotent): a rotated token replaces the old one at once. */
  upsert(integrations: readonly RegionIntegration[]): void {
    const syncedAt = new Date().toISOString();
    this.db.transaction(() => {
      for (const entry of integrations) {
        this.statements.deleteToken.run({ token: entry.token, id: entry.id });
        this.statements.upsert.run({
          id: entry.id,
          token: entry.token,
          projectId: entry.projectId,
          dataId: entry.dataId,
          provider: entry.provider,
          status: entry.status,
          secret: entry.secret,
          config: JSON.stringify(entry.config),
          retentionDays: entry.retentionDays,
          syncedAt,
        });
      }
    })();
  }

  /** Removes an integration; true when it was here. */
  delete(id: string): boolean {
    return this.statements.deleteOne.run(id).changes > 0;
  }

  /** Makes the table hold exactly `integrations` (the control plane's whole set for this region). */
  replaceAll(integrations: readonly RegionIntegration[]): void {
    const kept = new Set(integrations.map((entry) => entry.id));
    this.db.transaction(() => {
      for (const { id } of this.statements.ids.all() as { id: string }[]) if (!kept.has(id)) this.statements.deleteOne.run(id);
      this.upsert(integrations);
    })();
  }

  findByToken(token: string): RegionIntegration | null {
    const row = this.statements.byToken.get(token) as Row | null;
    return row ? fromRow(row) : null;
  }
}
