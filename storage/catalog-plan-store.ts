// The tracking plans the control plane pushes to this region (docs/catalog.md, "Plan
// violations"), one row per project in the region's SQLite file: the catalog version, whether
// violations become ingestion warnings, and the planned events with their properties as JSON.
// A push older than the stored plan is ignored, so a late or repeated push never rolls the plan
// back. The table is created here, if missing, rather than by a schema version of
// region-store.ts: nothing else refers to it.
import type { Database, Statement } from "bun:sqlite";

export type PlannedPropertyType = "string" | "number" | "boolean" | "datetime" | "object" | "array" | "any";

export interface PlannedProperty {
  name: string;
  type: PlannedPropertyType;
  required: boolean;
  /** The only values a string property may take; null: any. */
  enumValues: string[] | null;
}

export interface PlannedEvent {
  name: string;
  /** Every catalog status but `unplanned`: those events are not part of the plan. */
  status: "planned" | "implemented" | "verified" | "deprecated";
  properties: PlannedProperty[];
}

export interface CatalogPlan {
  projectId: string;
  catalogVersion: number;
  warnOnViolations: boolean;
  events: PlannedEvent[];
  /** Property names the catalog marks as personal data (masked in examples and person answers). */
  piiProperties: string[];
}

const schema = `
CREATE TABLE IF NOT EXISTS catalog_plans (
  project_id TEXT PRIMARY KEY,
  catalog_version INTEGER NOT NULL,
  plan TEXT NOT NULL
) WITHOUT ROWID;
`;

export class CatalogPlanStore {
  private readonly statements: Record<"put" | "all", Statement>;

  constructor(db: Database) {
    db.exec(schema);
    this.statements = {
      // An equal version is taken: a settings change (warnings on or off) keeps the version.
      put: db.query(`INSERT INTO catalog_plans (project_id, catalog_version, plan) VALUES ($projectId, $catalogVersion, $plan)
        ON CONFLICT DO UPDATE SET catalog_version = excluded.catalog_version, plan = excluded.plan
        WHERE excluded.catalog_version >= catalog_plans.catalog_version`),
      all: db.query("SELECT plan FROM catalog_plans"),
    };
  }

  /** Keeps `plan` unless a newer version is stored; true when it was kept. */
  put(plan: CatalogPlan): boolean {
    return this.statements.put.run({ projectId: plan.projectId, catalogVersion: plan.catalogVersion, plan: JSON.stringify(plan) }).changes > 0;
  }

  all(): CatalogPlan[] {
    return (this.statements.all.all() as { plan: string }[]).map((row) => JSON.parse(row.plan) as CatalogPlan);
  }
}
