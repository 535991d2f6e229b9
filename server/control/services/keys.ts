// Public project keys (`svc_pk_<region>_<env>_<22 chars>`) and their mirror in the region's
// key registry. The control plane is the source of truth; after every change the region
// gets the key's latest state and `registry_synced` records that it did.
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { randomBase62 } from "../../crypto.ts";
import { conflict, notFound, validation } from "../../http/errors.ts";
import type { RegionCode } from "../../config.ts";
import type { RegistryKey } from "../../../storage/region-store.ts";
import type { ControlContext } from "../context.ts";
import { projects, publicKeys } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { keyDto, type KeyRow } from "../dto.ts";
import { requireScope, type ProjectAccess, type ProjectRow } from "../access.ts";
import type { WritePlan } from "./audited-write.ts";

const keySecretLength = 22;

export const formatPublicKey = (region: string, environment: string) =>
  `svc_pk_${region}_${environment}_${randomBase62(keySecretLength)}`;

export function newKeyRow(project: ProjectRow, environment: string): KeyRow {
  return {
    id: newId(),
    projectId: project.id,
    environment,
    key: formatPublicKey(project.region, environment),
    allowedBundleIds: [],
    allowedOrigins: [],
    registrySynced: false,
    createdAt: nowIso(),
    revokedAt: null,
  };
}

export function projectKeys(ctx: ControlContext, projectId: string): KeyRow[] {
  return ctx.db.select().from(publicKeys).where(eq(publicKeys.projectId, projectId)).orderBy(asc(publicKeys.createdAt)).all();
}

function keyOfProject(ctx: ControlContext, project: ProjectRow, keyId: string): KeyRow {
  const id = requireUuid(keyId, "key");
  const key = ctx.db
    .select()
    .from(publicKeys)
    .where(and(eq(publicKeys.id, id), eq(publicKeys.projectId, project.id)))
    .get();
  if (!key) throw notFound("key");
  return key;
}

const registryEntry = (project: ProjectRow, key: KeyRow): RegistryKey => ({
  key: key.key,
  keyId: key.id,
  projectId: project.id,
  dataId: project.dataId,
  environment: key.environment,
  allowedOrigins: key.allowedOrigins,
  allowedBundleIds: key.allowedBundleIds,
  revokedAt: key.revokedAt,
  retentionDays: project.retentionDays,
  timeZone: project.timezone,
});

/**
 * Pushes keys to their region and marks them synced. A region that cannot be reached
 * leaves `registry_synced` false; `syncPendingKeys` retries at start-up.
 */
export async function syncKeysToRegion(ctx: ControlContext, project: ProjectRow, keyIds: string[]): Promise<void> {
  const link = ctx.regions.get(project.region as RegionCode);
  if (!link || keyIds.length === 0) return;
  const rows = ctx.db.select().from(publicKeys).where(inArray(publicKeys.id, keyIds)).all();
  try {
    await link.syncKeys(rows.map((row) => registryEntry(project, row)));
  } catch (error) {
    console.error(`key registry sync to region ${project.region} failed:`, error);
    return;
  }
  ctx.db.update(publicKeys).set({ registrySynced: true }).where(inArray(publicKeys.id, keyIds)).run();
}

export async function syncPendingKeys(ctx: ControlContext): Promise<void> {
  const pending = ctx.db
    .select({ key: publicKeys, project: projects })
    .from(publicKeys)
    .innerJoin(projects, eq(projects.id, publicKeys.projectId))
    .where(eq(publicKeys.registrySynced, false))
    .all();
  const byProject = new Map<string, { project: ProjectRow; keyIds: string[] }>();
  for (const row of pending) {
    const entry = byProject.get(row.project.id) ?? { project: row.project, keyIds: [] };
    entry.keyIds.push(row.key.id);
    byProject.set(row.project.id, entry);
  }
  for (const { project, keyIds } of byProject.values()) await syncKeysToRegion(ctx, project, keyIds);
}

export function listKeys(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "projects:read");
  return { keys: projectKeys(ctx, access.project.id).map(keyDto) };
}

/** The audited write of one key's new state. */
function keyWritePlan(access: ProjectAccess, key: KeyRow, action: string, after: KeyRow, apply: () => void): WritePlan<KeyRow> {
  return {
    action,
    targetType: "key",
    targetId: key.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: keyDto(key),
    after: keyDto(after),
    apply: () => {
      apply();
      return after;
    },
  };
}

export function planRevokeKey(ctx: ControlContext, access: ProjectAccess, keyId: string): WritePlan<KeyRow> {
  const key = keyOfProject(ctx, access.project, keyId);
  requireScope(access, "projects:write");
  const revokedAt = key.revokedAt ?? nowIso();
  const after: KeyRow = { ...key, revokedAt, registrySynced: key.revokedAt ? key.registrySynced : false };
  return keyWritePlan(access, key, "key.revoke", after, () => {
    if (!key.revokedAt) ctx.db.update(publicKeys).set({ revokedAt, registrySynced: false }).where(eq(publicKeys.id, key.id)).run();
  });
}

export function planRotateKey(
  ctx: ControlContext,
  access: ProjectAccess,
  keyId: string,
  keepOld: boolean,
): WritePlan<{ created: KeyRow; revoked: KeyRow }> {
  const key = keyOfProject(ctx, access.project, keyId);
  requireScope(access, "projects:write");
  if (key.revokedAt) throw conflict("key is already revoked; rotate an active key");
  const created = { ...newKeyRow(access.project, key.environment), allowedOrigins: key.allowedOrigins, allowedBundleIds: key.allowedBundleIds };
  const revoked: KeyRow = keepOld ? key : { ...key, revokedAt: nowIso(), registrySynced: false };
  return {
    action: "key.rotate",
    targetType: "key",
    targetId: key.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: keyDto(key),
    after: { created: keyDto(created), revoked: keyDto(revoked) },
    apply: () => {
      ctx.db.insert(publicKeys).values(created).run();
      if (!keepOld) {
        ctx.db
          .update(publicKeys)
          .set({ revokedAt: revoked.revokedAt, registrySynced: false })
          .where(and(eq(publicKeys.id, key.id), isNull(publicKeys.revokedAt)))
          .run();
      }
      return { created, revoked };
    },
  };
}

export const keyAllowlistEntriesMax = 50;
const bundleIdPattern = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

function validOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}

export interface KeyAllowlistInput {
  allowed_origins?: string[];
  allowed_bundle_ids?: string[];
}

/** Origins (web) and bundle ids (apps) allowed to send with a key; empty lists allow any. */
export function planUpdateKeyAllowlist(ctx: ControlContext, access: ProjectAccess, keyId: string, input: KeyAllowlistInput): WritePlan<KeyRow> {
  const key = keyOfProject(ctx, access.project, keyId);
  requireScope(access, "projects:write");
  if (key.revokedAt) throw conflict("key is revoked");
  const origins = input.allowed_origins ?? key.allowedOrigins;
  const bundles = input.allowed_bundle_ids ?? key.allowedBundleIds;
  for (const [name, list] of [["allowed_origins", origins], ["allowed_bundle_ids", bundles]] as const) {
    if (list.length > keyAllowlistEntriesMax) throw validation(`${name} may list at most ${keyAllowlistEntriesMax} entries`);
  }
  const badOrigin = origins.find((origin) => !validOrigin(origin));
  if (badOrigin !== undefined) throw validation(`allowed_origins: "${badOrigin}" is not an origin like https://app.example.com`);
  const badBundle = bundles.find((bundle) => !bundleIdPattern.test(bundle));
  if (badBundle !== undefined) throw validation(`allowed_bundle_ids: "${badBundle}" is not a bundle id like com.example.app`);
  const after: KeyRow = { ...key, allowedOrigins: [...new Set(origins)], allowedBundleIds: [...new Set(bundles)], registrySynced: false };
  return keyWritePlan(access, key, "key.update_allowlist", after, () =>
    ctx.db
      .update(publicKeys)
      .set({ allowedOrigins: after.allowedOrigins, allowedBundleIds: after.allowedBundleIds, registrySynced: false })
      .where(eq(publicKeys.id, key.id))
      .run(),
  );
}

/** Re-reads a key after a sync so responses show the current `registry_synced`. */
function reloadKey(ctx: ControlContext, keyId: string): KeyRow {
  return ctx.db.select().from(publicKeys).where(eq(publicKeys.id, keyId)).get()!;
}

/** After a committed key change: push the keys to the region, then answer with their DTOs. */
export async function syncedKeyDtos(ctx: ControlContext, project: ProjectRow, keyIds: string[]) {
  await syncKeysToRegion(ctx, project, keyIds);
  return keyIds.map((id) => keyDto(reloadKey(ctx, id)));
}

export async function rotatedKeysResponse(ctx: ControlContext, project: ProjectRow, result: { created: KeyRow; revoked: KeyRow }) {
  const [created, revoked] = await syncedKeyDtos(ctx, project, [result.created.id, result.revoked.id]);
  return { created: created!, revoked: revoked! };
}
