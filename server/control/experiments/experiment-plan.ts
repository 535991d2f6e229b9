// POST …/experiments/plan: sample size per variant and days to reach it, for a proportion or
// a mean metric (engine/stats/plan.ts; docs/experiment-statistics.md). `variants` 0 or absent
// means the default two arms; `method` does not change the plan (both methods are planned as
// a two-sided test at alpha).
import { planExperiment, StatsInputError, variantsDefault } from "../../../engine/stats/index.ts";
import { validation } from "../../http/errors.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { ExperimentPlanInput } from "./experiment-schemas.ts";

export function experimentPlan(access: ProjectAccess, input: ExperimentPlanInput) {
  requireScope(access, "experiments:read");
  try {
    return planExperiment({
      metric: input.metric,
      mde: input.mde,
      mde_kind: input.mde_kind,
      alpha: input.alpha,
      power: input.power,
      variants: input.variants === undefined || input.variants === 0 ? variantsDefault : input.variants,
      daily_units: input.daily_units ?? null,
      control_units: input.control_units ?? null,
    });
  } catch (error) {
    if (error instanceof StatsInputError) throw validation(error.message);
    throw error;
  }
}
