// Calculating a cohort: the region computes and stores its membership in one environment and
// reports the size; the control plane records that (or the region's refusal) per environment.
// Cohorts a definition names are calculated first when their membership there is missing or
// counts an older definition, so a calculation never reads a stale dependency.
import { and, eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { unavailable } from "../../http/errors.ts";
import { RegionRefusal } from "../../region/region-link.ts";
import type { RegionCode } from "../../config.ts";
import { referencedCohorts, type CohortDefinition } from "../../../engine/cohorts/definition.ts";
import type { ControlContext } from "../context.ts";
import type { ProjectRow } from "../access.ts";
import { cohortCalculations, cohorts } from "../db/schema.ts";
import type { CalculationRow, CohortRow } from "./cohorts.ts";

export function calculationOf(ctx: ControlContext, cohortId: string, environment: string): CalculationRow | undefined {
  return ctx.db.select().from(cohortCalculations).where(and(eq(cohortCalculations.cohortId, cohortId), eq(cohortCalculations.environment, environment))).get();
}

/** Whether the environment's membership counts the cohort's current definition. */
export const isCurrent = (row: CohortRow, calculation: CalculationRow | undefined) => calculation?.status === "ok" && calculation.cohortVersion === row.version;

function record(ctx: ControlContext, row: CalculationRow): CalculationRow {
  ctx.db.insert(cohortCalculations).values(row).onConflictDoUpdate({
    target: [cohortCalculations.cohortId, cohortCalculations.environment],
    set: { status: row.status, calculatedAt: row.calculatedAt, cohortVersion: row.cohortVersion, size: row.size, error: row.error },
  }).run();
  return row;
}

/**
 * Asks the project's region to calculate `cohort` in `environment` (its stale dependencies
 * first) and records the result. A region that refuses (a definition it cannot evaluate) is
 * recorded as an error; one that cannot be reached is a 503 and nothing is recorded.
 */
export async function calculateCohort(ctx: ControlContext, project: ProjectRow, cohort: CohortRow, environment: string, visiting = new Set<string>()): Promise<CalculationRow> {
  visiting.add(cohort.id);
  for (const id of cohort.definition ? referencedCohorts(cohort.definition as unknown as CohortDefinition) : []) {
    const dependency = ctx.db.select().from(cohorts).where(eq(cohorts.id, id)).get();
    if (!dependency || dependency.deletedAt !== null || visiting.has(id) || isCurrent(dependency, calculationOf(ctx, id, environment))) continue;
    await calculateCohort(ctx, project, dependency, environment, visiting);
  }
  const link = ctx.regions.get(project.region as RegionCode);
  if (!link) throw unavailable(`region ${project.region} is not configured`);
  try {
    const result = await link.materializeCohort({
      project_id: project.id, environment, cohort_id: cohort.id, kind: cohort.kind, version: cohort.version, definition: cohort.definition as unknown as CohortDefinition | null,
    });
    return record(ctx, { cohortId: cohort.id, environment, status: "ok", calculatedAt: result.calculated_at, cohortVersion: result.version, size: result.size, error: null });
  } catch (error) {
    if (error instanceof RegionRefusal && error.status < 500) {
      return record(ctx, { cohortId: cohort.id, environment, status: "error", calculatedAt: nowIso(), cohortVersion: cohort.version, size: null, error: error.message });
    }
    throw unavailable(`region ${project.region} could not calculate the cohort: ${error instanceof Error ? error.message : String(error)}`);
  }
}
