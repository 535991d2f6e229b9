import { RouteTable, type AnyElysia, type RouteContext as Ctx } from "../../http/route-table.ts";
// /app/orgs: organisations, members, invitations.
import { t } from "elysia";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { orgAccess } from "../access.ts";
import { applyWrite } from "../services/audited-write.ts";
import { listOrgs, planCreateOrg, planRenameOrg } from "../services/orgs.ts";
import { createInvitation, listMembers, planChangeRole, planRemoveMember, revokeInvitation } from "../services/members.ts";
import { pushRevocations } from "../services/token-revocations.ts";
import { Name, emailLengthMax } from "../schemas.ts";
import { requireSession } from "./session-auth.ts";

const OrgNameRequest = t.Object({ name: Name }, { additionalProperties: false });
const RoleRequest = t.Object({ role: t.String() }, { additionalProperties: false });
const InviteRequest = t.Object({ email: t.String({ minLength: 1, maxLength: emailLengthMax }), role: t.String() }, { additionalProperties: false });


export function orgRoutes(app: AnyElysia, ctx: ControlContext) {
  const access = (c: Ctx) => orgAccess(ctx, requireSession(ctx, c.request), c.params.org_id!);
  return new RouteTable(app)
    .get("/app/orgs", (c: Ctx) => jsonResponse(200, listOrgs(ctx, requireSession(ctx, c.request))))
    .post("/app/orgs", (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      const { name } = validateBody<typeof OrgNameRequest.static>(OrgNameRequest, c.body);
      return jsonResponse(201, applyWrite(ctx, principal, planCreateOrg(ctx, principal, name.trim())));
    })
    .patch("/app/orgs/:org_id", (c: Ctx) => {
      const org = access(c);
      const { name } = validateBody<typeof OrgNameRequest.static>(OrgNameRequest, c.body);
      return jsonResponse(200, applyWrite(ctx, org.principal, planRenameOrg(ctx, org, name.trim())));
    })
    .get("/app/orgs/:org_id/members", (c: Ctx) => jsonResponse(200, listMembers(ctx, access(c))))
    .patch("/app/orgs/:org_id/members/:member_id", async (c: Ctx) => {
      const org = access(c);
      const { role } = validateBody<typeof RoleRequest.static>(RoleRequest, c.body);
      const member = applyWrite(ctx, org.principal, planChangeRole(ctx, org, c.params.member_id!, role));
      await pushRevocations(ctx);
      return jsonResponse(200, member);
    })
    .delete("/app/orgs/:org_id/members/:member_id", async (c: Ctx) => {
      const org = access(c);
      applyWrite(ctx, org.principal, planRemoveMember(ctx, org, c.params.member_id!));
      await pushRevocations(ctx);
      return jsonResponse(204, undefined);
    })
    .post("/app/orgs/:org_id/invitations", (c: Ctx) => {
      const org = access(c);
      const input = validateBody<typeof InviteRequest.static>(InviteRequest, c.body);
      return jsonResponse(201, createInvitation(ctx, org, input));
    })
    .delete("/app/orgs/:org_id/invitations/:invitation_id", (c: Ctx) => {
      revokeInvitation(ctx, access(c), c.params.invitation_id!);
      return jsonResponse(204, undefined);
    });
}
