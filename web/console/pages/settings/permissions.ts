// What each role may change on the settings pages, as the control plane enforces it (spec 1,
// Authentication 7): projects:write and org:write (the project's name and keys, deleting it,
// the organisation's name) and members.write are the admin's and owner's; flags:write (flag
// secret keys) is every role's but the viewer's. A control the role may not use is shown
// disabled with the sentence these return.
import type { Role } from "../../api/types.ts";

const article = (role: Role) => (role === "admin" || role === "owner" ? "an" : "a");

const adminOrOwner = (role: Role) => role === "admin" || role === "owner";

/** Why `role` may not do what needs the admin or owner role, or null when it may. */
export function adminOnlyReason(role: Role, what: string): string | null {
  return adminOrOwner(role) ? null : `Only admins and owners can ${what}. You are ${article(role)} ${role}.`;
}

/** Why `role` may not create or revoke flag secret keys (flags:write), or null when it may. */
export function flagsWriteReason(role: Role): string | null {
  return role === "viewer" ? "Viewers cannot create or revoke flag secret keys: it needs the member, admin or owner role." : null;
}
