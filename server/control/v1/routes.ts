// The /v1 table of spec 1 (except catalog/codegen and integrations, which later issues
// add). Scopes here are the contract; services enforce them after the tenancy check.
import type { ControlContext } from "../context.ts";
import * as S from "../schemas.ts";
import { orgAccess, projectAccess, requireScope } from "../access.ts";
import { orgDto, tokenDto, userDto } from "../dto.ts";
import { sortScopes } from "../auth/scopes.ts";
import { listOrgs } from "../services/orgs.ts";
import { type CreatedProject, createdProjectResponse, getProject, listEnvironments, listProjects, planCreateProject, planDeleteProject, planRenameProject, pushProjectDeletion } from "../services/projects.ts";
import { listKeys, planRevokeKey, planRotateKey, rotatedKeysResponse, syncedKeyDtos } from "../services/keys.ts";
import { issueRegionToken } from "../services/region-tokens.ts";
import { prepareRegionQuery } from "../services/region-queries.ts";
import type { V1Route } from "./route.ts";
import { errors } from "../contract/operation.ts";

export function v1Routes(ctx: ControlContext): V1Route[] {
  return [
    {
      method: "GET", path: "/v1/me", operationId: "getMe", summary: "The calling token, its user and its effective scopes",
      scope: null, write: false,
      responses: { 200: { description: "The token", schema: S.V1MeResponse }, ...errors(401, 429) },
      handle: ({ principal }) => {
        const access = orgAccess(ctx, principal, principal.token.orgId);
        return {
          status: 200,
          body: { token: tokenDto(principal.token), user: userDto(principal.user), org: orgDto(access.org, access.role), scopes: sortScopes(access.scopes) },
        };
      },
    },
    {
      method: "GET", path: "/v1/orgs", operationId: "listOrgs", summary: "The token's organisation",
      scope: "org:read", write: false,
      responses: { 200: { description: "Organisations", schema: S.OrgList }, ...errors(401, 403, 429) },
      handle: ({ principal }) => {
        requireScope(orgAccess(ctx, principal, principal.token.orgId), "org:read");
        return { status: 200, body: listOrgs(ctx, principal) };
      },
    },
    {
      method: "GET", path: "/v1/orgs/{org_id}", operationId: "getOrg", summary: "One organisation",
      scope: "org:read", write: false,
      responses: { 200: { description: "Organisation", schema: S.OrgDto }, ...errors(401, 403, 404, 429) },
      handle: ({ principal, params }) => {
        const access = orgAccess(ctx, principal, params.org_id!);
        requireScope(access, "org:read");
        return { status: 200, body: orgDto(access.org, access.role) };
      },
    },
    {
      method: "GET", path: "/v1/orgs/{org_id}/projects", operationId: "listOrgProjects", summary: "Projects of an organisation",
      scope: "projects:read", write: false,
      responses: { 200: { description: "Projects", schema: S.ProjectList }, ...errors(401, 403, 404, 429) },
      handle: ({ principal, params }) => ({ status: 200, body: listProjects(ctx, orgAccess(ctx, principal, params.org_id!)) }),
    },
    {
      method: "POST", path: "/v1/orgs/{org_id}/projects", operationId: "createProject",
      summary: "Create a project with three environments and one public key per environment",
      scope: "projects:write", write: true, body: S.CreateProjectRequest,
      responses: { 201: { description: "Created", schema: S.CreateProjectResponse }, ...errors(400, 401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params, body }) => {
        const access = orgAccess(ctx, principal, params.org_id!);
        return {
          plan: planCreateProject(ctx, access, body),
          respond: async (created: CreatedProject) => ({ status: 201, body: await createdProjectResponse(ctx, access, created) }),
        };
      },
    },
    {
      method: "GET", path: "/v1/projects", operationId: "listProjects", summary: "Projects the token can read",
      scope: "projects:read", write: false,
      responses: { 200: { description: "Projects", schema: S.ProjectList }, ...errors(401, 403, 429) },
      handle: ({ principal }) => ({ status: 200, body: listProjects(ctx, orgAccess(ctx, principal, principal.token.orgId)) }),
    },
    {
      method: "GET", path: "/v1/projects/{project_id}", operationId: "getProject", summary: "One project",
      scope: "projects:read", write: false,
      responses: { 200: { description: "Project", schema: S.ProjectDto }, ...errors(401, 403, 404, 429) },
      handle: ({ principal, params }) => ({ status: 200, body: getProject(ctx, projectAccess(ctx, principal, params.project_id!)) }),
    },
    {
      method: "PATCH", path: "/v1/projects/{project_id}", operationId: "renameProject", summary: "Rename a project",
      scope: "projects:write", write: true, body: S.RenameRequest,
      responses: { 200: { description: "Project", schema: S.ProjectDto }, ...errors(400, 401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params, body }) => {
        const access = projectAccess(ctx, principal, params.project_id!);
        return { plan: planRenameProject(ctx, access, body.name), respond: (project) => ({ status: 200, body: project }) };
      },
    },
    {
      method: "DELETE", path: "/v1/projects/{project_id}", operationId: "deleteProject", summary: "Soft-delete a project and revoke every key",
      scope: "projects:write", write: true,
      responses: { 204: { description: "Deleted" }, ...errors(401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params }) => {
        const access = projectAccess(ctx, principal, params.project_id!);
        return {
          plan: planDeleteProject(ctx, access),
          respond: async (revokedKeyIds) => {
            await pushProjectDeletion(ctx, access.project, revokedKeyIds);
            return { status: 204 };
          },
        };
      },
    },
    {
      method: "GET", path: "/v1/projects/{project_id}/environments", operationId: "listEnvironments", summary: "Environments of a project",
      scope: "projects:read", write: false,
      responses: { 200: { description: "Environments", schema: S.EnvironmentList }, ...errors(401, 403, 404, 429) },
      handle: ({ principal, params }) => ({ status: 200, body: listEnvironments(ctx, projectAccess(ctx, principal, params.project_id!)) }),
    },
    {
      method: "GET", path: "/v1/projects/{project_id}/keys", operationId: "listKeys", summary: "Public keys of a project",
      scope: "projects:read", write: false,
      responses: { 200: { description: "Keys", schema: S.KeyList }, ...errors(401, 403, 404, 429) },
      handle: ({ principal, params }) => ({ status: 200, body: listKeys(ctx, projectAccess(ctx, principal, params.project_id!)) }),
    },
    {
      method: "POST", path: "/v1/projects/{project_id}/keys/{key_id}/revoke", operationId: "revokeKey", summary: "Revoke a public key",
      scope: "projects:write", write: true,
      responses: { 200: { description: "The revoked key", schema: S.KeyDto }, ...errors(401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params }) => {
        const access = projectAccess(ctx, principal, params.project_id!);
        return {
          plan: planRevokeKey(ctx, access, params.key_id!),
          respond: async (key) => ({ status: 200, body: (await syncedKeyDtos(ctx, access.project, [key.id]))[0] }),
        };
      },
    },
    {
      method: "POST", path: "/v1/projects/{project_id}/keys/{key_id}/rotate", operationId: "rotateKey",
      summary: "Replace a public key; the old one is revoked now unless keep_old is set",
      scope: "projects:write", write: true, body: S.RotateKeyRequest, bodyOptional: true,
      responses: { 200: { description: "Replacement and replaced key", schema: S.RotateKeyResponse }, ...errors(400, 401, 403, 404, 409, 422, 429) },
      handle: ({ principal, params, body }) => {
        const access = projectAccess(ctx, principal, params.project_id!);
        return {
          plan: planRotateKey(ctx, access, params.key_id!, body?.keep_old ?? false),
          respond: async (result) => ({ status: 200, body: await rotatedKeysResponse(ctx, access.project, result) }),
        };
      },
    },
    {
      method: "POST", path: "/v1/projects/{project_id}/region-token", operationId: "createRegionToken",
      summary: "A short-lived EdDSA token for the project's region API",
      scope: null, write: false, body: S.RegionTokenRequest, bodyOptional: true,
      responses: { 200: { description: "Region token", schema: S.RegionTokenResponse }, ...errors(400, 401, 403, 404, 429) },
      handle: async ({ principal, params, body }) => ({
        status: 200,
        body: await issueRegionToken(ctx, projectAccess(ctx, principal, params.project_id!), body),
      }),
    },
    {
      // A read, not a W route: nothing changes, so dry_run and Idempotency-Key do not apply.
      method: "POST", path: "/v1/projects/{project_id}/query", operationId: "prepareQuery",
      summary: "Validate a Query IR document; returns a query:read region token and the exact region request to send",
      scope: "query:read", write: false, body: S.V1QueryRequest,
      responses: { 200: { description: "Region token and region request", schema: S.V1QueryResponse }, ...errors(400, 401, 403, 404, 429) },
      handle: async ({ principal, params, body }) => ({
        status: 200,
        body: await prepareRegionQuery(ctx, projectAccess(ctx, principal, params.project_id!), body),
      }),
    },
  ];
}
