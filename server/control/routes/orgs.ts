// /app/orgs: organisations, members, invitations.
import { t } from "elysia";
import { jsonResponse } from "../../http/errors.ts";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { orgAccess } from "../access.ts";
import { applyWrite } from "../services/audited-write.ts";
import { listOrgs, planCreateOrg, planRenameOrg } from "../services/orgs.ts";
import { createInvitation, listMembers, planChangeRole, planRemoveMember, revokeInvitation } from "../services/members.ts";
import { pushRevocations } from "../services/token-revocations.ts";
import { Name, OrgDto, OrgList, emailLengthMax } from "../schemas.ts";
import { InvitationDto, MemberDto, MembersResponse } from "../schemas-accounts.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, consoleRead, errors } from "../contract/operation.ts";
import { requireSession } from "./session-auth.ts";

const OrgNameRequest = t.Object({ name: Name }, { title: "OrgNameRequest", additionalProperties: false });
const RoleRequest = t.Object({ role: t.String({ description: "viewer, member, admin or owner" }) }, { title: "RoleRequest", additionalProperties: false });
const InviteRequest = t.Object(
  { email: t.String({ minLength: 1, maxLength: emailLengthMax }), role: t.String({ description: "viewer, member, admin or owner" }) },
  { title: "InviteRequest", additionalProperties: false },
);

export function orgRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const access = (c: Ctx) => orgAccess(ctx, requireSession(ctx, c.request), c.params.org_id!);
  return routes
    .get("/app/orgs", {
      operationId: "listConsoleOrgs", summary: "The caller's organisations with the caller's role in each", security: "session",
      responses: { ...answer(200, "Organisations", OrgList), ...errors(401) },
    }, (c) => jsonResponse(200, listOrgs(ctx, requireSession(ctx, c.request))))
    .post("/app/orgs", {
      operationId: "createOrg", summary: "Create an organisation owned by the caller", security: "session",
      body: OrgNameRequest, responses: { ...answer(201, "Created", OrgDto), ...errors(400, 401) },
    }, (c) => {
      const principal = requireSession(ctx, c.request);
      const { name } = validateBody<typeof OrgNameRequest.static>(OrgNameRequest, c.body);
      return jsonResponse(201, applyWrite(ctx, principal, planCreateOrg(ctx, principal, name.trim())));
    })
    .patch("/app/orgs/{org_id}", {
      operationId: "renameOrg", summary: "Rename an organisation", security: "session",
      body: OrgNameRequest, responses: { ...answer(200, "Renamed", OrgDto), ...errors(400, 401, 403, 404) },
    }, (c) => {
      const org = access(c);
      const { name } = validateBody<typeof OrgNameRequest.static>(OrgNameRequest, c.body);
      return jsonResponse(200, applyWrite(ctx, org.principal, planRenameOrg(ctx, org, name.trim())));
    })
    .get("/app/orgs/{org_id}/members", consoleRead("listMembers", "Members, and pending invitations for callers who may manage members", MembersResponse), (c) =>
      jsonResponse(200, listMembers(ctx, access(c))))
    .patch("/app/orgs/{org_id}/members/{member_id}", {
      operationId: "changeMemberRole", summary: "Change a member's role; their region tokens lose what the new role lacks", security: "session",
      body: RoleRequest, responses: { ...answer(200, "The member", MemberDto), ...errors(400, 401, 403, 404, 409) },
    }, async (c) => {
      const org = access(c);
      const { role } = validateBody<typeof RoleRequest.static>(RoleRequest, c.body);
      const member = applyWrite(ctx, org.principal, planChangeRole(ctx, org, c.params.member_id!, role));
      await pushRevocations(ctx);
      return jsonResponse(200, member);
    })
    .delete("/app/orgs/{org_id}/members/{member_id}", {
      operationId: "removeMember", summary: "Remove a member (or leave); their region tokens are refused at once", security: "session",
      responses: { ...answer(204, "Removed"), ...errors(401, 403, 404, 409) },
    }, async (c) => {
      const org = access(c);
      applyWrite(ctx, org.principal, planRemoveMember(ctx, org, c.params.member_id!));
      await pushRevocations(ctx);
      return jsonResponse(204, undefined);
    })
    .post("/app/orgs/{org_id}/invitations", {
      operationId: "inviteMember", summary: "Invite an address with a role (mailed)", security: "session",
      body: InviteRequest, responses: { ...answer(201, "Invited", InvitationDto), ...errors(400, 401, 403, 404, 409) },
    }, (c) => {
      const org = access(c);
      const input = validateBody<typeof InviteRequest.static>(InviteRequest, c.body);
      return jsonResponse(201, createInvitation(ctx, org, input));
    })
    .delete("/app/orgs/{org_id}/invitations/{invitation_id}", {
      operationId: "revokeInvitation", summary: "Revoke a pending invitation", security: "session",
      responses: { ...answer(204, "Revoked"), ...errors(401, 403, 404) },
    }, (c) => {
      revokeInvitation(ctx, access(c), c.params.invitation_id!);
      return jsonResponse(204, undefined);
    });
}
