// Standard Webhooks signatures (https://www.standardwebhooks.com/) for findings webhooks:
// `webhook-signature: v1,{base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"}`.
// The key is the destination's signing secret: a `whsec_` secret (what Standard Webhooks
// libraries generate) is the base64 after the prefix, decoded; any other string is its UTF-8
// bytes, so a secret someone typed works too (docs/findings-delivery.md shows how a receiver
// verifies either kind).
import { createHmac } from "node:crypto";

export const signingSecretPrefix = "whsec_";

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The HMAC key a signing secret stands for. */
export function signingKey(secret: string): Buffer {
  const rest = secret.slice(signingSecretPrefix.length);
  if (secret.startsWith(signingSecretPrefix) && rest.length > 0 && base64Pattern.test(rest)) return Buffer.from(rest, "base64");
  return Buffer.from(secret, "utf8");
}

export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac("sha256", signingKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** The headers of one signed POST; unsigned (no webhook-signature) when the destination has no signing secret. */
export function webhookHeaders(secret: string | null, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(timestampSeconds) };
  if (secret !== null && secret !== "") headers["webhook-signature"] = webhookSignature(secret, id, timestampSeconds, body);
  return headers;
}
