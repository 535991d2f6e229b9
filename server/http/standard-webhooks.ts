// Webhook signatures in the Standard Webhooks format, so receivers can verify with the
// `standardwebhooks` or `svix` libraries or in five lines of their own: HMAC-SHA256, keyed with
// the base64-decoded part of `whsec_…`, over `{webhook-id}.{webhook-timestamp}.{body}`, sent as
// `webhook-signature: v1,{base64}`. Shared by the gateway's and the mail service's webhooks.
import { createHmac, randomBytes } from "node:crypto";

export const webhookSecretPrefix = "whsec_";

/** A signing secret: `whsec_` and the base64 of 32 random bytes, as Standard Webhooks receivers expect. */
export const newWebhookSecret = () => `${webhookSecretPrefix}${randomBytes(32).toString("base64")}`;

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
