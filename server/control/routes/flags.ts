// /app feature flags, their publications and flag secret keys (console paths are "not shown"
// in spec 1; they mirror the /v1 ones: docs/flags.md). Writes take `dry_run` like /v1.
import { RouteTable, type AnyElysia, type RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { projectAccess } from "../access.ts";
import { applyWrite, isDryRun, previewWrite, type WritePlan } from "../services/audited-write.ts";
import { getFlag, listFlags, planArchiveFlag, planCreateFlag, planUpdateFlag, planUpdateFlagEnvironment, publishedFlag, type FlagWriteResult } from "../flags/flags.ts";
import { listPublications } from "../flags/flag-publications.ts";
import {
  flagSecretKeyDto, listFlagSecretKeys, planCreateFlagSecretKey, planRevokeFlagSecretKey, syncFlagSecretKeys,
} from "../flags/flag-secret-keys.ts";
import { FlagCreateRequest, FlagEnvironmentUpdateRequest, FlagSecretKeyCreateRequest, FlagUpdateRequest } from "../flags/flag-schemas.ts";
import { requireSession } from "./session-auth.ts";

const query = (c: Ctx) => new URL(c.request.url).searchParams;

export function flagRoutes(app: AnyElysia, ctx: ControlContext) {
  const project = (c: Ctx) => projectAccess(ctx, requireSession(ctx, c.request), c.params.project_id!);
  /** A write: previewed with dry_run, else applied (audited) and answered by `respond`. */
  const write = async <T>(c: Ctx, plan: WritePlan<T>, respond: (result: T) => Promise<Response>) =>
    isDryRun(query(c).get("dry_run")) ? jsonResponse(200, previewWrite(plan)) : respond(applyWrite(ctx, project(c).principal, plan));
  const flagWrite = (status: number) => async (result: FlagWriteResult) => jsonResponse(status, await publishedFlag(ctx, result));
  return new RouteTable(app)
    .get("/app/projects/:project_id/flags", (c: Ctx) => jsonResponse(200, listFlags(ctx, project(c), query(c).get("include_archived") === "true")))
    .post("/app/projects/:project_id/flags", (c: Ctx) => {
      const input = validateBody<typeof FlagCreateRequest.static>(FlagCreateRequest, c.body);
      return write(c, planCreateFlag(ctx, project(c), input), flagWrite(201));
    })
    .get("/app/projects/:project_id/flags/publications", (c: Ctx) => jsonResponse(200, listPublications(ctx, project(c), query(c).get("environment"))))
    .get("/app/projects/:project_id/flags/:flag_id", (c: Ctx) => jsonResponse(200, getFlag(ctx, project(c), c.params.flag_id!)))
    .patch("/app/projects/:project_id/flags/:flag_id", (c: Ctx) => {
      const input = validateBody<typeof FlagUpdateRequest.static>(FlagUpdateRequest, c.body);
      return write(c, planUpdateFlag(ctx, project(c), c.params.flag_id!, input), flagWrite(200));
    })
    .delete("/app/projects/:project_id/flags/:flag_id", (c: Ctx) => write(c, planArchiveFlag(ctx, project(c), c.params.flag_id!), flagWrite(200)))
    .patch("/app/projects/:project_id/flags/:flag_id/environments/:environment", (c: Ctx) => {
      const input = validateBody<typeof FlagEnvironmentUpdateRequest.static>(FlagEnvironmentUpdateRequest, c.body);
      return write(c, planUpdateFlagEnvironment(ctx, project(c), c.params.flag_id!, c.params.environment!, input), flagWrite(200));
    })
    .get("/app/projects/:project_id/flag-secret-keys", (c: Ctx) => jsonResponse(200, listFlagSecretKeys(ctx, project(c))))
    .post("/app/projects/:project_id/flag-secret-keys", (c: Ctx) => {
      const access = project(c);
      const input = validateBody<typeof FlagSecretKeyCreateRequest.static>(FlagSecretKeyCreateRequest, c.body);
      return write(c, planCreateFlagSecretKey(ctx, access, input), async ({ row, secret }) => {
        await syncFlagSecretKeys(ctx, access.project, [row.id]);
        return jsonResponse(201, { key: flagSecretKeyDto(row), secret });
      });
    })
    .post("/app/projects/:project_id/flag-secret-keys/:key_id/revoke", (c: Ctx) => {
      const access = project(c);
      return write(c, planRevokeFlagSecretKey(ctx, access, c.params.key_id!), async (row) => {
        await syncFlagSecretKeys(ctx, access.project, [row.id]);
        return jsonResponse(200, flagSecretKeyDto(row));
      });
    });
}
