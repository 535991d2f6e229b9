// Cohort memberships in the region's SQLite file: per project, environment and cohort, the
// members' person indexes (cohort-members.ts), how many there are, the cohort version they were
// calculated for and when. A dynamic cohort's row is replaced by each calculation; a static
// cohort's members are edited in place. Persons are the project's, so a membership of one
// environment names persons of the project; indexes are those persons had when stored (readers
// map them through the merges since). The table is created here, if missing, rather than by a
// schema version of region-store.ts: nothing else refers to it.
import type { Database, Statement } from "bun:sqlite";
import { decodeMembers, encodeMembers } from "./cohort-members.ts";

export type CohortKind = "dynamic" | "static";

/** A stored membership without its members. */
export interface CohortSummary {
  cohortId: string;
  kind: CohortKind;
  /** The cohort version (the control plane's) it was last calculated for; 0 for a static cohort never calculated. */
  version: number;
  size: number;
  /** Epoch ms. */
  calculatedAt: number;
}

export interface CohortMembership extends CohortSummary {
  /** Sorted, distinct person indexes. */
  members: Int32Array;
}

const schema = `
CREATE TABLE IF NOT EXISTS cohort_memberships (
  project_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  cohort_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  version INTEGER NOT NULL,
  size INTEGER NOT NULL,
  calculated_at INTEGER NOT NULL,
  members BLOB NOT NULL,
  PRIMARY KEY (project_id, environment, cohort_id)
) WITHOUT ROWID;
`;

interface SummaryRow {
  cohort_id: string;
  kind: CohortKind;
  version: number;
  size: number;
  calculated_at: number;
}

const toSummary = (row: SummaryRow): CohortSummary => ({
  cohortId: row.cohort_id, kind: row.kind, version: row.version, size: row.size, calculatedAt: row.calculated_at,
});

export class CohortStore {
  private readonly statements: Record<"summary" | "membership" | "put" | "ofProject" | "setMembers", Statement>;

  constructor(db: Database) {
    db.exec(schema);
    const where = "WHERE project_id = $projectId AND environment = $environment AND cohort_id = $cohortId";
    this.statements = {
      summary: db.query(`SELECT cohort_id, kind, version, size, calculated_at FROM cohort_memberships ${where}`),
      membership: db.query(`SELECT cohort_id, kind, version, size, calculated_at, members FROM cohort_memberships ${where}`),
      put: db.query(`INSERT INTO cohort_memberships (project_id, environment, cohort_id, kind, version, size, calculated_at, members)
        VALUES ($projectId, $environment, $cohortId, $kind, $version, $size, $calculatedAt, $members)
        ON CONFLICT DO UPDATE SET kind = excluded.kind, version = excluded.version, size = excluded.size,
          calculated_at = excluded.calculated_at, members = excluded.members`),
      ofProject: db.query("SELECT environment, cohort_id, members FROM cohort_memberships WHERE project_id = ?"),
      setMembers: db.query(`UPDATE cohort_memberships SET members = $members, size = $size
        WHERE project_id = $projectId AND environment = $environment AND cohort_id = $cohortId`),
    };
  }

  /** What is stored for a cohort in an environment, without reading its members. */
  summary(projectId: string, environment: string, cohortId: string): CohortSummary | null {
    const row = this.statements.summary.get({ projectId, environment, cohortId }) as SummaryRow | null;
    return row ? toSummary(row) : null;
  }

  membership(projectId: string, environment: string, cohortId: string): CohortMembership | null {
    const row = this.statements.membership.get({ projectId, environment, cohortId }) as (SummaryRow & { members: Uint8Array }) | null;
    return row ? { ...toSummary(row), members: decodeMembers(row.members) } : null;
  }

  /** Stores (or replaces) a membership; `size` is the number of members. */
  put(projectId: string, environment: string, membership: Omit<CohortMembership, "size">): CohortSummary {
    const { cohortId, kind, version, calculatedAt, members } = membership;
    this.statements.put.run({ projectId, environment, cohortId, kind, version, size: members.length, calculatedAt, members: encodeMembers(members) });
    return { cohortId, kind, version, size: members.length, calculatedAt };
  }

  /** Takes these person indexes out of every membership of the project (an erasure); how many memberships they left. */
  removeMembers(projectId: string, indexes: ReadonlySet<number>): number {
    let removed = 0;
    for (const row of this.statements.ofProject.all(projectId) as { environment: string; cohort_id: string; members: Uint8Array }[]) {
      const members = decodeMembers(row.members);
      const kept = members.filter((member) => !indexes.has(member));
      if (kept.length === members.length) continue;
      removed += members.length - kept.length;
      this.statements.setMembers.run({ projectId, environment: row.environment, cohortId: row.cohort_id, members: encodeMembers(kept), size: kept.length });
    }
    return removed;
  }
}
