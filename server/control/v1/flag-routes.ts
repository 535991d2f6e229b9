// /v1 feature flags (spec 1: "Flags: GET, POST …/flags; GET, PATCH, DELETE …/flags/{flag_id};
// PATCH …/flags/{flag_id}/environments/{environment}; GET …/flags/publications", same bodies
// as the console), plus flag secret keys at the console's paths. Served, but absent from
// /openapi.json as the spec says.
import type { ControlContext } from "../context.ts";
import { projectAccess } from "../access.ts";
import { getFlag, listFlags, planArchiveFlag, planCreateFlag, planUpdateFlag, planUpdateFlagEnvironment, publishedFlag, type FlagWriteResult } from "../flags/flags.ts";
import { listPublications } from "../flags/flag-publications.ts";
import {
  flagSecretKeyDto, listFlagSecretKeys, planCreateFlagSecretKey, planRevokeFlagSecretKey, syncFlagSecretKeys, type CreatedFlagSecretKey,
} from "../flags/flag-secret-keys.ts";
import { FlagCreateRequest, FlagEnvironmentUpdateRequest, FlagSecretKeyCreateRequest, FlagUpdateRequest } from "../flags/flag-schemas.ts";
import type { V1Route } from "./route.ts";

const answered = { 200: { description: "See docs/flags.md" } };
const flagReply = (ctx: ControlContext, status: number) => async (result: FlagWriteResult) => ({ status, body: await publishedFlag(ctx, result) });

export function v1FlagRoutes(ctx: ControlContext): V1Route[] {
  const base = { contract: false as const, responses: answered };
  return [
    {
      ...base, method: "GET", path: "/v1/projects/{project_id}/flags", operationId: "listFlags", summary: "Flags of a project", scope: "flags:read", write: false,
      handle: ({ principal, params, query }) => ({ status: 200, body: listFlags(ctx, projectAccess(ctx, principal, params.project_id!), query.get("include_archived") === "true") }),
    },
    {
      ...base, method: "POST", path: "/v1/projects/{project_id}/flags", operationId: "createFlag", summary: "Create a flag", scope: "flags:write", write: true, body: FlagCreateRequest,
      handle: ({ principal, params, body }) => ({ plan: planCreateFlag(ctx, projectAccess(ctx, principal, params.project_id!), body), respond: flagReply(ctx, 201) }),
    },
    {
      ...base, method: "GET", path: "/v1/projects/{project_id}/flags/publications", operationId: "listFlagPublications", summary: "Publications of the project's flags", scope: "flags:read", write: false,
      handle: ({ principal, params, query }) => ({ status: 200, body: listPublications(ctx, projectAccess(ctx, principal, params.project_id!), query.get("environment")) }),
    },
    {
      ...base, method: "GET", path: "/v1/projects/{project_id}/flags/{flag_id}", operationId: "getFlag", summary: "One flag", scope: "flags:read", write: false,
      handle: ({ principal, params }) => ({ status: 200, body: getFlag(ctx, projectAccess(ctx, principal, params.project_id!), params.flag_id!) }),
    },
    {
      ...base, method: "PATCH", path: "/v1/projects/{project_id}/flags/{flag_id}", operationId: "updateFlag", summary: "Rename, describe, tag or hand over a flag", scope: "flags:write", write: true, body: FlagUpdateRequest,
      handle: ({ principal, params, body }) => ({ plan: planUpdateFlag(ctx, projectAccess(ctx, principal, params.project_id!), params.flag_id!, body), respond: flagReply(ctx, 200) }),
    },
    {
      ...base, method: "DELETE", path: "/v1/projects/{project_id}/flags/{flag_id}", operationId: "archiveFlag", summary: "Archive a flag (no longer served)", scope: "flags:write", write: true,
      handle: ({ principal, params }) => ({ plan: planArchiveFlag(ctx, projectAccess(ctx, principal, params.project_id!), params.flag_id!), respond: flagReply(ctx, 200) }),
    },
    {
      ...base, method: "PATCH", path: "/v1/projects/{project_id}/flags/{flag_id}/environments/{environment}", operationId: "updateFlagEnvironment",
      summary: "Change a flag's configuration in one environment", scope: "flags:write", write: true, body: FlagEnvironmentUpdateRequest,
      handle: ({ principal, params, body }) => ({
        plan: planUpdateFlagEnvironment(ctx, projectAccess(ctx, principal, params.project_id!), params.flag_id!, params.environment!, body),
        respond: flagReply(ctx, 200),
      }),
    },
    {
      ...base, method: "GET", path: "/v1/projects/{project_id}/flag-secret-keys", operationId: "listFlagSecretKeys", summary: "Flag secret keys (by prefix)", scope: "flags:read", write: false,
      handle: ({ principal, params }) => ({ status: 200, body: listFlagSecretKeys(ctx, projectAccess(ctx, principal, params.project_id!)) }),
    },
    {
      ...base, method: "POST", path: "/v1/projects/{project_id}/flag-secret-keys", operationId: "createFlagSecretKey", summary: "Create a flag secret key (shown once)",
      scope: "flags:write", write: true, body: FlagSecretKeyCreateRequest,
      handle: ({ principal, params, body }) => {
        const access = projectAccess(ctx, principal, params.project_id!);
        return {
          plan: planCreateFlagSecretKey(ctx, access, body),
          respond: async ({ row, secret }: CreatedFlagSecretKey) => {
            await syncFlagSecretKeys(ctx, access.project, [row.id]);
            return { status: 201, body: { key: flagSecretKeyDto(row), secret } };
          },
        };
      },
    },
    {
      ...base, method: "POST", path: "/v1/projects/{project_id}/flag-secret-keys/{key_id}/revoke", operationId: "revokeFlagSecretKey", summary: "Revoke a flag secret key",
      scope: "flags:write", write: true,
      handle: ({ principal, params }) => {
        const access = projectAccess(ctx, principal, params.project_id!);
        return {
          plan: planRevokeFlagSecretKey(ctx, access, params.key_id!),
          respond: async (row: Awaited<ReturnType<ReturnType<typeof planRevokeFlagSecretKey>["apply"]>>) => {
            await syncFlagSecretKeys(ctx, access.project, [row.id]);
            return { status: 200, body: flagSecretKeyDto(row) };
          },
        };
      },
    },
  ];
}
