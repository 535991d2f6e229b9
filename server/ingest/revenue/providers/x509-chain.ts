// The certificate chain of an App Store signature (the JWS `x5c` header: leaf, intermediate,
// root, each base64 DER), checked as Apple's own app-store-server-library does: the root is one
// of the trusted roots (the same certificate, by SHA-256 fingerprint), each certificate is
// signed by the next and names it as issuer, the intermediate is a CA, the leaf carries Apple's
// receipt-signing extension and the intermediate Apple's WWDR extension, and all three are
// valid at the instant the data was signed (Apple retries a notification for days, so the
// arrival time would refuse late retries; and the signing time is itself signed).
import { X509Certificate, type KeyObject } from "node:crypto";
import { WebhookAuthError } from "../provider.ts";
import { certificateExtensionOids, DerError } from "./der.ts";

/** Mac App Store and iTunes Store receipt signing: on the leaf. */
export const appleReceiptSigningOid = "1.2.840.113635.100.6.11.1";
/** Apple Worldwide Developer Relations intermediate CA: on the intermediate. */
export const appleWwdrIntermediateOid = "1.2.840.113635.100.6.2.1";
/** Leaf, intermediate, root. */
export const appleChainLength = 3;
/** Bound of one base64 certificate in `x5c` (Apple's are under 1.5 KB). */
export const x5cCertificateCharsMax = 16_384;

function untrusted(message: string): never {
  throw new WebhookAuthError("untrusted_certificate", message);
}

function parseCertificate(base64: unknown, name: string): X509Certificate {
  if (typeof base64 !== "string" || base64.length > x5cCertificateCharsMax || !/^[A-Za-z0-9+/]+=*$/.test(base64)) {
    untrusted(`the ${name} certificate of x5c is not base64 DER`);
  }
  try {
    return new X509Certificate(Buffer.from(base64, "base64"));
  } catch {
    return untrusted(`the ${name} certificate of x5c is not a certificate`);
  }
}

function hasExtension(certificate: X509Certificate, oid: string): boolean {
  try {
    return certificateExtensionOids(certificate.raw).has(oid);
  } catch (error) {
    if (error instanceof DerError) return false;
    throw error;
  }
}

function checkValidity(certificate: X509Certificate, name: string, at: number): void {
  const from = Date.parse(certificate.validFrom);
  const to = Date.parse(certificate.validTo);
  if (!(at >= from && at <= to)) {
    throw new WebhookAuthError("expired_signature", `the ${name} certificate is not valid at the signing time ${new Date(at).toISOString()} (valid ${new Date(from).toISOString()} to ${new Date(to).toISOString()})`);
  }
}

/** The leaf's public key, once the chain `x5c` ends at one of `trustedRoots` and holds at `signedAt` (epoch ms). */
export function verifyAppleChain(x5c: unknown, trustedRoots: readonly X509Certificate[], signedAt: number): KeyObject {
  if (!Array.isArray(x5c) || x5c.length !== appleChainLength) untrusted(`x5c must hold ${appleChainLength} certificates (leaf, intermediate, root)`);
  const leaf = parseCertificate(x5c[0], "leaf");
  const intermediate = parseCertificate(x5c[1], "intermediate");
  const sentRoot = parseCertificate(x5c[2], "root");
  const root = trustedRoots.find((trusted) => trusted.fingerprint256 === sentRoot.fingerprint256);
  if (root === undefined) untrusted(`the chain's root (SHA-256 ${sentRoot.fingerprint256}) is not a trusted App Store root`);
  if (intermediate.issuer !== root.subject || !intermediate.verify(root.publicKey)) untrusted("the intermediate certificate is not signed by the root");
  if (leaf.issuer !== intermediate.subject || !leaf.verify(intermediate.publicKey)) untrusted("the leaf certificate is not signed by the intermediate");
  if (!intermediate.ca) untrusted("the intermediate certificate is not a CA");
  if (!hasExtension(intermediate, appleWwdrIntermediateOid)) untrusted(`the intermediate certificate lacks Apple's extension ${appleWwdrIntermediateOid}`);
  if (!hasExtension(leaf, appleReceiptSigningOid)) untrusted(`the leaf certificate lacks Apple's receipt-signing extension ${appleReceiptSigningOid}`);
  checkValidity(leaf, "leaf", signedAt);
  checkValidity(intermediate, "intermediate", signedAt);
  checkValidity(root, "root", signedAt);
  return leaf.publicKey;
}
