// Who may change findings, as the control plane and the region enforce it (spec 1,
// Authentication 7): alerts:write is every role's but the viewer's. A control the role may not
// use is shown disabled with this sentence.
import type { Role } from "../../api/types.ts";

/** Why `role` may not do `what` (it needs alerts:write), or null when it may. */
export function alertsWriteReason(role: Role, what: string): string | null {
  return role === "viewer" ? `Viewers cannot ${what}: it needs the member, admin or owner role.` : null;
}
