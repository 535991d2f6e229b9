// /app annotations (spec 1's console table). The list's window and kind are query parameters
// (the contract calls them path parameters, but the path has no such segments).
import { t } from "elysia";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors, withDryRun, type OperationDoc } from "../contract/operation.ts";
import { pageParameters } from "./list-docs.ts";
import { AnnotationCreateRequest, AnnotationDto, AnnotationListResponse, AnnotationUpdateRequest, systemKinds, userKinds } from "../annotations/annotation-schemas.ts";
import { listAnnotations, planCreateAnnotation, planDeleteAnnotation, planUpdateAnnotation } from "../annotations/annotations.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";

const listParameters: OperationDoc["parameters"] = [
  { name: "from", in: "query", description: "RFC 3339; default 90 days ago", schema: t.String() },
  { name: "to", in: "query", description: "RFC 3339, exclusive; default now plus one day", schema: t.String() },
  { name: "kind", in: "query", description: "only this kind", schema: t.Union([...userKinds, ...systemKinds].map((kind) => t.Literal(kind))) },
  ...pageParameters,
];

type Status = Parameters<typeof errors>[number];
const doc = (operationId: string, summary: string, status: number, failures: Status[], more: Partial<OperationDoc> = {}): OperationDoc => ({
  operationId, summary, security: "session", ...more,
  responses: { ...answer(status, status === 204 ? "Deleted" : summary, status === 204 ? undefined : AnnotationDto), ...errors(401, ...failures) },
});

export function annotationRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const base = "/app/projects/{project_id}/annotations";
  const same = <T>(result: T) => result;
  return routes
    .get(base, {
      operationId: "listAnnotations", summary: "Annotations of a time window, oldest first", security: "session", parameters: listParameters,
      responses: { ...answer(200, "A page of annotations", AnnotationListResponse), ...errors(400, 401, 403, 404) },
    }, (c: Ctx) => jsonResponse(200, listAnnotations(ctx, sessionProjectAccess(ctx, c), searchParams(c))))
    .post(base, withDryRun(doc("createAnnotation", "Annotate a moment", 201, [400, 403, 404], { body: AnnotationCreateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateAnnotation(ctx, access, validateBody<typeof AnnotationCreateRequest.static>(AnnotationCreateRequest, c.body)), same, 201))
    .patch(`${base}/{annotation_id}`, withDryRun(doc("updateAnnotation", "Change an annotation (not a system one)", 200, [400, 403, 404, 409], { body: AnnotationUpdateRequest })), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planUpdateAnnotation(ctx, access, c.params.annotation_id!, validateBody<typeof AnnotationUpdateRequest.static>(AnnotationUpdateRequest, c.body)), same))
    .delete(`${base}/{annotation_id}`, withDryRun(doc("deleteAnnotation", "Delete an annotation (not a system one)", 204, [403, 404, 409])), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planDeleteAnnotation(ctx, access, c.params.annotation_id!), () => undefined, 204));
}
