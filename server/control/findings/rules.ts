// Findings rules of a project (spec 1: RuleDto and its requests; docs/findings.md): what the
// region evaluates (target, cadence, thresholds) and where what it raises goes (destination_ids,
// min_severity, daily_cap). Every committed change is pushed to the project's region
// (findings-sync.ts).
import { and, asc, count, eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { notFound, validation } from "../../http/errors.ts";
import { defaultThresholds } from "../../findings/findings-types.ts";
import type { ControlContext } from "../context.ts";
import { findingsRules } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { checkFindingsName } from "./destination-checks.ts";
import { rulesPerProjectMax } from "./findings-limits.ts";
import { requireRegionServed } from "./findings-sync.ts";
import { checkDailyCap, checkDestinationIds, checkTarget, checkThresholds } from "./rule-checks.ts";
import type { RuleCreateInput, RuleUpdateInput } from "./findings-schemas.ts";

export type RuleRow = typeof findingsRules.$inferSelect;

export const ruleDto = (row: RuleRow) => ({
  id: row.id,
  project_id: row.projectId,
  name: row.name,
  cadence: row.cadence,
  enabled: row.enabled,
  min_severity: row.minSeverity,
  destination_ids: row.destinationIds,
  target: row.target,
  thresholds: row.thresholds,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  created_by: row.createdBy,
  daily_cap: row.dailyCap,
});

export function projectRules(ctx: ControlContext, projectId: string): RuleRow[] {
  return ctx.db.select().from(findingsRules).where(eq(findingsRules.projectId, projectId))
    .orderBy(asc(findingsRules.createdAt), asc(findingsRules.id)).all();
}

export function listRules(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "alerts:read");
  return { rules: projectRules(ctx, access.project.id).map(ruleDto) };
}

function ruleOfProject(ctx: ControlContext, access: ProjectAccess, ruleId: string): RuleRow {
  const id = requireUuid(ruleId, "findings rule");
  const row = ctx.db.select().from(findingsRules).where(and(eq(findingsRules.id, id), eq(findingsRules.projectId, access.project.id))).get();
  if (!row) throw notFound("findings rule");
  return row;
}

const plan = (access: ProjectAccess, action: string, targetId: string, before: unknown, after: unknown, apply: () => RuleRow): WritePlan<RuleRow> => ({
  action, targetType: "findings_rule", targetId, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

export function planCreateRule(ctx: ControlContext, access: ProjectAccess, input: RuleCreateInput): WritePlan<RuleRow> {
  requireScope(access, "alerts:write");
  requireRegionServed(ctx, access.project);
  const [{ value: existing }] = ctx.db.select({ value: count() }).from(findingsRules).where(eq(findingsRules.projectId, access.project.id)).all() as [{ value: number }];
  if (existing >= rulesPerProjectMax) throw validation(`a project has at most ${rulesPerProjectMax} findings rules`);
  const now = nowIso();
  const row: RuleRow = {
    id: newId(),
    projectId: access.project.id,
    name: checkFindingsName(input.name),
    cadence: input.cadence ?? "daily",
    enabled: input.enabled ?? true,
    minSeverity: input.min_severity ?? "warning",
    destinationIds: checkDestinationIds(ctx, access.project.id, input.destination_ids ?? []),
    target: checkTarget(ctx, access.project.id, input.target),
    thresholds: checkThresholds(defaultThresholds, input.thresholds),
    dailyCap: checkDailyCap(input.daily_cap ?? null),
    createdAt: now,
    updatedAt: now,
    createdBy: access.principal.user.id,
  };
  return plan(access, "findings_rule.create", row.id, null, ruleDto(row), () => {
    ctx.db.insert(findingsRules).values(row).run();
    return row;
  });
}

/** The fields given change; `thresholds` fields merge over the rule's current thresholds. */
export function planUpdateRule(ctx: ControlContext, access: ProjectAccess, ruleId: string, input: RuleUpdateInput): WritePlan<RuleRow> {
  const row = ruleOfProject(ctx, access, ruleId);
  requireScope(access, "alerts:write");
  const after: RuleRow = {
    ...row,
    name: input.name === undefined ? row.name : checkFindingsName(input.name),
    cadence: input.cadence ?? row.cadence,
    enabled: input.enabled ?? row.enabled,
    minSeverity: input.min_severity ?? row.minSeverity,
    destinationIds: input.destination_ids === undefined ? row.destinationIds : checkDestinationIds(ctx, access.project.id, input.destination_ids),
    target: input.target === undefined ? row.target : checkTarget(ctx, access.project.id, input.target),
    thresholds: input.thresholds === undefined ? row.thresholds : checkThresholds(row.thresholds, input.thresholds),
    dailyCap: input.daily_cap === undefined ? row.dailyCap : checkDailyCap(input.daily_cap),
    updatedAt: nowIso(),
  };
  return plan(access, "findings_rule.update", row.id, ruleDto(row), ruleDto(after), () => {
    const { id: _id, projectId: _projectId, createdAt: _createdAt, createdBy: _createdBy, ...changed } = after;
    ctx.db.update(findingsRules).set(changed).where(eq(findingsRules.id, row.id)).run();
    return after;
  });
}

export function planDeleteRule(ctx: ControlContext, access: ProjectAccess, ruleId: string): WritePlan<RuleRow> {
  const row = ruleOfProject(ctx, access, ruleId);
  requireScope(access, "alerts:write");
  return plan(access, "findings_rule.delete", row.id, ruleDto(row), null, () => {
    ctx.db.delete(findingsRules).where(eq(findingsRules.id, row.id)).run();
    return row;
  });
}
