// Stripe's webhook signature, checked with our own code: the `Stripe-Signature` header is
// `t=<unix seconds>,v1=<hex>[,v1=<hex>…]` (other schemes such as v0 are ignored), each v1 an
// HMAC-SHA256 of `${t}.${raw body}` keyed with the endpoint's signing secret. Several v1 values
// appear while a secret is being rolled; any one may match. The timestamp is signed, so a
// captured request replayed after the tolerance is refused; within it, the event id makes a
// replay a duplicate (the route deduplicates by it).
import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookAuthError } from "../provider.ts";

/** How far the signed timestamp may be from the arrival, either way (Stripe's libraries default to 300 s, in the past only). */
export const stripeSignatureToleranceMs = 300_000;
/** A header longer than this is not Stripe's (a few signatures of 64 hex digits). */
export const stripeSignatureHeaderCharsMax = 2_000;

const hexDigest = /^[0-9a-f]{64}$/;

/** Throws WebhookAuthError unless `body` was signed with `secret` within the tolerance of `receivedAt`. */
export function verifyStripeSignature(secret: string | null, header: string | null, body: Uint8Array, receivedAt: number): void {
  if (header === null || header.trim() === "") throw new WebhookAuthError("missing_signature", "the request has no Stripe-Signature header");
  if (secret === null || secret === "") throw new WebhookAuthError("bad_signature", "the integration has no signing secret to check the Stripe-Signature header with");
  if (header.length > stripeSignatureHeaderCharsMax) throw new WebhookAuthError("bad_signature", "the Stripe-Signature header is too long");
  let timestamp: string | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const equals = part.indexOf("=");
    if (equals < 0) continue;
    const key = part.slice(0, equals).trim();
    const value = part.slice(equals + 1).trim();
    if (key === "t") timestamp = value;
    else if (key === "v1" && hexDigest.test(value)) signatures.push(Buffer.from(value, "hex"));
  }
  if (timestamp === null || !/^\d{1,12}$/.test(timestamp)) throw new WebhookAuthError("bad_signature", "the Stripe-Signature header has no timestamp");
  if (signatures.length === 0) throw new WebhookAuthError("bad_signature", "the Stripe-Signature header has no v1 signature");
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
  // Every candidate is compared in full (no early exit), each in constant time.
  let matched = false;
  for (const signature of signatures) matched = timingSafeEqual(signature, expected) || matched;
  if (!matched) throw new WebhookAuthError("bad_signature", "no v1 signature of the Stripe-Signature header matches the body");
  const skewMs = receivedAt - Number(timestamp) * 1000;
  if (Math.abs(skewMs) > stripeSignatureToleranceMs) {
    throw new WebhookAuthError("expired_signature", `the Stripe-Signature timestamp is ${Math.round(Math.abs(skewMs) / 1000)} s ${skewMs > 0 ? "old" : "in the future"}, beyond the ${stripeSignatureToleranceMs / 1000} s tolerance`);
  }
}
