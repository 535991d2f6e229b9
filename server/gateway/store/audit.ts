// The gateway's audit trail: who did what to which project, for the project's own trail
// (GET /v1/audit, operators' actions on it included) and the operators' (GET /v1/admin/audit).
import type { SQL } from "bun";

export interface AuditEntry {
  id: string;
  projectId: string | null;
  /** `root`, `key:<key id>` or `system` (the supervisor). */
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
  at: number;
}

interface AuditRow {
  id: string;
  project_id: string | null;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
  at: number | string;
}

const entry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  projectId: row.project_id,
  actor: row.actor,
  action: row.action,
  target: row.target,
  detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
  at: Number(row.at),
});

export class AuditStore {
  constructor(private readonly sql: SQL) {}

  async record(input: Omit<AuditEntry, "id">): Promise<void> {
    await this.sql`
      INSERT INTO gateway_audit (id, project_id, actor, action, target, detail, at)
      VALUES (${Bun.randomUUIDv7()}, ${input.projectId}, ${input.actor}, ${input.action}, ${input.target}, ${input.detail === null ? null : JSON.stringify(input.detail)}, ${input.at})`;
  }

  /** Newest first; `projectId` null lists every project's entries and the deployment's own. */
  async list(projectId: string | null, limit: number, before: string | null): Promise<AuditEntry[]> {
    const rows = await this.sql`
      SELECT * FROM gateway_audit WHERE (CAST(${projectId} AS TEXT) IS NULL OR project_id = ${projectId}) AND (CAST(${before} AS TEXT) IS NULL OR id < ${before})
      ORDER BY id DESC LIMIT ${limit}`;
    return (rows as AuditRow[]).map(entry);
  }
}
