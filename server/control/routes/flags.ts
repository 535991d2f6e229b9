// /app feature flags, their publications and flag secret keys (console paths are "not shown"
// in spec 1; they mirror the /v1 ones: docs/flags.md). Writes take `dry_run` like /v1.
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { getFlag, listFlags, planArchiveFlag, planCreateFlag, planUpdateFlag, planUpdateFlagEnvironment, publishedFlag, type FlagWriteResult } from "../flags/flags.ts";
import { listPublications } from "../flags/flag-publications.ts";
import {
  flagSecretKeyDto, listFlagSecretKeys, planCreateFlagSecretKey, planRevokeFlagSecretKey, syncFlagSecretKeys,
} from "../flags/flag-secret-keys.ts";
import { FlagCreateRequest, FlagEnvironmentUpdateRequest, FlagSecretKeyCreateRequest, FlagUpdateRequest } from "../flags/flag-schemas.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { unlisted } from "../contract/operation.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";

const flagDoc = (operationId: string, summary: string) => unlisted(operationId, summary, "session", "docs/flags.md");

export function flagRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const project = (c: Ctx) => sessionProjectAccess(ctx, c);
  const flagBody = (result: FlagWriteResult) => publishedFlag(ctx, result);
  return routes
    .get("/app/projects/{project_id}/flags", flagDoc("listConsoleFlags", "Flags of a project"), (c: Ctx) => jsonResponse(200, listFlags(ctx, project(c), searchParams(c).get("include_archived") === "true")))
    .post("/app/projects/{project_id}/flags", flagDoc("createConsoleFlag", "Create a flag"), (c: Ctx) => {
      const input = validateBody<typeof FlagCreateRequest.static>(FlagCreateRequest, c.body);
      return projectWrite(ctx, c, (access) => planCreateFlag(ctx, access, input), flagBody, 201);
    })
    .get("/app/projects/{project_id}/flags/publications", flagDoc("listConsoleFlagPublications", "Publications of the project's flags"), (c: Ctx) => jsonResponse(200, listPublications(ctx, project(c), searchParams(c).get("environment"))))
    .get("/app/projects/{project_id}/flags/{flag_id}", flagDoc("getConsoleFlag", "One flag"), (c: Ctx) => jsonResponse(200, getFlag(ctx, project(c), c.params.flag_id!)))
    .patch("/app/projects/{project_id}/flags/{flag_id}", flagDoc("updateConsoleFlag", "Rename, describe, tag or hand over a flag"), (c: Ctx) => {
      const input = validateBody<typeof FlagUpdateRequest.static>(FlagUpdateRequest, c.body);
      return projectWrite(ctx, c, (access) => planUpdateFlag(ctx, access, c.params.flag_id!, input), flagBody);
    })
    .delete("/app/projects/{project_id}/flags/{flag_id}", flagDoc("archiveConsoleFlag", "Archive a flag"), (c: Ctx) => projectWrite(ctx, c, (access) => planArchiveFlag(ctx, access, c.params.flag_id!), flagBody))
    .patch("/app/projects/{project_id}/flags/{flag_id}/environments/{environment}", flagDoc("updateConsoleFlagEnvironment", "A flag's configuration in one environment"), (c: Ctx) => {
      const input = validateBody<typeof FlagEnvironmentUpdateRequest.static>(FlagEnvironmentUpdateRequest, c.body);
      return projectWrite(ctx, c, (access) => planUpdateFlagEnvironment(ctx, access, c.params.flag_id!, c.params.environment!, input), flagBody);
    })
    .get("/app/projects/{project_id}/flag-secret-keys", flagDoc("listConsoleFlagSecretKeys", "Flag secret keys of a project"), (c: Ctx) => jsonResponse(200, listFlagSecretKeys(ctx, project(c))))
    .post("/app/projects/{project_id}/flag-secret-keys", flagDoc("createConsoleFlagSecretKey", "Create a flag secret key; the secret is shown once"), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateFlagSecretKey(ctx, access, validateBody<typeof FlagSecretKeyCreateRequest.static>(FlagSecretKeyCreateRequest, c.body)),
        async ({ row, secret }, access) => {
          await syncFlagSecretKeys(ctx, access.project, [row.id]);
          return { key: flagSecretKeyDto(row), secret };
        }, 201))
    .post("/app/projects/{project_id}/flag-secret-keys/{key_id}/revoke", flagDoc("revokeConsoleFlagSecretKey", "Revoke a flag secret key"), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planRevokeFlagSecretKey(ctx, access, c.params.key_id!), async (row, access) => {
        await syncFlagSecretKeys(ctx, access.project, [row.id]);
        return flagSecretKeyDto(row);
      }));
}
