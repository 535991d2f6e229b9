// Flag secret keys: what a server SDK presents (PostHog's "personal API key" slot) to download
// an environment's flag definitions for local evaluation. The secret is shown once, stored
// as a sha256 hash, listed by its prefix, and mirrored (hash only) into the region.
import { and, asc, eq, inArray } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { randomBase62, sha256Hex } from "../../crypto.ts";
import { conflict, notFound, validation } from "../../http/errors.ts";
import type { RegionCode } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import { flagSecretKeys, projects } from "../db/schema.ts";
import { projectEnvironments } from "../dto.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess, type ProjectRow } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";

export const flagSecretPrefix = "svc_fsk_";
const flagSecretRandomLength = 40;
/** Characters of the secret shown in listings. */
const flagSecretDisplayLength = flagSecretPrefix.length + 6;

type FlagSecretKeyRow = typeof flagSecretKeys.$inferSelect;

export const flagSecretKeyDto = (row: FlagSecretKeyRow) => ({
  id: row.id,
  project_id: row.projectId,
  environment: row.environment,
  name: row.name,
  prefix: row.prefix,
  created_at: row.createdAt,
  created_by: row.createdBy,
  revoked_at: row.revokedAt,
});

export function listFlagSecretKeys(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "flags:read");
  const rows = ctx.db.select().from(flagSecretKeys).where(eq(flagSecretKeys.projectId, access.project.id)).orderBy(asc(flagSecretKeys.createdAt)).all();
  return { keys: rows.map(flagSecretKeyDto) };
}

export interface CreatedFlagSecretKey {
  row: FlagSecretKeyRow;
  secret: string;
}

export function planCreateFlagSecretKey(ctx: ControlContext, access: ProjectAccess, input: { environment: string; name: string }): WritePlan<CreatedFlagSecretKey> {
  requireScope(access, "flags:write");
  if (!projectEnvironments(ctx, access.project.id).some((env) => env.name === input.environment)) {
    throw validation(`environment "${input.environment}" is not one of the project's environments`);
  }
  const name = input.name.trim();
  if (!name) throw validation("name must not be empty");
  const secret = `${flagSecretPrefix}${randomBase62(flagSecretRandomLength)}`;
  const row: FlagSecretKeyRow = {
    id: newId(),
    projectId: access.project.id,
    environment: input.environment,
    name,
    prefix: secret.slice(0, flagSecretDisplayLength),
    secretHash: sha256Hex(secret),
    registrySynced: false,
    createdAt: nowIso(),
    createdBy: access.principal.user.id,
    revokedAt: null,
  };
  return {
    action: "flag_secret_key.create",
    targetType: "flag_secret_key",
    targetId: row.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: null,
    after: flagSecretKeyDto(row),
    apply: () => {
      ctx.db.insert(flagSecretKeys).values(row).run();
      return { row, secret };
    },
  };
}

export function planRevokeFlagSecretKey(ctx: ControlContext, access: ProjectAccess, keyId: string): WritePlan<FlagSecretKeyRow> {
  requireScope(access, "flags:write");
  const id = requireUuid(keyId, "flag secret key");
  const row = ctx.db.select().from(flagSecretKeys).where(and(eq(flagSecretKeys.id, id), eq(flagSecretKeys.projectId, access.project.id))).get();
  if (!row) throw notFound("flag secret key");
  if (row.revokedAt !== null) throw conflict("the flag secret key is already revoked");
  const revoked = { ...row, revokedAt: nowIso(), registrySynced: false };
  return {
    action: "flag_secret_key.revoke",
    targetType: "flag_secret_key",
    targetId: row.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: flagSecretKeyDto(row),
    after: flagSecretKeyDto(revoked),
    apply: () => {
      ctx.db.update(flagSecretKeys).set({ revokedAt: revoked.revokedAt, registrySynced: false }).where(eq(flagSecretKeys.id, row.id)).run();
      return revoked;
    },
  };
}

/** Mirrors keys into their project's region; unsynced ones are retried by syncPendingFlagSecretKeys. */
export async function syncFlagSecretKeys(ctx: ControlContext, project: Pick<ProjectRow, "region">, keyIds: string[]): Promise<void> {
  const link = ctx.regions.get(project.region as RegionCode);
  if (!link || keyIds.length === 0) return;
  const rows = ctx.db.select().from(flagSecretKeys).where(inArray(flagSecretKeys.id, keyIds)).all();
  try {
    await link.syncFlagSecretKeys(rows.map((row) => ({ id: row.id, secretHash: row.secretHash, projectId: row.projectId, environment: row.environment, revokedAt: row.revokedAt })));
  } catch (error) {
    console.error(`flag secret key sync to region ${project.region} failed:`, error);
    return;
  }
  ctx.db.update(flagSecretKeys).set({ registrySynced: true }).where(inArray(flagSecretKeys.id, keyIds)).run();
}

export async function syncPendingFlagSecretKeys(ctx: ControlContext): Promise<void> {
  const pending = ctx.db
    .select({ id: flagSecretKeys.id, projectId: flagSecretKeys.projectId, region: projects.region })
    .from(flagSecretKeys)
    .innerJoin(projects, eq(projects.id, flagSecretKeys.projectId))
    .where(eq(flagSecretKeys.registrySynced, false))
    .all();
  const byRegion = new Map<string, string[]>();
  for (const row of pending) byRegion.set(row.region, [...(byRegion.get(row.region) ?? []), row.id]);
  for (const [region, keyIds] of byRegion) await syncFlagSecretKeys(ctx, { region }, keyIds);
}
