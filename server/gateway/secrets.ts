// The gateway's secrets: project keys (`gw_live_…`, shown once, stored as SHA-256), webhook
// signing secrets (`whsec_…`, base64 of 32 random bytes, as Standard Webhooks receivers expect)
// and the root key's prefix (the key itself: GATEWAY_ROOT_KEY, or made on first start; see
// server/service-keys.ts).
import { randomBytes } from "node:crypto";
import { randomBase62 } from "../crypto.ts";
import { serviceKeyRandomLength } from "../service-keys.ts";

export const projectKeyPrefix = "gw_live_";
export const rootKeyPrefix = "gw_root_";

export const newProjectKey = () => `${projectKeyPrefix}${randomBase62(serviceKeyRandomLength)}`;
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
