import { RouteTable, type AnyElysia, type RouteContext as Ctx } from "../../http/route-table.ts";
// /app projects, environments and keys (console equivalents of the /v1 routes).
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { orgAccess, projectAccess } from "../access.ts";
import { applyWrite } from "../services/audited-write.ts";
import {
  createdProjectResponse, getProject, listEnvironments, listProjects, planCreateProject, planDeleteProject, planRenameProject, pushProjectDeletion,
} from "../services/projects.ts";
import { listKeys, planRevokeKey, planRotateKey, planUpdateKeyAllowlist, rotatedKeysResponse, syncedKeyDtos } from "../services/keys.ts";
import { CreateProjectRequest, KeyAllowlistRequest, RenameRequest, RotateKeyRequest } from "../schemas.ts";
import { requireSession } from "./session-auth.ts";


export function projectRoutes(app: AnyElysia, ctx: ControlContext) {
  const project = (c: Ctx) => projectAccess(ctx, requireSession(ctx, c.request), c.params.project_id!);
  return new RouteTable(app)
    .get("/app/orgs/:org_id/projects", (c: Ctx) =>
      jsonResponse(200, listProjects(ctx, orgAccess(ctx, requireSession(ctx, c.request), c.params.org_id!))),
    )
    .post("/app/orgs/:org_id/projects", async (c: Ctx) => {
      const access = orgAccess(ctx, requireSession(ctx, c.request), c.params.org_id!);
      const input = validateBody<typeof CreateProjectRequest.static>(CreateProjectRequest, c.body);
      const created = applyWrite(ctx, access.principal, planCreateProject(ctx, access, input));
      return jsonResponse(201, await createdProjectResponse(ctx, access, created));
    })
    .get("/app/projects/:project_id", (c: Ctx) => jsonResponse(200, getProject(ctx, project(c))))
    .patch("/app/projects/:project_id", (c: Ctx) => {
      const access = project(c);
      const { name } = validateBody<typeof RenameRequest.static>(RenameRequest, c.body);
      return jsonResponse(200, applyWrite(ctx, access.principal, planRenameProject(ctx, access, name)));
    })
    .delete("/app/projects/:project_id", async (c: Ctx) => {
      const access = project(c);
      const revoked = applyWrite(ctx, access.principal, planDeleteProject(ctx, access));
      await pushProjectDeletion(ctx, access.project, revoked);
      return jsonResponse(204, undefined);
    })
    .get("/app/projects/:project_id/environments", (c: Ctx) => jsonResponse(200, listEnvironments(ctx, project(c))))
    .get("/app/projects/:project_id/keys", (c: Ctx) => jsonResponse(200, listKeys(ctx, project(c))))
    .patch("/app/projects/:project_id/keys/:key_id", async (c: Ctx) => {
      const access = project(c);
      const input = validateBody<typeof KeyAllowlistRequest.static>(KeyAllowlistRequest, c.body);
      const key = applyWrite(ctx, access.principal, planUpdateKeyAllowlist(ctx, access, c.params.key_id!, input));
      return jsonResponse(200, (await syncedKeyDtos(ctx, access.project, [key.id]))[0]);
    })
    .post("/app/projects/:project_id/keys/:key_id/revoke", async (c: Ctx) => {
      const access = project(c);
      const key = applyWrite(ctx, access.principal, planRevokeKey(ctx, access, c.params.key_id!));
      return jsonResponse(200, (await syncedKeyDtos(ctx, access.project, [key.id]))[0]);
    })
    .post("/app/projects/:project_id/keys/:key_id/rotate", async (c: Ctx) => {
      const access = project(c);
      const input = c.body === undefined ? {} : validateBody<typeof RotateKeyRequest.static>(RotateKeyRequest, c.body);
      const result = applyWrite(ctx, access.principal, planRotateKey(ctx, access, c.params.key_id!, input.keep_old ?? false));
      return jsonResponse(200, await rotatedKeysResponse(ctx, access.project, result));
    });
}
