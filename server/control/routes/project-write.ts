// A console write on a project, as the flag and experiment routes make them: the caller's
// access is read once, the plan is made with it, and `?dry_run=true` previews the plan (the
// audit action with before and after; nothing changes) instead of applying it with its audit row.
import { jsonResponse } from "../../http/errors.ts";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import type { ControlContext } from "../context.ts";
import { projectAccess, type ProjectAccess } from "../access.ts";
import { applyWrite, isDryRun, previewWrite, type WritePlan } from "../services/audited-write.ts";
import { requireSession } from "./session-auth.ts";

export const searchParams = (c: Ctx) => new URL(c.request.url).searchParams;

/** The session's access to the route's project (404 when it cannot see it). */
export const sessionProjectAccess = (ctx: ControlContext, c: Ctx): ProjectAccess => projectAccess(ctx, requireSession(ctx, c.request), c.params.project_id!);

/** Applies (or previews) `plan(access)` and answers `respond`'s body with `status` (a plan may read first, as a ship reads results). */
export async function projectWrite<T>(
  ctx: ControlContext,
  c: Ctx,
  plan: (access: ProjectAccess) => WritePlan<T> | Promise<WritePlan<T>>,
  respond: (result: T, access: ProjectAccess) => unknown,
  status = 200,
): Promise<Response> {
  const access = sessionProjectAccess(ctx, c);
  const planned = await plan(access);
  if (isDryRun(searchParams(c).get("dry_run"))) return jsonResponse(200, previewWrite(planned));
  return jsonResponse(status, await respond(applyWrite(ctx, access.principal, planned), access));
}
