// The erasure certificate: a compact JWS (EdDSA, Ed25519) whose payload says what was erased
// where, naming identifiers only by their hashes (docs/erasure.md, "The certificate"). Anyone
// verifies it offline with the published JWKS; the verify route does the same check.
import { CompactSign, compactVerify, createLocalJWKSet, decodeProtectedHeader, errors } from "jose";
import type { RegionErasureReport } from "../../region/region-link.ts";
import { erasureKeyAlgorithm, type ErasureKeyRing } from "./erasure-keys.ts";

export const certificateVersion = 1;
/** The protected header's `typ`: tells a certificate from any other JWS. */
export const certificateType = "erasure-certificate+jws";

export interface ErasureCertificatePayload {
  certificate_version: number;
  issuer: string;
  request_id: string;
  project_id: string;
  data_id: number;
  region: string;
  environment: string;
  /** sha256 hex of `{project_id}:person_id:{id}` or `{project_id}:distinct_id:{id}`, sorted. */
  identifier_hashes: string[];
  persons_erased: number;
  removed: Record<string, number>;
  manifest_digest: string;
  requested_at: string;
  completed_at: string;
  issued_at: string;
}

export interface CertifiedRequest {
  issuer: string;
  requestId: string;
  projectId: string;
  dataId: number;
  region: string;
  environment: string;
  requestedAt: string;
}

export function certificatePayload(request: CertifiedRequest, report: RegionErasureReport, issuedAt: string): ErasureCertificatePayload {
  return {
    certificate_version: certificateVersion,
    issuer: request.issuer,
    request_id: request.requestId,
    project_id: request.projectId,
    data_id: request.dataId,
    region: request.region,
    environment: request.environment,
    identifier_hashes: [...report.identifier_hashes].sort(),
    persons_erased: report.persons_erased,
    removed: report.removed,
    manifest_digest: report.manifest_digest,
    requested_at: request.requestedAt,
    completed_at: report.completed_at,
    issued_at: issuedAt,
  };
}

export async function signCertificate(keys: ErasureKeyRing, payload: ErasureCertificatePayload, now = Date.now()): Promise<string> {
  const { kid, key } = await keys.current(now);
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: erasureKeyAlgorithm, kid, typ: certificateType })
    .sign(key);
}

/** The payload of a certificate this service signed (it was checked when signed). */
export const certificatePayloadOf = (certificate: string): ErasureCertificatePayload =>
  JSON.parse(Buffer.from(certificate.split(".")[1]!, "base64url").toString("utf8"));

/** Why a certificate does not verify. */
export type VerifyFailure = "malformed" | "unknown_key" | "bad_signature";

export type Verification =
  | { valid: true; kid: string; payload: ErasureCertificatePayload }
  | { valid: false; reason: VerifyFailure; message: string };

const failure = (reason: VerifyFailure, message: string): Verification => ({ valid: false, reason, message });

export async function verifyCertificate(keys: ErasureKeyRing, certificate: string): Promise<Verification> {
  // A key set of one would otherwise be tried for a header that names no key.
  try {
    if (typeof decodeProtectedHeader(certificate).kid !== "string") return failure("malformed", "the header names no kid");
  } catch {
    return failure("malformed", "not a compact JWS");
  }
  let verified: Awaited<ReturnType<typeof compactVerify>>;
  try {
    verified = await compactVerify(certificate, createLocalJWKSet(keys.jwks()), { algorithms: [erasureKeyAlgorithm] });
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey) return failure("unknown_key", "no published key has this certificate's kid");
    if (error instanceof errors.JWSSignatureVerificationFailed) return failure("bad_signature", "the signature does not match the header and payload");
    if (error instanceof errors.JOSEError) return failure("malformed", `not a compact EdDSA JWS with a kid: ${error.message}`);
    throw error;
  }
  if (verified.protectedHeader.typ !== certificateType) return failure("malformed", `the header's typ is not ${certificateType}`);
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(verified.payload));
  } catch {
    return failure("malformed", "the payload is not JSON");
  }
  if (typeof payload !== "object" || payload === null || (payload as ErasureCertificatePayload).certificate_version !== certificateVersion) {
    return failure("malformed", "the payload is not an erasure certificate");
  }
  return { valid: true, kid: verified.protectedHeader.kid!, payload: payload as ErasureCertificatePayload };
}
