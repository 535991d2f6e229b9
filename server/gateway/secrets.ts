// The gateway's secrets: project keys (`gw_live_…`, shown once, stored as SHA-256) and the root
// key's prefix (the key itself: GATEWAY_ROOT_KEY, or made on first start; see
// server/service-keys.ts).
import { randomBase62 } from "../crypto.ts";
import { serviceKeyRandomLength } from "../service-keys.ts";

export const projectKeyPrefix = "gw_live_";
export const rootKeyPrefix = "gw_root_";

export const newProjectKey = () => `${projectKeyPrefix}${randomBase62(serviceKeyRandomLength)}`;
