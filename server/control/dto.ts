// Rows to the spec's DTO shapes (snake_case, every starred field present).
import { eq } from "drizzle-orm";
import type { ControlContext } from "./context.ts";
import type { OrgRow, ProjectRow, TokenRow, UserRow } from "./access.ts";
import { environments, publicKeys } from "./db/schema.ts";
import type { Role } from "./auth/scopes.ts";

export type KeyRow = typeof publicKeys.$inferSelect;
export type EnvironmentRow = typeof environments.$inferSelect;

export const orgDto = (org: OrgRow, role: Role) => ({
  id: org.id,
  name: org.name,
  slug: org.slug,
  role,
  created_at: org.createdAt,
});

export const environmentDto = (env: EnvironmentRow) => ({ id: env.id, name: env.name, is_default: env.isDefault });

/** The three environments every project has, in the order they are always listed. */
export const environmentNames = ["production", "staging", "development"] as const;

export function sortEnvironments(envs: EnvironmentRow[]): EnvironmentRow[] {
  const rank = (env: EnvironmentRow) => {
    const index = (environmentNames as readonly string[]).indexOf(env.name);
    return index === -1 ? environmentNames.length : index;
  };
  return [...envs].sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || rank(a) - rank(b) || a.name.localeCompare(b.name));
}

export function projectEnvironments(ctx: ControlContext, projectId: string): EnvironmentRow[] {
  return sortEnvironments(ctx.db.select().from(environments).where(eq(environments.projectId, projectId)).all());
}

export const projectDto = (project: ProjectRow, role: Role, envs: EnvironmentRow[]) => ({
  id: project.id,
  org_id: project.orgId,
  name: project.name,
  slug: project.slug,
  region: project.region,
  currency: project.currency,
  timezone: project.timezone,
  retention_days: project.retentionDays,
  data_id: project.dataId,
  role,
  environments: envs.map(environmentDto),
  created_at: project.createdAt,
});

export const keyDto = (key: KeyRow) => ({
  id: key.id,
  project_id: key.projectId,
  environment: key.environment,
  key: key.key,
  allowed_bundle_ids: key.allowedBundleIds,
  allowed_origins: key.allowedOrigins,
  registry_synced: key.registrySynced,
  created_at: key.createdAt,
  revoked_at: key.revokedAt,
});

export const userDto = (user: UserRow) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  email_verified: user.emailVerifiedAt !== null,
  created_at: user.createdAt,
});

export const tokenDto = (token: TokenRow) => ({
  id: token.id,
  name: token.name,
  org_id: token.orgId,
  prefix: token.prefix,
  scopes: token.scopes,
  project_ids: token.projectIds,
  created_at: token.createdAt,
  expires_at: token.expiresAt,
  last_used_at: token.lastUsedAt,
  revoked_at: token.revokedAt,
});
