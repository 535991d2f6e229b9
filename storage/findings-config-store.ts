// The region's copy of each project's findings destinations, rules and the metrics the rules
// name (same region.sqlite), pushed by the control plane after each change and, at start-up or
// after a failed push, as the whole set (`replaceAll`, which also drops the projects whose
// findings were removed while the region was unreachable). The evaluator and the delivery read
// it; secrets are here because the region delivers. The table is created here, if missing, like
// the integrations' copy: nothing else refers to it.
import type { Database, Statement } from "bun:sqlite";
import type { RegionFindingsProject } from "../server/findings/findings-types.ts";

const schema = `
CREATE TABLE IF NOT EXISTS findings_config (
  project_id TEXT PRIMARY KEY,
  config TEXT NOT NULL,
  synced_at TEXT NOT NULL
) WITHOUT ROWID;
`;

export class FindingsConfigStore {
  private readonly upsertStatement: Statement;
  private readonly getStatement: Statement<{ config: string }, [string]>;

  constructor(private readonly db: Database) {
    db.exec(schema);
    this.upsertStatement = db.query(
      "INSERT INTO findings_config (project_id, config, synced_at) VALUES (?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET config = excluded.config, synced_at = excluded.synced_at",
    );
    this.getStatement = db.query("SELECT config FROM findings_config WHERE project_id = ?");
  }

  /** Stores these projects' latest findings configuration. */
  upsert(projects: RegionFindingsProject[]): void {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const project of projects) this.upsertStatement.run(project.projectId, JSON.stringify(project), now);
    })();
  }

  /** These are all the projects with findings configuration in the region: any other is removed. */
  replaceAll(projects: RegionFindingsProject[]): void {
    this.db.transaction(() => {
      this.db.run("DELETE FROM findings_config");
      this.upsert(projects);
    })();
  }

  /** Removes a project's configuration (its project was deleted). */
  delete(projectId: string): void {
    this.db.run("DELETE FROM findings_config WHERE project_id = ?", [projectId]);
  }

  project(projectId: string): RegionFindingsProject | null {
    const row = this.getStatement.get(projectId);
    return row ? (JSON.parse(row.config) as RegionFindingsProject) : null;
  }

  all(): RegionFindingsProject[] {
    return (this.db.query("SELECT config FROM findings_config ORDER BY project_id").all() as { config: string }[]).map(
      (row) => JSON.parse(row.config) as RegionFindingsProject,
    );
  }
}
