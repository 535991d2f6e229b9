import { pushProjectIntegrationsRemoval } from "../integrations/integration-sync.ts";
import { pushProjectFindingsRemoval } from "../findings/findings-sync.ts";
import { recordSystemAnnotation } from "../annotations/system-annotations.ts";
import { and, asc, eq, isNull, max } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { missingScope, validation } from "../../http/errors.ts";
import type { RegionCode } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import { environments, projects, publicKeys } from "../db/schema.ts";
import { newId, slugify, uniqueSlug } from "../ids.ts";
import { environmentDto, environmentNames, keyDto, projectDto, projectEnvironments, sortEnvironments, type EnvironmentRow, type KeyRow } from "../dto.ts";
import { projectVisibleToToken, requireScope, type OrgAccess, type ProjectAccess, type ProjectRow } from "../access.ts";
import type { WritePlan } from "./audited-write.ts";
import { newKeyRow, syncKeysToRegion, syncedKeyDtos } from "./keys.ts";
import { pushRevocations, recordRevocation } from "./token-revocations.ts";

export const defaultEnvironment = "production";

/** A 400 unless the project has an environment of this name. */
export function requireEnvironment(ctx: ControlContext, projectId: string, environment: string): void {
  const found = ctx.db.select({ id: environments.id }).from(environments).where(and(eq(environments.projectId, projectId), eq(environments.name, environment))).get();
  if (!found) throw validation(`unknown environment "${environment}"`);
}
export const defaultCurrency = "USD";
export const defaultTimezone = "UTC";
/** Retention of new projects; events older than this are rejected at ingest. */
export const defaultRetentionDays = 365;

const currencies = new Set(Intl.supportedValuesOf("currency"));
const timezones = new Set([...Intl.supportedValuesOf("timeZone"), "UTC"]);

export interface CreateProjectInput {
  name: string;
  region: string;
  currency?: string;
  timezone?: string;
}

export function listProjects(ctx: ControlContext, access: OrgAccess) {
  requireScope(access, "projects:read");
  const rows = ctx.db
    .select()
    .from(projects)
    .where(and(eq(projects.orgId, access.org.id), isNull(projects.deletedAt)))
    .orderBy(asc(projects.createdAt))
    .all()
    .filter((project) => projectVisibleToToken(access.principal, project.id));
  return { projects: rows.map((project) => projectDto(project, access.role, projectEnvironments(ctx, project.id))) };
}

export function getProject(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "projects:read");
  return projectDto(access.project, access.role, projectEnvironments(ctx, access.project.id));
}

export function listEnvironments(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "projects:read");
  return { environments: projectEnvironments(ctx, access.project.id).map(environmentDto) };
}

function validateCreate(ctx: ControlContext, input: CreateProjectInput): Required<CreateProjectInput> {
  const name = input.name.trim();
  if (!name) throw validation("name must not be empty");
  const region = input.region.trim().toLowerCase();
  if (!ctx.regions.has(region as RegionCode)) {
    throw validation(`region "${input.region}" is not live; live regions: ${[...ctx.regions.keys()].join(", ")}`);
  }
  const currency = input.currency ?? defaultCurrency;
  if (!currencies.has(currency)) throw validation(`currency "${currency}" is not an ISO 4217 code`);
  const timezone = input.timezone ?? defaultTimezone;
  if (!timezones.has(timezone)) throw validation(`timezone "${timezone}" is not an IANA time zone`);
  return { name, region, currency, timezone };
}

export interface CreatedProject {
  project: ProjectRow;
  envs: EnvironmentRow[];
  keys: KeyRow[];
}

/**
 * A token restricted by `project_ids` reaches only the projects it lists, so it cannot make
 * new ones: a project it created would be outside its own reach, or would widen a list its
 * owner chose on purpose. 403 `missing_scope`, as for a token lacking the scope: what it lacks
 * is `projects:write` over the whole organisation.
 */
function requireWholeOrg(access: OrgAccess): void {
  if (access.principal.kind === "token" && access.principal.token.projectIds !== null) {
    throw missingScope("projects:write", "on the whole organisation: this token is restricted to its project_ids and cannot create projects; use a token without project_ids");
  }
}

export function planCreateProject(ctx: ControlContext, access: OrgAccess, input: CreateProjectInput): WritePlan<CreatedProject> {
  requireScope(access, "projects:write");
  requireWholeOrg(access);
  const valid = validateCreate(ctx, input);
  const preview = {
    org_id: access.org.id,
    name: valid.name,
    region: valid.region,
    currency: valid.currency,
    timezone: valid.timezone,
    retention_days: defaultRetentionDays,
    environments: [...environmentNames],
  };
  return {
    action: "project.create",
    targetType: "project",
    targetId: null,
    orgId: access.org.id,
    before: null,
    after: preview,
    apply: () => {
      const { value: lastDataId } = ctx.db.select({ value: max(projects.dataId) }).from(projects).get() ?? { value: null };
      const slug = uniqueSlug(slugify(valid.name), (candidate) =>
        Boolean(
          ctx.db.select({ id: projects.id }).from(projects).where(and(eq(projects.orgId, access.org.id), eq(projects.slug, candidate))).get(),
        ),
      );
      const project: ProjectRow = {
        id: newId(),
        orgId: access.org.id,
        name: valid.name,
        slug,
        region: valid.region,
        currency: valid.currency,
        timezone: valid.timezone,
        retentionDays: defaultRetentionDays,
        dataId: (lastDataId ?? 0) + 1,
        createdAt: nowIso(),
        deletedAt: null,
      };
      ctx.db.insert(projects).values(project).run();
      const envs = environmentNames.map((name) => ({ id: newId(), projectId: project.id, name, isDefault: name === defaultEnvironment }));
      ctx.db.insert(environments).values(envs).run();
      const keys = envs.map((env) => newKeyRow(project, env.name));
      ctx.db.insert(publicKeys).values(keys).run();
      return { project, envs: sortEnvironments(envs), keys };
    },
  };
}

export function planRenameProject(ctx: ControlContext, access: ProjectAccess, name: string): WritePlan<ReturnType<typeof projectDto>> {
  requireScope(access, "projects:write");
  const trimmed = name.trim();
  if (!trimmed) throw validation("name must not be empty");
  const envs = projectEnvironments(ctx, access.project.id);
  const before = projectDto(access.project, access.role, envs);
  const after = { ...before, name: trimmed };
  return {
    action: "project.rename",
    targetType: "project",
    targetId: access.project.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before,
    after,
    apply: () => {
      ctx.db.update(projects).set({ name: trimmed }).where(eq(projects.id, access.project.id)).run();
      if (trimmed !== before.name) {
        recordSystemAnnotation(ctx, {
          projectId: access.project.id, kind: "project", content: `Project renamed from "${before.name}" to "${trimmed}"`, userId: access.principal.user.id,
          ref: { setting: "name", before: before.name, after: trimmed },
        });
      }
      return after;
    },
  };
}

/** Soft-delete: the project disappears from every list and read; every key and region token is revoked. */
export function planDeleteProject(ctx: ControlContext, access: ProjectAccess): WritePlan<string[]> {
  requireScope(access, "projects:write");
  const envs = projectEnvironments(ctx, access.project.id);
  const activeKeys = ctx.db
    .select()
    .from(publicKeys)
    .where(and(eq(publicKeys.projectId, access.project.id), isNull(publicKeys.revokedAt)))
    .all();
  return {
    action: "project.delete",
    targetType: "project",
    targetId: access.project.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: projectDto(access.project, access.role, envs),
    after: { deleted: true, revoked_keys: activeKeys.map((key) => keyDto(key).id) },
    apply: () => {
      const now = nowIso();
      ctx.db.update(projects).set({ deletedAt: now }).where(eq(projects.id, access.project.id)).run();
      ctx.db
        .update(publicKeys)
        .set({ revokedAt: now, registrySynced: false })
        .where(and(eq(publicKeys.projectId, access.project.id), isNull(publicKeys.revokedAt)))
        .run();
      recordRevocation(ctx, [access.project.region as RegionCode], { projectId: access.project.id }, "project_deleted", null);
      return activeKeys.map((key) => key.id);
    },
  };
}

/** After a committed delete: the region learns that the project's keys and region tokens are revoked. */
export async function pushProjectDeletion(ctx: ControlContext, project: ProjectRow, revokedKeyIds: string[]): Promise<void> {
  await syncKeysToRegion(ctx, project, revokedKeyIds);
  await pushRevocations(ctx);
  await pushProjectIntegrationsRemoval(ctx, project);
  await pushProjectFindingsRemoval(ctx, project);
}

/** After a committed create: push the new keys to the region, then answer CreateProjectResponse. */
export async function createdProjectResponse(ctx: ControlContext, access: OrgAccess, created: CreatedProject) {
  return {
    project: projectDto(created.project, access.role, created.envs),
    public_keys: await syncedKeyDtos(ctx, created.project, created.keys.map((key) => key.id)),
  };
}
