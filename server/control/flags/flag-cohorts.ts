// Flags and the cohorts their rules name: a condition may only name a live cohort of the
// flag's project (400 otherwise), a cohort a flag names cannot be deleted (409), and a change
// of a named cohort's definition republishes the environments whose flags name it, because
// property cohorts travel inside the flag definitions SDKs download (docs/cohorts.md).
import { and, eq, inArray, isNull } from "drizzle-orm";
import { validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { cohorts, flagEnvironments, flags } from "../db/schema.ts";
import type { FlagConfig } from "./flag-config.ts";

const namedCohorts = (rules: FlagConfig["rules"]): string[] =>
  rules.flatMap((rule) => (rule.properties ?? []).flatMap((condition) => (condition.type === "cohort" && condition.cohort_id ? [condition.cohort_id] : [])));

/** Every cohort the rules name must be a live cohort of the project. */
export function checkNamedCohorts(ctx: ControlContext, projectId: string, rules: FlagConfig["rules"]): void {
  const named = [...new Set(namedCohorts(rules))];
  if (named.length === 0) return;
  const found = new Set(ctx.db.select({ id: cohorts.id }).from(cohorts)
    .where(and(eq(cohorts.projectId, projectId), inArray(cohorts.id, named), isNull(cohorts.deletedAt))).all().map((row) => row.id));
  rules.forEach((rule, r) => (rule.properties ?? []).forEach((condition, c) => {
    if (condition.type === "cohort" && condition.cohort_id && !found.has(condition.cohort_id)) {
      throw validation(`rules[${r}].properties[${c}]: cohort ${condition.cohort_id} is not a cohort of this project`);
    }
  }));
}

/** The live flags whose configuration in some environment names the cohort, with those environments. */
export function flagsNamingCohort(ctx: ControlContext, projectId: string, cohortId: string): { key: string; environments: string[] }[] {
  const rows = ctx.db.select({ key: flags.key, environment: flagEnvironments.environment, rules: flagEnvironments.rules }).from(flagEnvironments)
    .innerJoin(flags, eq(flags.id, flagEnvironments.flagId)).where(and(eq(flags.projectId, projectId), isNull(flags.archivedAt))).all();
  const byKey = new Map<string, string[]>();
  for (const row of rows) {
    if (!namedCohorts(row.rules as FlagConfig["rules"]).includes(cohortId)) continue;
    byKey.set(row.key, [...(byKey.get(row.key) ?? []), row.environment]);
  }
  return [...byKey].map(([key, environments]) => ({ key, environments })).sort((a, b) => a.key.localeCompare(b.key));
}
