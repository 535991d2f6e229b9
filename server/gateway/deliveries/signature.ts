// Webhook signatures in the Standard Webhooks format, so receivers can verify with the
// `standardwebhooks` or `svix` libraries or in five lines of their own: HMAC-SHA256, keyed with
// the base64-decoded part of `whsec_…`, over `{webhook-id}.{webhook-timestamp}.{body}`, sent as
// `webhook-signature: v1,{base64}`.
import { createHmac } from "node:crypto";

export const webhookSecretPrefix = "whsec_";

export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(webhookSecretPrefix.length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

export function signedHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": webhookSignature(secret, id, timestampSeconds, body),
  };
}
