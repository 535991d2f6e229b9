// Cohorts in the control plane: create, list, get, update, delete. A dynamic cohort has a
// definition (checked by the engine's parser); a static one a member list kept in the region.
// Every change of a definition raises `version`, so a calculation says which definition it
// counted. A definition may name other cohorts of the project, never itself, directly or not.
import { and, asc, eq, isNull } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { conflict, notFound, validation } from "../../http/errors.ts";
import { InvalidCohortDefinitionError, parseCohortDefinition, referencedCohorts, type CohortDefinition } from "../../../engine/cohorts/definition.ts";
import type { ControlContext } from "../context.ts";
import { cohortCalculations, cohorts } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { defaultEnvironment } from "../services/projects.ts";
import { cohortsPerProjectMax, type CohortCreateInput, type CohortUpdateInput } from "./cohort-schemas.ts";
import { flagsNamingCohort } from "../flags/flag-cohorts.ts";
import { recordPublications, type PendingPublication } from "../flags/flag-publications.ts";

export type CohortRow = typeof cohorts.$inferSelect;
export type CalculationRow = typeof cohortCalculations.$inferSelect;

export const calculationDto = (row: CalculationRow) => ({
  environment: row.environment,
  status: row.status === "ok" ? ("ok" as const) : ("error" as const),
  calculated_at: row.calculatedAt,
  cohort_version: row.cohortVersion,
  error: row.error,
  size: row.size,
});

export function cohortDto(ctx: ControlContext, row: CohortRow) {
  const calculations = ctx.db.select().from(cohortCalculations).where(eq(cohortCalculations.cohortId, row.id)).orderBy(asc(cohortCalculations.environment)).all().map(calculationDto);
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    kind: row.kind,
    version: row.version,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    calculation: calculations.find((calculation) => calculation.environment === defaultEnvironment) ?? null,
    calculations,
    created_by: row.createdBy,
    definition: row.definition,
    description: row.description,
  };
}
export type CohortDtoValue = ReturnType<typeof cohortDto>;

export function liveCohorts(ctx: ControlContext, projectId: string): CohortRow[] {
  return ctx.db.select().from(cohorts).where(and(eq(cohorts.projectId, projectId), isNull(cohorts.deletedAt))).orderBy(asc(cohorts.name), asc(cohorts.id)).all();
}

export function cohortOfProject(ctx: ControlContext, access: ProjectAccess, cohortId: string): CohortRow {
  const id = requireUuid(cohortId, "cohort");
  const row = ctx.db.select().from(cohorts).where(and(eq(cohorts.id, id), eq(cohorts.projectId, access.project.id), isNull(cohorts.deletedAt))).get();
  if (!row) throw notFound("cohort");
  return row;
}

function parsedDefinition(value: unknown): CohortDefinition {
  try {
    return parseCohortDefinition(value);
  } catch (error) {
    if (!(error instanceof InvalidCohortDefinitionError)) throw error;
    const problem = error.message.slice(`${error.path || "/"}: `.length);
    throw validation(`body /definition${error.path}: ${problem}`);
  }
}

/** Every cohort a definition names must be a live cohort of the project, and none may lead back to `selfId`. */
function checkReferences(ctx: ControlContext, projectId: string, selfId: string, definition: CohortDefinition): void {
  const byId = new Map(liveCohorts(ctx, projectId).map((row) => [row.id, row]));
  for (const id of referencedCohorts(definition)) {
    if (!byId.has(id)) throw validation(`body /definition: cohort ${id} is not a cohort of this project`);
  }
  const pending = referencedCohorts(definition);
  const seen = new Set<string>();
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (id === selfId) throw validation("body /definition: a cohort cannot include itself, directly or through the cohorts it names");
    if (seen.has(id)) continue;
    seen.add(id);
    const named = byId.get(id)?.definition;
    if (named) pending.push(...referencedCohorts(named as unknown as CohortDefinition));
  }
}

/** The definition a cohort of `kind` stores: dynamic ones need one, static ones have none. */
function definitionFor(ctx: ControlContext, projectId: string, selfId: string, kind: CohortRow["kind"], given: unknown): CohortDefinition | null {
  if (kind === "static") {
    if (given != null) throw validation("body /definition: a static cohort has members, not a definition");
    return null;
  }
  if (given == null) throw validation("body /definition: a dynamic cohort needs a definition");
  const definition = parsedDefinition(given);
  checkReferences(ctx, projectId, selfId, definition);
  return definition;
}

export function listCohorts(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "cohorts:read");
  return { cohorts: liveCohorts(ctx, access.project.id).map((row) => cohortDto(ctx, row)) };
}

export function getCohort(ctx: ControlContext, access: ProjectAccess, cohortId: string) {
  requireScope(access, "cohorts:read");
  return cohortDto(ctx, cohortOfProject(ctx, access, cohortId));
}

const plan = (access: ProjectAccess, action: string, targetId: string, before: unknown, after: unknown, apply: () => CohortDtoValue): WritePlan<CohortDtoValue> => ({
  action, targetType: "cohort", targetId, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

export function planCreateCohort(ctx: ControlContext, access: ProjectAccess, input: CohortCreateInput): WritePlan<CohortDtoValue> {
  requireScope(access, "cohorts:write");
  if (liveCohorts(ctx, access.project.id).length >= cohortsPerProjectMax) throw conflict(`the project already has ${cohortsPerProjectMax} cohorts, the most it can hold; delete some first`);
  const id = newId();
  const definition = definitionFor(ctx, access.project.id, id, input.kind, input.definition);
  const now = nowIso();
  const row: CohortRow = {
    id, projectId: access.project.id, name: input.name.trim(), description: input.description ?? null, kind: input.kind,
    definition: definition as unknown as Record<string, unknown> | null, version: 1, createdBy: access.principal.user.id, createdAt: now, updatedAt: now, deletedAt: null,
  };
  const after = cohortDto(ctx, row);
  return plan(access, "cohort.create", row.id, null, after, () => {
    ctx.db.insert(cohorts).values(row).run();
    return after;
  });
}

/** What a cohort update gives back: the cohort, and the flag publications to push once it is committed. */
export interface CohortUpdateResult {
  cohort: CohortDtoValue;
  publications: PendingPublication[];
}

/** A new definition republishes every environment whose flags name the cohort (property cohorts travel with the flags). */
export function planUpdateCohort(ctx: ControlContext, access: ProjectAccess, cohortId: string, input: CohortUpdateInput): WritePlan<CohortUpdateResult> {
  requireScope(access, "cohorts:write");
  const row = cohortOfProject(ctx, access, cohortId);
  const changes: Partial<CohortRow> = { updatedAt: nowIso() };
  if (input.name != null) changes.name = input.name.trim();
  if (input.description !== undefined) changes.description = input.description;
  if (input.definition !== undefined) {
    const definition = definitionFor(ctx, access.project.id, row.id, row.kind, input.definition) as unknown as Record<string, unknown> | null;
    if (JSON.stringify(definition) !== JSON.stringify(row.definition)) Object.assign(changes, { definition, version: row.version + 1 });
  }
  const updated = { ...row, ...changes };
  const republish = changes.version === undefined ? [] : [...new Set(flagsNamingCohort(ctx, row.projectId, row.id).flatMap((flag) => flag.environments))].sort();
  // The update leaves the calculations as they were, so the cohort as answered is the one previewed.
  const after = cohortDto(ctx, updated);
  return {
    action: "cohort.update", targetType: "cohort", targetId: row.id, orgId: access.org.id, projectId: access.project.id,
    before: cohortDto(ctx, row), after,
    apply: () => {
      ctx.db.update(cohorts).set(changes).where(eq(cohorts.id, row.id)).run();
      return { cohort: after, publications: recordPublications(ctx, access.project, republish) };
    },
  };
}

/** The live cohorts whose definitions name this one (they would stop calculating without it). */
function referrers(ctx: ControlContext, row: CohortRow): CohortRow[] {
  return liveCohorts(ctx, row.projectId).filter((other) => other.definition && referencedCohorts(other.definition as unknown as CohortDefinition).includes(row.id));
}

export function planDeleteCohort(ctx: ControlContext, access: ProjectAccess, cohortId: string): WritePlan<CohortDtoValue> {
  requireScope(access, "cohorts:write");
  const row = cohortOfProject(ctx, access, cohortId);
  const using = referrers(ctx, row);
  if (using.length > 0) throw conflict(`cohort "${row.name}" is part of ${using.map((other) => `"${other.name}"`).join(", ")}; change those first`);
  const flagged = flagsNamingCohort(ctx, row.projectId, row.id);
  if (flagged.length > 0) throw conflict(`cohort "${row.name}" is named by flag${flagged.length > 1 ? "s" : ""} ${flagged.map((flag) => flag.key).join(", ")}; change those first`);
  const before = cohortDto(ctx, row);
  const now = nowIso();
  return plan(access, "cohort.delete", row.id, before, null, () => {
    ctx.db.update(cohorts).set({ deletedAt: now, updatedAt: now }).where(eq(cohorts.id, row.id)).run();
    return before;
  });
}

