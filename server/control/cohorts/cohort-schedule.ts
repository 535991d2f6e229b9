// Dynamic cohorts are recalculated on a schedule: every COHORT_RECALCULATE_MINUTES (default
// 60; 0 turns it off) in the default environment and in every environment they were calculated
// in before, and at once when their definition changed since their last calculation. A region
// that cannot be reached is tried again at the next check; nothing is recorded for it.
import { and, eq, isNull } from "drizzle-orm";
import { minuteMs } from "../../clock.ts";
import { ApiError } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { cohortCalculations, cohorts, projects } from "../db/schema.ts";
import { defaultEnvironment } from "../services/projects.ts";
import { calculateCohort, calculationOf } from "./cohort-calculation.ts";

/** How often the schedule looks for cohorts that are due. */
export const cohortScheduleCheckMs = minuteMs;

/** Recalculates every dynamic cohort that is due at `now`; answers how many calculations ran. */
export async function recalculateDueCohorts(ctx: ControlContext, now = Date.now()): Promise<number> {
  const intervalMs = ctx.config.cohortRecalculateMinutes * minuteMs;
  if (intervalMs === 0) return 0;
  const due = ctx.db.select({ cohort: cohorts, project: projects }).from(cohorts).innerJoin(projects, eq(projects.id, cohorts.projectId))
    .where(and(eq(cohorts.kind, "dynamic"), isNull(cohorts.deletedAt), isNull(projects.deletedAt))).all();
  let ran = 0;
  for (const { cohort, project } of due) {
    const calculated = ctx.db.select({ environment: cohortCalculations.environment }).from(cohortCalculations).where(eq(cohortCalculations.cohortId, cohort.id)).all();
    const environments = new Set([defaultEnvironment, ...calculated.map((row) => row.environment)]);
    for (const environment of environments) {
      // Re-read: calculating a cohort first calculates the cohorts it names.
      const last = calculationOf(ctx, cohort.id, environment);
      const stale = !last || last.cohortVersion !== cohort.version || Date.parse(last.calculatedAt) <= now - intervalMs;
      if (!stale) continue;
      try {
        await calculateCohort(ctx, project, cohort, environment);
        ran++;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        console.warn(`cohort schedule: ${error.message}`);
      }
    }
  }
  return ran;
}

/** Starts the schedule; the returned function stops it. */
export function startCohortSchedule(ctx: ControlContext): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    recalculateDueCohorts(ctx).catch((error) => console.error("cohort schedule failed:", error)).finally(() => (running = false));
  }, cohortScheduleCheckMs);
  return () => clearInterval(timer);
}
