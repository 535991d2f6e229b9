import { asc, eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { memberships, orgs } from "../db/schema.ts";
import { newId, slugify, uniqueSlug } from "../ids.ts";
import { orgDto } from "../dto.ts";
import { requireScope, type OrgAccess, type OrgRow, type Principal } from "../access.ts";
import type { WritePlan } from "./audited-write.ts";
import type { Role } from "../auth/scopes.ts";

/** Inserts an org with `ownerId` as its owner; call inside a write's transaction. */
export function insertOrg(ctx: ControlContext, name: string, ownerId: string): OrgRow {
  const now = nowIso();
  const slug = uniqueSlug(slugify(name), (candidate) =>
    Boolean(ctx.db.select({ id: orgs.id }).from(orgs).where(eq(orgs.slug, candidate)).get()),
  );
  const org: OrgRow = { id: newId(), name, slug, createdAt: now };
  ctx.db.insert(orgs).values(org).run();
  ctx.db.insert(memberships).values({ id: newId(), orgId: org.id, userId: ownerId, role: "owner", createdAt: now }).run();
  return org;
}

export function listOrgs(ctx: ControlContext, principal: Principal) {
  const rows = ctx.db
    .select({ org: orgs, role: memberships.role })
    .from(memberships)
    .innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(eq(memberships.userId, principal.user.id))
    .orderBy(asc(orgs.createdAt))
    .all();
  const visible = principal.kind === "token" ? rows.filter((row) => row.org.id === principal.token.orgId) : rows;
  return { orgs: visible.map((row) => orgDto(row.org, row.role as Role)) };
}

/** The routes trim names; one of only spaces is as empty as "" (which the schema refuses). */
function requireName(name: string): void {
  if (!name) throw validation("name must not be empty");
}

export function planCreateOrg(ctx: ControlContext, principal: Principal, name: string): WritePlan<ReturnType<typeof orgDto>> {
  requireName(name);
  return {
    action: "org.create",
    targetType: "org",
    targetId: null,
    orgId: null,
    before: null,
    after: { name },
    apply: () => orgDto(insertOrg(ctx, name, principal.user.id), "owner"),
  };
}

export function planRenameOrg(ctx: ControlContext, access: OrgAccess, name: string): WritePlan<ReturnType<typeof orgDto>> {
  requireScope(access, "org:write");
  requireName(name);
  const before = orgDto(access.org, access.role);
  const after = { ...before, name };
  return {
    action: "org.rename",
    targetType: "org",
    targetId: access.org.id,
    orgId: access.org.id,
    before,
    after,
    apply: () => {
      ctx.db.update(orgs).set({ name }).where(eq(orgs.id, access.org.id)).run();
      return after;
    },
  };
}
