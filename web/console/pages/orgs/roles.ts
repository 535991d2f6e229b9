// The roles a person may hand out, as the control plane rules them (server/control/services/
// members.ts): admins and owners manage members, and only an owner grants, changes or removes
// the owner role; the last owner can be neither demoted nor removed.
import type { Role } from "../../api/types.ts";
import { adminOnlyReason } from "../settings/permissions.ts";

export const roleOrder: readonly Role[] = ["viewer", "member", "admin", "owner"];

export const roleDescriptions: Record<Role, string> = {
  viewer: "reads everything",
  member: "reads and writes all but projects and the organisation",
  admin: "everything but billing",
  owner: "everything",
};

export const managesMembers = (role: Role) => role === "admin" || role === "owner";

/** The roles `caller` may give: every one but owner, which only an owner grants. */
export const grantableRoles = (caller: Role): Role[] => roleOrder.filter((role) => role !== "owner" || caller === "owner");

/** Why `caller` may not change or remove a member with `role`, or null. */
export function memberChangeBlock(caller: Role, role: Role, owners: number): string | null {
  if (!managesMembers(caller)) return adminOnlyReason(caller, "change roles or remove members");
  if (role === "owner" && caller !== "owner") return "Only an owner can change or remove an owner.";
  if (role === "owner" && owners === 1) return "The only owner: make another member an owner first.";
  return null;
}
