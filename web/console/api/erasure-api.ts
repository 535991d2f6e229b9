// Personal-data erasure through the console API (/app/projects/{id}/erasure-requests, the same
// bodies as /v1; docs/erasure.md) and the public verify route anyone checks a certificate with.
import { requestJson } from "./http.ts";

export type ErasureStatus = "pending" | "running" | "completed" | "failed";

export interface ErasureRequest {
  id: string;
  project_id: string;
  environment: string;
  status: ErasureStatus;
  progress: { stage: string; done: number; total: number } | null;
  subject_count: number;
  persons_erased: number | null;
  /** failed: why; running: the last passing error (the region is asked again). */
  error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  certificate_url: string | null;
}

export interface CertificatePayload {
  certificate_version: number;
  issuer: string;
  request_id: string;
  project_id: string;
  data_id: number;
  region: string;
  environment: string;
  identifier_hashes: string[];
  persons_erased: number;
  removed: Record<string, number>;
  manifest_digest: string;
  requested_at: string;
  completed_at: string;
  issued_at: string;
}

export interface ErasureCertificate {
  certificate: string;
  payload: CertificatePayload;
}

export type Verification = { valid: true; kid: string; payload: CertificatePayload } | { valid: false; reason: string; message: string };

const id = encodeURIComponent;
const requests = (projectId: string) => `/app/projects/${id(projectId)}/erasure-requests`;

export const listErasures = (projectId: string, offset = 0) =>
  requestJson<{ erasure_requests: ErasureRequest[]; next_offset: number | null }>("GET", `${requests(projectId)}?offset=${offset}`);
export const erasePerson = (projectId: string, personId: string, environment: string) =>
  requestJson<ErasureRequest>("POST", requests(projectId), { environment, persons: [{ person_id: personId }] });
export const getErasure = (projectId: string, requestId: string) => requestJson<ErasureRequest>("GET", `${requests(projectId)}/${id(requestId)}`);
export const getCertificate = (projectId: string, requestId: string) => requestJson<ErasureCertificate>("GET", `${requests(projectId)}/${id(requestId)}/certificate`);
export const verifyCertificate = (certificate: string) => requestJson<Verification>("POST", "/v1/erasure-certificates/verify", { certificate });

export const isEnded = (request: ErasureRequest) => request.status === "completed" || request.status === "failed";
