// Erasure in the console (/app, session: the same bodies as /v1, for the person profile's
// "Erase this person" and the project's list of requests) and the two public routes anyone
// checks a certificate with: the JWKS and verify. None is in /openapi.json (spec 1 keeps the
// erasure routes out of the contract); docs/erasure.md describes them.
import { jsonResponse } from "../../http/errors.ts";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { unlisted, withDryRun } from "../contract/operation.ts";
import { verifyCertificate } from "../erasure/erasure-certificate.ts";
import { erasureCertificate, erasureDto, erasureOfProject, listErasures, planCreateErasure, type CertificateBase, type ErasureRow } from "../erasure/erasure-requests.ts";
import { ErasureCreateRequest, ErasureVerifyRequest, type ErasureCreateInput } from "../erasure/erasure-schemas.ts";
import { projectWrite, searchParams, sessionProjectAccess } from "./project-write.ts";

const doc = "docs/erasure.md";
export const erasureKeysPath = "/v1/erasure-certificates/keys";
export const erasureVerifyPath = "/v1/erasure-certificates/verify";

export function erasureRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const base = "/app/projects/{project_id}/erasure-requests";
  const project = (c: Ctx) => sessionProjectAccess(ctx, c);
  const certificateUrl: CertificateBase = (projectId, requestId) => `${ctx.baseUrl()}/app/projects/${projectId}/erasure-requests/${requestId}/certificate`;
  return routes
    .get(base, unlisted("listConsoleErasureRequests", "Erasure requests of a project, newest first", "session", doc), (c: Ctx) =>
      jsonResponse(200, listErasures(ctx, project(c), searchParams(c), certificateUrl)))
    .post(base, withDryRun(unlisted("createConsoleErasureRequest", "Erase up to 100 persons' data in an environment", "session", doc)), (c: Ctx) =>
      projectWrite(ctx, c, (access) => planCreateErasure(ctx, access, validateBody<ErasureCreateInput>(ErasureCreateRequest, c.body)), (row: ErasureRow) => {
        ctx.erasure.wake();
        return erasureDto(row, certificateUrl);
      }, 202))
    .get(`${base}/{erasure_id}`, unlisted("getConsoleErasureRequest", "One erasure request and its progress", "session", doc), (c: Ctx) =>
      jsonResponse(200, erasureDto(erasureOfProject(ctx, project(c), c.params.erasure_id!), certificateUrl)))
    .get(`${base}/{erasure_id}/certificate`, unlisted("getConsoleErasureCertificate", "The signed certificate of a completed erasure", "session", doc), (c: Ctx) =>
      jsonResponse(200, erasureCertificate(ctx, project(c), c.params.erasure_id!)))
    .get(erasureKeysPath, unlisted("getErasureCertificateKeys", "The keys that verify erasure certificates (JWKS), retired ones included", "none", doc), () =>
      // Public key material: any site may fetch it to verify certificates in a browser.
      jsonResponse(200, ctx.erasure.keys.jwks(), { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" }))
    .post(erasureVerifyPath, unlisted("verifyErasureCertificate", "Whether a certificate was signed by this service and is unchanged", "none", doc), async (c: Ctx) => {
      const { certificate } = validateBody<typeof ErasureVerifyRequest.static>(ErasureVerifyRequest, c.body);
      const verification = await verifyCertificate(ctx.erasure.keys, certificate);
      return jsonResponse(200, verification);
    });
}
