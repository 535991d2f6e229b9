// /app projects, environments and keys (console equivalents of the /v1 routes).
import { jsonResponse } from "../../http/errors.ts";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { orgAccess, projectAccess } from "../access.ts";
import { applyWrite } from "../services/audited-write.ts";
import {
  createdProjectResponse, getProject, listEnvironments, listProjects, planCreateProject, planDeleteProject, planRenameProject, pushProjectDeletion,
} from "../services/projects.ts";
import { listKeys, planRevokeKey, planRotateKey, planUpdateKeyAllowlist, rotatedKeysResponse, syncedKeyDtos } from "../services/keys.ts";
import {
  CreateProjectRequest, CreateProjectResponse, EnvironmentList, KeyAllowlistRequest, KeyDto, KeyList, ProjectDto, ProjectList, RenameRequest,
  RotateKeyRequest, RotateKeyResponse,
} from "../schemas.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, consoleRead, errors } from "../contract/operation.ts";
import { requireSession } from "./session-auth.ts";

export function projectRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const project = (c: Ctx) => projectAccess(ctx, requireSession(ctx, c.request), c.params.project_id!);
  return routes
    .get("/app/orgs/{org_id}/projects", consoleRead("listConsoleOrgProjects", "Projects of an organisation", ProjectList), (c) => jsonResponse(200, listProjects(ctx, orgAccess(ctx, requireSession(ctx, c.request), c.params.org_id!))))
    .post("/app/orgs/{org_id}/projects", {
      operationId: "createConsoleProject", summary: "Create a project with three environments and one public key per environment", security: "session",
      body: CreateProjectRequest, responses: { ...answer(201, "Created", CreateProjectResponse), ...errors(400, 401, 403, 404) },
    }, async (c) => {
      const access = orgAccess(ctx, requireSession(ctx, c.request), c.params.org_id!);
      const input = validateBody<typeof CreateProjectRequest.static>(CreateProjectRequest, c.body);
      const created = applyWrite(ctx, access.principal, planCreateProject(ctx, access, input));
      return jsonResponse(201, await createdProjectResponse(ctx, access, created));
    })
    .get("/app/projects/{project_id}", consoleRead("getConsoleProject", "One project", ProjectDto), (c) => jsonResponse(200, getProject(ctx, project(c))))
    .patch("/app/projects/{project_id}", {
      operationId: "renameConsoleProject", summary: "Rename a project", security: "session",
      body: RenameRequest, responses: { ...answer(200, "Project", ProjectDto), ...errors(400, 401, 403, 404) },
    }, (c) => {
      const access = project(c);
      const { name } = validateBody<typeof RenameRequest.static>(RenameRequest, c.body);
      return jsonResponse(200, applyWrite(ctx, access.principal, planRenameProject(ctx, access, name)));
    })
    .delete("/app/projects/{project_id}", {
      operationId: "deleteConsoleProject", summary: "Soft-delete a project; every key and region token is revoked", security: "session",
      responses: { ...answer(204, "Deleted"), ...errors(401, 403, 404) },
    }, async (c) => {
      const access = project(c);
      const revoked = applyWrite(ctx, access.principal, planDeleteProject(ctx, access));
      await pushProjectDeletion(ctx, access.project, revoked);
      return jsonResponse(204, undefined);
    })
    .get("/app/projects/{project_id}/environments", consoleRead("listConsoleEnvironments", "Environments of a project", EnvironmentList), (c) => jsonResponse(200, listEnvironments(ctx, project(c))))
    .get("/app/projects/{project_id}/keys", consoleRead("listConsoleKeys", "Public keys of a project", KeyList), (c) => jsonResponse(200, listKeys(ctx, project(c))))
    .patch("/app/projects/{project_id}/keys/{key_id}", {
      operationId: "updateKeyAllowlist", summary: "Origins and bundle ids allowed to send with a key (empty lists allow any)", security: "session",
      body: KeyAllowlistRequest, responses: { ...answer(200, "The key", KeyDto), ...errors(400, 401, 403, 404, 409) },
    }, async (c) => {
      const access = project(c);
      const input = validateBody<typeof KeyAllowlistRequest.static>(KeyAllowlistRequest, c.body);
      const key = applyWrite(ctx, access.principal, planUpdateKeyAllowlist(ctx, access, c.params.key_id!, input));
      return jsonResponse(200, (await syncedKeyDtos(ctx, access.project, [key.id]))[0]);
    })
    .post("/app/projects/{project_id}/keys/{key_id}/revoke", {
      operationId: "revokeConsoleKey", summary: "Revoke a public key", security: "session",
      responses: { ...answer(200, "The revoked key", KeyDto), ...errors(401, 403, 404) },
    }, async (c) => {
      const access = project(c);
      const key = applyWrite(ctx, access.principal, planRevokeKey(ctx, access, c.params.key_id!));
      return jsonResponse(200, (await syncedKeyDtos(ctx, access.project, [key.id]))[0]);
    })
    .post("/app/projects/{project_id}/keys/{key_id}/rotate", {
      operationId: "rotateConsoleKey", summary: "Replace a public key; the old one is revoked now unless keep_old is set", security: "session",
      body: RotateKeyRequest, bodyOptional: true, responses: { ...answer(200, "Replacement and replaced key", RotateKeyResponse), ...errors(400, 401, 403, 404, 409) },
    }, async (c) => {
      const access = project(c);
      const input = c.body === undefined ? {} : validateBody<typeof RotateKeyRequest.static>(RotateKeyRequest, c.body);
      const result = applyWrite(ctx, access.principal, planRotateKey(ctx, access, c.params.key_id!, input.keep_old ?? false));
      return jsonResponse(200, await rotatedKeysResponse(ctx, access.project, result));
    });
}
