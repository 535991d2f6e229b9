// Tenancy and scopes, one implementation for console sessions and /v1 tokens alike.
// A resource the caller cannot see (another tenant's, outside the token's project list,
// soft-deleted, or a malformed id) is 404; a visible one the caller lacks a scope for is 403.
import { and, eq, isNull } from "drizzle-orm";
import { missingScope, notFound } from "../http/errors.ts";
import type { ControlContext } from "./context.ts";
import { accessTokens, memberships, orgs, projects, users } from "./db/schema.ts";
import { effectiveScopes, type Role } from "./auth/scopes.ts";
import { requireUuid } from "./ids.ts";

export type UserRow = typeof users.$inferSelect;
export type OrgRow = typeof orgs.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type TokenRow = typeof accessTokens.$inferSelect;

export type Principal =
  | { kind: "session"; user: UserRow; sessionId: string }
  | { kind: "token"; user: UserRow; token: TokenRow };

export interface OrgAccess {
  principal: Principal;
  org: OrgRow;
  role: Role;
  scopes: Set<string>;
}

export interface ProjectAccess extends OrgAccess {
  project: ProjectRow;
}

export function roleIn(ctx: ControlContext, orgId: string, userId: string): Role | null {
  const row = ctx.db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
    .get();
  return row?.role ?? null;
}

export function grantedScopes(principal: Principal): string[] | null {
  return principal.kind === "token" ? principal.token.scopes : null;
}

export function orgAccess(ctx: ControlContext, principal: Principal, orgId: string): OrgAccess {
  const id = requireUuid(orgId, "organisation");
  if (principal.kind === "token" && principal.token.orgId !== id) throw notFound("organisation");
  const org = ctx.db.select().from(orgs).where(eq(orgs.id, id)).get();
  const role = org ? roleIn(ctx, org.id, principal.user.id) : null;
  if (!org || !role) throw notFound("organisation");
  return { principal, org, role, scopes: effectiveScopes(role, grantedScopes(principal)) };
}

export function projectVisibleToToken(principal: Principal, projectId: string): boolean {
  if (principal.kind !== "token" || principal.token.projectIds === null) return true;
  return principal.token.projectIds.includes(projectId);
}

export function projectAccess(ctx: ControlContext, principal: Principal, projectId: string): ProjectAccess {
  const id = requireUuid(projectId, "project");
  const project = ctx.db
    .select()
    .from(projects)
    .where(and(eq(projects.id, id), isNull(projects.deletedAt)))
    .get();
  if (!project || !projectVisibleToToken(principal, project.id)) throw notFound("project");
  try {
    return { ...orgAccess(ctx, principal, project.orgId), project };
  } catch {
    throw notFound("project");
  }
}

export function requireScope(access: { scopes: Set<string> }, scope: string): void {
  if (!access.scopes.has(scope)) throw missingScope(scope);
}
