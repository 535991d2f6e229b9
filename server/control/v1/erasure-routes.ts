// /v1 personal-data erasure (spec 1: "Erasure: GET and POST …/erasure-requests; GET
// …/erasure-requests/{id}; GET …/erasure-requests/{id}/certificate", scope persons.erase).
// Served, but absent from /openapi.json as the spec says; bodies in docs/erasure.md.
import type { ControlContext } from "../context.ts";
import { projectAccess } from "../access.ts";
import { erasureCertificate, erasureDto, erasureOfProject, erasureScope, listErasures, planCreateErasure, type CertificateBase, type ErasureRow } from "../erasure/erasure-requests.ts";
import { ErasureCreateRequest } from "../erasure/erasure-schemas.ts";
import type { V1Call, V1Route } from "./route.ts";

const answered = { 200: { description: "See docs/erasure.md" } };

export function v1ErasureRoutes(ctx: ControlContext): V1Route[] {
  const base = { contract: false as const, responses: answered, scope: erasureScope };
  const path = "/v1/projects/{project_id}/erasure-requests";
  const access = (call: V1Call) => projectAccess(ctx, call.principal, call.params.project_id!);
  const certificateUrl: CertificateBase = (projectId, requestId) => `${ctx.baseUrl()}/v1/projects/${projectId}/erasure-requests/${requestId}/certificate`;
  return [
    { ...base, method: "GET", path, operationId: "listErasureRequests", summary: "Erasure requests of a project, newest first", write: false,
      handle: (call) => ({ status: 200, body: listErasures(ctx, access(call), call.query, certificateUrl) }) },
    { ...base, method: "POST", path, operationId: "createErasureRequest", summary: "Erase up to 100 persons' data in an environment", write: true, body: ErasureCreateRequest,
      handle: (call) => ({
        plan: planCreateErasure(ctx, access(call), call.body),
        respond: (row: ErasureRow) => {
          ctx.erasure.wake();
          return { status: 202, body: erasureDto(row, certificateUrl) };
        },
      }) },
    { ...base, method: "GET", path: `${path}/{erasure_id}`, operationId: "getErasureRequest", summary: "One erasure request and its progress", write: false,
      handle: (call) => ({ status: 200, body: erasureDto(erasureOfProject(ctx, access(call), call.params.erasure_id!), certificateUrl) }) },
    { ...base, method: "GET", path: `${path}/{erasure_id}/certificate`, operationId: "getErasureCertificate", summary: "The signed certificate of a completed erasure", write: false,
      handle: (call) => ({ status: 200, body: erasureCertificate(ctx, access(call), call.params.erasure_id!) }) },
  ];
}
