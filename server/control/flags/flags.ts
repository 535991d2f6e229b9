// Feature flags in the control plane: create, list, get, update, archive, and each
// environment's configuration. Every write is a WritePlan (audited, previewable as a dry run)
// whose transaction also records a publication of the environments it changed; the caller
// pushes those to the region once the write is committed (flag-publications.ts).
import { and, asc, eq, isNull, max } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { conflict, notFound } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { experiments, flagEnvironments, flags } from "../db/schema.ts";
import { projectEnvironments } from "../dto.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type Principal, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { checkConfig, distinctIdStickiness, everyoneRule, normalizeRules, normalizeVariants, type FlagConfig, type FlagKind } from "./flag-config.ts";
import type { FlagCreateInput, FlagEnvironmentUpdateInput, FlagUpdateInput } from "./flag-schemas.ts";
import { pushPublications, recordPublications, type PendingPublication } from "./flag-publications.ts";
import { recordSystemAnnotation } from "../annotations/system-annotations.ts";
import { checkNamedCohorts } from "./flag-cohorts.ts";

export type FlagRow = typeof flags.$inferSelect;
export type FlagEnvironmentRow = typeof flagEnvironments.$inferSelect;

/** The environment whose live configuration needs the `flags.production` scope. */
export const productionEnvironment = "production";

/** What a flag write gives back: the flag as it now is, and the publications to push. */
export interface FlagWriteResult {
  flag: ReturnType<typeof flagDto>;
  publications: PendingPublication[];
}

const userOf = (principal: Principal) => principal.user.id;

export const environmentConfigDto = (row: FlagEnvironmentRow) => ({
  environment: row.environment,
  enabled: row.enabled,
  payload: row.payload ?? null,
  rules: row.rules,
  salt: row.salt,
  stickiness: row.stickiness,
  variants: row.variants,
  version: row.version,
  updated_at: row.updatedAt,
  updated_by: row.updatedBy,
});

export function flagDto(flag: FlagRow, configs: FlagEnvironmentRow[]) {
  return {
    id: flag.id,
    project_id: flag.projectId,
    key: flag.key,
    name: flag.name,
    kind: flag.kind,
    tags: flag.tags,
    environments: Object.fromEntries(configs.map((row) => [row.environment, environmentConfigDto(row)])),
    created_at: flag.createdAt,
    updated_at: flag.updatedAt,
    archived_at: flag.archivedAt,
    created_by: flag.createdBy,
    description: flag.description,
    experiment_id: flag.experimentId,
    owner_id: flag.ownerId,
  };
}

export const configOf = (row: FlagEnvironmentRow): FlagConfig => ({
  enabled: row.enabled,
  payload: row.payload ?? null,
  rules: row.rules as FlagConfig["rules"],
  salt: row.salt,
  stickiness: row.stickiness,
  variants: row.variants as FlagConfig["variants"],
});

export function flagConfigs(ctx: ControlContext, flagId: string): FlagEnvironmentRow[] {
  return ctx.db.select().from(flagEnvironments).where(eq(flagEnvironments.flagId, flagId)).orderBy(asc(flagEnvironments.environment)).all();
}

function flagOfProject(ctx: ControlContext, access: ProjectAccess, flagId: string): FlagRow {
  const id = requireUuid(flagId, "flag");
  const flag = ctx.db.select().from(flags).where(and(eq(flags.id, id), eq(flags.projectId, access.project.id))).get();
  if (!flag) throw notFound("flag");
  return flag;
}

function liveFlag(ctx: ControlContext, access: ProjectAccess, flagId: string): FlagRow {
  const flag = flagOfProject(ctx, access, flagId);
  if (flag.archivedAt !== null) throw conflict("the flag is archived");
  return flag;
}

export function listFlags(ctx: ControlContext, access: ProjectAccess, includeArchived: boolean) {
  requireScope(access, "flags:read");
  const rows = ctx.db
    .select()
    .from(flags)
    .where(includeArchived ? eq(flags.projectId, access.project.id) : and(eq(flags.projectId, access.project.id), isNull(flags.archivedAt)))
    .orderBy(asc(flags.key))
    .all();
  return { flags: rows.map((flag) => flagDto(flag, flagConfigs(ctx, flag.id))) };
}

export function getFlag(ctx: ControlContext, access: ProjectAccess, flagId: string) {
  requireScope(access, "flags:read");
  const flag = flagOfProject(ctx, access, flagId);
  return flagDto(flag, flagConfigs(ctx, flag.id));
}

function nextFlagNumber(ctx: ControlContext): number {
  return (ctx.db.select({ top: max(flags.number) }).from(flags).get()?.top ?? 0) + 1;
}

export function planCreateFlag(ctx: ControlContext, access: ProjectAccess, input: FlagCreateInput): WritePlan<FlagWriteResult> {
  requireScope(access, "flags:write");
  const kind: FlagKind = input.kind ?? "boolean";
  const config: FlagConfig = {
    enabled: false,
    payload: input.payload ?? null,
    rules: input.rules ? normalizeRules(input.rules) : [everyoneRule()],
    salt: "",
    stickiness: input.stickiness ?? distinctIdStickiness,
    variants: normalizeVariants(input.variants ?? []),
  };
  checkConfig(kind, config);
  checkNamedCohorts(ctx, access.project.id, config.rules);
  const taken = ctx.db.select({ archivedAt: flags.archivedAt }).from(flags).where(and(eq(flags.projectId, access.project.id), eq(flags.key, input.key))).get();
  if (taken) throw conflict(`a flag with key "${input.key}" already exists${taken.archivedAt ? " (archived)" : ""}`);
  const now = nowIso();
  const flag: FlagRow = {
    id: newId(),
    projectId: access.project.id,
    number: 0,
    key: input.key,
    name: input.name.trim(),
    kind,
    tags: input.tags ?? [],
    description: input.description ?? null,
    ownerId: null,
    experimentId: null,
    createdBy: userOf(access.principal),
    createdAt: now,
    updatedAt: now,
    archivedAt: null,
  };
  const configs: FlagEnvironmentRow[] = projectEnvironments(ctx, access.project.id).map((env) => ({
    flagId: flag.id,
    environment: env.name,
    ...config,
    version: 1,
    updatedAt: now,
    updatedBy: userOf(access.principal),
  }));
  return {
    action: "flag.create",
    targetType: "flag",
    targetId: flag.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: null,
    after: flagDto(flag, configs),
    apply: () => {
      const stored = { ...flag, number: nextFlagNumber(ctx) };
      ctx.db.insert(flags).values(stored).run();
      ctx.db.insert(flagEnvironments).values(configs).run();
      return { flag: flagDto(stored, configs), publications: recordPublications(ctx, access.project, configs.map((row) => row.environment)) };
    },
  };
}

export function planUpdateFlag(ctx: ControlContext, access: ProjectAccess, flagId: string, input: FlagUpdateInput): WritePlan<FlagWriteResult> {
  requireScope(access, "flags:write");
  const flag = liveFlag(ctx, access, flagId);
  const configs = flagConfigs(ctx, flag.id);
  const changes: Partial<FlagRow> = { updatedAt: nowIso() };
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.description !== undefined) changes.description = input.description;
  if (input.owner_id !== undefined) changes.ownerId = input.owner_id;
  if (input.tags !== undefined) changes.tags = input.tags;
  const updated = { ...flag, ...changes };
  return {
    action: "flag.update",
    targetType: "flag",
    targetId: flag.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: flagDto(flag, configs),
    after: flagDto(updated, configs),
    apply: () => {
      ctx.db.update(flags).set(changes).where(eq(flags.id, flag.id)).run();
      // Name and description travel with the definitions SDKs download.
      return { flag: flagDto(updated, configs), publications: recordPublications(ctx, access.project, configs.map((row) => row.environment)) };
    },
  };
}

/** The experiment running on a flag, if any (its results depend on the flag staying as launched). */
function runningExperiment(ctx: ControlContext, flagId: string): { key: string; environment: string } | undefined {
  return ctx.db.select({ key: experiments.key, environment: experiments.environment }).from(experiments)
    .where(and(eq(experiments.flagId, flagId), eq(experiments.status, "running"))).get();
}

export function planArchiveFlag(ctx: ControlContext, access: ProjectAccess, flagId: string): WritePlan<FlagWriteResult> {
  requireScope(access, "flags:write");
  const flag = liveFlag(ctx, access, flagId);
  const running = runningExperiment(ctx, flag.id);
  if (running) throw conflict(`flag ${flag.key} is measured by running experiment "${running.key}" (stop it first)`);
  const configs = flagConfigs(ctx, flag.id);
  if (configs.some((row) => row.environment === productionEnvironment && row.enabled)) requireScope(access, "flags.production");
  const now = nowIso();
  const archived = { ...flag, archivedAt: now, updatedAt: now };
  return {
    action: "flag.archive",
    targetType: "flag",
    targetId: flag.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: flagDto(flag, configs),
    after: flagDto(archived, configs),
    apply: () => {
      ctx.db.update(flags).set({ archivedAt: now, updatedAt: now }).where(eq(flags.id, flag.id)).run();
      return { flag: flagDto(archived, configs), publications: recordPublications(ctx, access.project, configs.map((row) => row.environment)) };
    },
  };
}

/** A flag's configuration in one environment after `change` (validated), at the next version. */
export function changedEnvironment(flag: FlagRow, current: FlagEnvironmentRow, change: Partial<FlagConfig>, userId: string): FlagEnvironmentRow {
  const next: FlagConfig = { ...configOf(current), ...change };
  checkConfig(flag.kind, next);
  return { ...current, ...next, version: current.version + 1, updatedAt: nowIso(), updatedBy: userId };
}

/** Inside a transaction: stores an environment's new configuration and records its publication. */
export function storeEnvironment(ctx: ControlContext, project: ProjectAccess["project"], row: FlagEnvironmentRow): PendingPublication[] {
  ctx.db.update(flagEnvironments).set(row).where(and(eq(flagEnvironments.flagId, row.flagId), eq(flagEnvironments.environment, row.environment))).run();
  ctx.db.update(flags).set({ updatedAt: row.updatedAt }).where(eq(flags.id, row.flagId)).run();
  return recordPublications(ctx, project, [row.environment]);
}

export function planUpdateFlagEnvironment(
  ctx: ControlContext, access: ProjectAccess, flagId: string, environment: string, input: FlagEnvironmentUpdateInput,
): WritePlan<FlagWriteResult> {
  requireScope(access, "flags:write");
  const flag = liveFlag(ctx, access, flagId);
  const configs = flagConfigs(ctx, flag.id);
  const current = configs.find((row) => row.environment === environment);
  if (!current) throw notFound("environment");
  const change: Partial<FlagConfig> = {};
  if (input.enabled !== undefined) change.enabled = input.enabled;
  if (input.payload !== undefined) change.payload = input.payload;
  if (input.rules !== undefined) {
    change.rules = normalizeRules(input.rules);
    checkNamedCohorts(ctx, access.project.id, change.rules);
  }
  if (input.salt !== undefined) change.salt = input.salt;
  if (input.stickiness !== undefined) change.stickiness = input.stickiness;
  if (input.variants !== undefined) change.variants = normalizeVariants(input.variants);
  // Switching the flag off stays possible (a kill switch); its variants are what is measured.
  const running = runningExperiment(ctx, flag.id);
  if (running?.environment === environment && change.variants !== undefined && JSON.stringify(change.variants) !== JSON.stringify(current.variants)) {
    throw conflict(`the variants of flag ${flag.key} in ${environment} are measured by running experiment "${running.key}" (stop it first)`);
  }
  const row = changedEnvironment(flag, current, change, userOf(access.principal));
  // A live production configuration (enabled after this change) needs flags.production;
  // switching production off stays open to flags:write, so anyone who may edit can kill it.
  if (environment === productionEnvironment && row.enabled) requireScope(access, "flags.production");
  const after = configs.map((config) => (config.environment === environment ? row : config));
  return {
    action: "flag.environment.update",
    targetType: "flag",
    targetId: flag.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: environmentConfigDto(current),
    after: environmentConfigDto(row),
    apply: () => {
      if (environment === productionEnvironment) annotateProductionChange(ctx, access, flag, current, row);
      return { flag: flagDto({ ...flag, updatedAt: row.updatedAt }, after), publications: storeEnvironment(ctx, access.project, row) };
    },
  };
}

/** A production configuration change is marked on the project's charts (a system annotation). */
function annotateProductionChange(ctx: ControlContext, access: ProjectAccess, flag: FlagRow, before: FlagEnvironmentRow, after: FlagEnvironmentRow): void {
  const change = before.enabled === after.enabled ? "configuration changed" : after.enabled ? "turned on" : "turned off";
  recordSystemAnnotation(ctx, {
    projectId: access.project.id, kind: "flag", content: `Flag "${flag.key}" ${change} in production`, userId: userOf(access.principal),
    ref: { flag_id: flag.id, key: flag.key, environment: productionEnvironment, version: after.version, enabled: after.enabled },
  });
}

/** After a flag write commits: its publications pushed to the region, then the flag as answered. */
export async function publishedFlag(ctx: ControlContext, result: FlagWriteResult) {
  await pushPublications(ctx, result.publications);
  return result.flag;
}
