// Members and invitations. Only an owner can grant, change or remove the owner role, and
// the last owner can never be removed or demoted (409).
import { and, asc, eq, gt } from "drizzle-orm";
import { dayMs, isoIn, nowIso } from "../../clock.ts";
import { conflict, notFound, scopeNotHeld, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { invitations, memberships, orgs, users } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { orgDto } from "../dto.ts";
import { requireScope, type OrgAccess, type Principal } from "../access.ts";
import { regionalScopes, roles, scopesOfRole, type Role } from "../auth/scopes.ts";
import { endGrantsOfUser } from "../oauth/grants.ts";
import { recordRevocation } from "./token-revocations.ts";
import { applyWrite, type WritePlan } from "./audited-write.ts";
import { issueEmailToken, redeemEmailToken } from "./email-tokens.ts";
import { invitationMail } from "../mail/messages.ts";
import { normalizeEmail } from "./accounts.ts";

export const invitationTtlMs = 7 * dayMs;

type MembershipRow = typeof memberships.$inferSelect;
type InvitationRow = typeof invitations.$inferSelect;

const invitationDto = (row: InvitationRow) => ({
  id: row.id,
  org_id: row.orgId,
  email: row.email,
  role: row.role,
  status: row.status === "pending" && row.expiresAt <= nowIso() ? "expired" : row.status,
  expires_at: row.expiresAt,
  created_at: row.createdAt,
});

function memberRows(ctx: ControlContext, orgId: string) {
  return ctx.db
    .select({ membership: memberships, user: users })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(asc(memberships.createdAt))
    .all();
}

const memberDto = (row: { membership: MembershipRow; user: typeof users.$inferSelect }) => ({
  id: row.membership.id,
  user_id: row.user.id,
  name: row.user.name,
  email: row.user.email,
  role: row.membership.role,
  created_at: row.membership.createdAt,
});

export function listMembers(ctx: ControlContext, access: OrgAccess) {
  requireScope(access, "org:read");
  const members = memberRows(ctx, access.org.id).map(memberDto);
  const pending = access.scopes.has("members.write")
    ? ctx.db
        .select()
        .from(invitations)
        .where(and(eq(invitations.orgId, access.org.id), eq(invitations.status, "pending"), gt(invitations.expiresAt, nowIso())))
        .orderBy(asc(invitations.createdAt))
        .all()
        .map(invitationDto)
    : [];
  return { members, invitations: pending };
}

function parseRole(raw: string): Role {
  if (!(roles as readonly string[]).includes(raw)) throw validation(`role must be one of ${roles.join(", ")}`);
  return raw as Role;
}

function requireOwnerFor(access: OrgAccess, ...involved: Role[]): void {
  if (involved.includes("owner") && access.role !== "owner") {
    throw scopeNotHeld(["owner role: only an owner can grant, change or remove the owner role"]);
  }
}

function memberOf(ctx: ControlContext, access: OrgAccess, memberId: string) {
  const id = requireUuid(memberId, "member");
  const row = memberRows(ctx, access.org.id).find((candidate) => candidate.membership.id === id);
  if (!row) throw notFound("member");
  return row;
}

function ownerCount(ctx: ControlContext, orgId: string): number {
  return ctx.db
    .select({ id: memberships.id })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner")))
    .all().length;
}

export function planChangeRole(ctx: ControlContext, access: OrgAccess, memberId: string, rawRole: string): WritePlan<ReturnType<typeof memberDto>> {
  const row = memberOf(ctx, access, memberId);
  requireScope(access, "members.write");
  const role = parseRole(rawRole);
  requireOwnerFor(access, role, row.membership.role);
  if (row.membership.role === "owner" && role !== "owner" && ownerCount(ctx, access.org.id) === 1) {
    throw conflict("cannot demote the last owner; make another member an owner first");
  }
  const before = memberDto(row);
  const after = { ...before, role };
  return {
    action: "member.role_change",
    targetType: "member",
    targetId: row.membership.id,
    orgId: access.org.id,
    before,
    after,
    apply: () => {
      ctx.db.update(memberships).set({ role }).where(eq(memberships.id, row.membership.id)).run();
      const kept = regionalScopes.filter((scope) => scopesOfRole(role).has(scope));
      if (regionalScopes.some((scope) => scopesOfRole(row.membership.role).has(scope) && !kept.includes(scope))) {
        recordRevocation(ctx, ctx.regions.keys(), { orgId: access.org.id, userId: row.user.id }, "role_changed", kept);
      }
      return after;
    },
  };
}

/** Members with members.write remove others; anyone may leave (remove their own membership). */
export function planRemoveMember(ctx: ControlContext, access: OrgAccess, memberId: string): WritePlan<void> {
  const row = memberOf(ctx, access, memberId);
  const leaving = row.user.id === access.principal.user.id;
  if (!leaving) {
    requireScope(access, "members.write");
    requireOwnerFor(access, row.membership.role);
  }
  if (row.membership.role === "owner" && ownerCount(ctx, access.org.id) === 1) {
    throw conflict("cannot remove the last owner; make another member an owner first");
  }
  return {
    action: "member.remove",
    targetType: "member",
    targetId: row.membership.id,
    orgId: access.org.id,
    before: memberDto(row),
    after: null,
    apply: () => {
      ctx.db.delete(memberships).where(eq(memberships.id, row.membership.id)).run();
      endGrantsOfUser(ctx, row.user.id, access.org.id);
      recordRevocation(ctx, ctx.regions.keys(), { orgId: access.org.id, userId: row.user.id }, "member_removed", null);
    },
  };
}

export function createInvitation(ctx: ControlContext, access: OrgAccess, input: { email: string; role: string }) {
  requireScope(access, "members.write");
  const email = normalizeEmail(input.email);
  const role = parseRole(input.role);
  requireOwnerFor(access, role);
  const existingMember = memberRows(ctx, access.org.id).find((row) => row.user.email === email);
  if (existingMember) throw conflict("this address already belongs to a member");
  const pending = ctx.db
    .select()
    .from(invitations)
    .where(and(eq(invitations.orgId, access.org.id), eq(invitations.email, email), eq(invitations.status, "pending"), gt(invitations.expiresAt, nowIso())))
    .get();
  if (pending) throw conflict("a pending invitation for this address already exists");
  const invitation: InvitationRow = {
    id: newId(),
    orgId: access.org.id,
    email,
    role,
    status: "pending",
    invitedBy: access.principal.user.id,
    expiresAt: isoIn(invitationTtlMs),
    createdAt: nowIso(),
  };
  const token = applyWrite(ctx, access.principal, {
    action: "invitation.create",
    targetType: "invitation",
    targetId: invitation.id,
    orgId: access.org.id,
    before: null,
    after: invitationDto(invitation),
    apply: () => {
      ctx.db.insert(invitations).values(invitation).run();
      return issueEmailToken(ctx, "invitation", invitationTtlMs, { invitationId: invitation.id });
    },
  });
  const link = `${ctx.baseUrl()}/invitations/accept?token=${token.secret}`;
  ctx.mail.send(invitationMail(email, { orgName: access.org.name, inviterName: access.principal.user.name }, { ...token, link, ttlMs: invitationTtlMs }));
  return invitationDto(invitation);
}

export function revokeInvitation(ctx: ControlContext, access: OrgAccess, invitationId: string): void {
  const id = requireUuid(invitationId, "invitation");
  const row = ctx.db
    .select()
    .from(invitations)
    .where(and(eq(invitations.id, id), eq(invitations.orgId, access.org.id), eq(invitations.status, "pending")))
    .get();
  if (!row) throw notFound("invitation");
  requireScope(access, "members.write");
  applyWrite(ctx, access.principal, {
    action: "invitation.revoke",
    targetType: "invitation",
    targetId: row.id,
    orgId: access.org.id,
    before: invitationDto(row),
    after: { ...invitationDto(row), status: "revoked" },
    apply: () => ctx.db.update(invitations).set({ status: "revoked" }).where(eq(invitations.id, row.id)).run(),
  });
}

/** The invitation must be addressed to the signed-in user's email; otherwise 404. */
export function acceptInvitation(ctx: ControlContext, principal: Principal, token: string) {
  return applyWrite(ctx, principal, {
    action: "invitation.accept",
    targetType: "invitation",
    targetId: null,
    orgId: null,
    before: null,
    after: { user_id: principal.user.id },
    apply: () => {
      const used = redeemEmailToken(ctx, "invitation", token);
      const invitation = used?.invitationId
        ? ctx.db.select().from(invitations).where(eq(invitations.id, used.invitationId)).get()
        : undefined;
      if (!invitation || invitation.status !== "pending" || invitation.email !== principal.user.email) {
        throw notFound("invitation");
      }
      const org = ctx.db.select().from(orgs).where(eq(orgs.id, invitation.orgId)).get()!;
      const existing = ctx.db
        .select()
        .from(memberships)
        .where(and(eq(memberships.orgId, org.id), eq(memberships.userId, principal.user.id)))
        .get();
      if (!existing) {
        ctx.db.insert(memberships).values({ id: newId(), orgId: org.id, userId: principal.user.id, role: invitation.role, createdAt: nowIso() }).run();
      }
      ctx.db.update(invitations).set({ status: "accepted" }).where(eq(invitations.id, invitation.id)).run();
      return orgDto(org, existing?.role ?? invitation.role);
    },
  });
}
