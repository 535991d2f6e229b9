// What the person may do with flags and experiments, from their role in the project's
// organisation (spec 1, Authentication 5-7): viewers read; members also write flags and
// experiments; only admins and owners hold the named scopes `flags.production` (making a
// production configuration live) and `experiments.ship`. The API checks again on every call;
// this only lets the pages say why a control is off before anyone presses it.
import type { Role } from "../../api/types.ts";

export const productionEnvironment = "production";

export interface FlagAccess {
  role: Role;
  /** flags:write and experiments:write. */
  canWrite: boolean;
  /** flags.production. */
  canProduction: boolean;
  /** experiments.ship. */
  canShip: boolean;
}

export function flagAccess(role: Role): FlagAccess {
  const named = role === "admin" || role === "owner";
  return { role, canWrite: role !== "viewer", canProduction: named, canShip: named };
}

const article = (role: Role) => (role === "admin" || role === "owner" ? "an" : "a");

/** Why the person cannot change flags at all, or null when they can. */
export const writeRefusal = (access: FlagAccess): string | null =>
  access.canWrite ? null : `You are ${article(access.role)} ${access.role} of this organisation: viewers can look at flags and experiments but not change them (that needs the flags:write scope, which members, admins and owners hold).`;

/** Why the person cannot make a production configuration live, or null when they can. */
export const productionRefusal = (access: FlagAccess): string | null =>
  access.canProduction
    ? null
    : `Making a flag live in production needs the flags.production scope, which only admins and owners hold; you are ${article(access.role)} ${access.role}. You can still edit the other environments${access.canWrite ? ", and switch production off (the kill switch)" : ""}. Ask an admin to publish production changes.`;
