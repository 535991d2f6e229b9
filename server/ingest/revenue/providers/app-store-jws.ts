// App Store signed data: a compact JWS (ES256) whose `x5c` header carries the certificate chain
// that x509-chain.ts checks; the signature is then checked with the leaf's key. Notifications
// (`signedPayload`) and the transaction and renewal infos inside them are signed the same way.
import { verify, type X509Certificate } from "node:crypto";
import { WebhookAuthError } from "../provider.ts";
import { isPlainObject, numberAt, type JsonObject } from "./drafts.ts";
import { verifyAppleChain } from "./x509-chain.ts";

/** Bound of one signed value (Apple's notifications are a few KB; the chain alone is ~4 KB). */
export const appStoreJwsCharsMax = 256 * 1024;
/** ES256 signatures are r || s, 32 bytes each. */
const es256SignatureBytes = 64;
const base64Url = /^[A-Za-z0-9_-]+$/;

function decodePart(part: string, what: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw new WebhookAuthError("bad_signature", `${what} is not a JWS (a part is not base64url JSON)`);
  }
  if (!isPlainObject(parsed)) throw new WebhookAuthError("bad_signature", `${what} is not a JWS (a part is not a JSON object)`);
  return parsed;
}

/**
 * The payload of `jws` once its chain ends at one of `trustedRoots` and its signature holds.
 * Certificates are checked at the payload's `signedDate` (`fallbackTime` when it has none).
 */
export function verifyAppStoreJws(jws: unknown, trustedRoots: readonly X509Certificate[], fallbackTime: number, what: string): JsonObject {
  if (typeof jws !== "string" || jws.length > appStoreJwsCharsMax) throw new WebhookAuthError("bad_signature", `${what} is not a JWS`);
  const parts = jws.split(".");
  if (parts.length !== 3 || !parts.every((part) => base64Url.test(part))) throw new WebhookAuthError("bad_signature", `${what} is not a compact JWS`);
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = decodePart(encodedHeader, what);
  if (header.alg !== "ES256") throw new WebhookAuthError("bad_signature", `${what} is not signed with ES256`);
  // The payload is read before it is trusted only for the instant the chain must hold at.
  const payload = decodePart(encodedPayload, what);
  const signedAt = numberAt(payload, "signedDate") ?? fallbackTime;
  let key;
  try {
    key = verifyAppleChain(header.x5c, trustedRoots, signedAt);
  } catch (error) {
    if (error instanceof WebhookAuthError) throw new WebhookAuthError(error.reason, `${what}: ${error.message}`);
    throw error;
  }
  const signature = Buffer.from(encodedSignature, "base64url");
  const signedBytes = Buffer.from(`${encodedHeader}.${encodedPayload}`);
  if (signature.length !== es256SignatureBytes || !verify("sha256", signedBytes, { key, dsaEncoding: "ieee-p1363" }, signature)) {
    throw new WebhookAuthError("bad_signature", `${what}: the signature does not match the leaf certificate's key`);
  }
  return payload;
}
