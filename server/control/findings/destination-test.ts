// "Send test" of a findings destination: the region (which holds the URL and delivers) sends
// one test message now through its findings dispatcher and reports the attempt. The project's
// configuration is pushed first, so a destination created or changed a moment ago is the one
// tested. Nothing changes, so nothing is audited and there is no dry run (docs/findings.md).
import type { RegionCode } from "../../config.ts";
import { ApiError, unavailable } from "../../http/errors.ts";
import { RegionRefusal } from "../../region/region-link.ts";
import type { TestDeliveryResult } from "../../findings/findings-types.ts";
import type { ControlContext } from "../context.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import { destinationOfProject } from "./destinations.ts";
import { pushFindingsProject, requireRegionServed } from "./findings-sync.ts";

export const deliveryAttemptDto = (attempt: TestDeliveryResult) => ({
  destination_id: attempt.destinationId,
  attempt: attempt.attempt,
  at: attempt.at,
  status: attempt.status,
  ok: attempt.ok,
  error: attempt.error,
  duration_ms: attempt.durationMs,
});

export async function testDestination(ctx: ControlContext, access: ProjectAccess, destinationId: string) {
  const row = destinationOfProject(ctx, access, destinationId);
  requireScope(access, "alerts:write");
  requireRegionServed(ctx, access.project);
  const region = access.project.region;
  if (!(await pushFindingsProject(ctx, access.project))) throw unavailable(`region ${region} cannot be reached`);
  try {
    const attempt = await ctx.regions.get(region as RegionCode)!.testFindingsDestination(access.project.id, row.id);
    return { attempt: deliveryAttemptDto(attempt) };
  } catch (error) {
    if (error instanceof RegionRefusal) throw new ApiError(error.status, error.code, error.message);
    console.error(`findings test send in region ${region} failed:`, error);
    throw unavailable(`region ${region} cannot be reached`);
  }
}
