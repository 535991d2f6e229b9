// Every region route starts here: verify the region token, apply the revocations the control
// plane pushed, then require the route's scope. Project, environment and scopes come only
// from the token's verified claims.
import type { JWTVerifyGetKey } from "jose";
import { ApiError, bearerChallenge } from "../http/errors.ts";
import type { RegionCode } from "../config.ts";
import type { RevocationReason, TokenRevocationStore } from "../../storage/token-revocations.ts";
import { verifyRegionToken, type RegionClaims, type RegionTokenIssue } from "./region-auth.ts";

export interface RegionTokenCheck {
  keys: JWTVerifyGetKey;
  issuer: () => string;
  region: RegionCode;
  revocations: TokenRevocationStore;
}

/** A token's claims after revocations: `withdrawn` names the scopes a role change took away. */
export interface CheckedClaims extends RegionClaims, RegionTokenIssue {
  withdrawn: string[];
}

const refusedBecause: Record<RevocationReason, string> = {
  project_deleted: "its project was deleted",
  member_removed: "its owner is no longer a member of the organisation",
  role_changed: "its owner's role changed",
  access_token_revoked: "the access token it was issued with was revoked",
};

/** What a token keeps of its scopes under a role that holds `held`: a write the role lost still implies the read it holds. */
function keptScopes(scopes: string[], held: ReadonlySet<string>): string[] {
  const kept = new Set<string>();
  for (const scope of scopes) {
    const read = scope.endsWith(":write") ? scope.replace(/:write$/, ":read") : null;
    if (held.has(scope)) kept.add(scope);
    else if (read !== null && held.has(read)) kept.add(read);
  }
  return [...kept];
}

/** The verified claims, with the scopes revocations leave (401 when one refuses the token). */
export async function regionClaims(request: Request, check: RegionTokenCheck): Promise<CheckedClaims> {
  return afterRevocations(await verifyRegionToken(request.headers.get("authorization"), check.keys, check.issuer(), check.region), check.revocations);
}

/**
 * Claims with the scopes the revocations covering them leave (401 when one refuses the
 * token). Checked claims may be checked again: a long-lived answer (a live event stream)
 * learns this way of a revocation made after it started.
 */
export function afterRevocations(claims: RegionClaims & RegionTokenIssue, revocations: TokenRevocationStore): CheckedClaims {
  let scopes = claims.scopes;
  for (const revocation of revocations.covering(claims)) {
    if (revocation.scopes === null) {
      throw new ApiError(401, "unauthorized", `region token revoked: ${refusedBecause[revocation.reason]}`, bearerChallenge);
    }
    scopes = keptScopes(scopes, new Set(revocation.scopes));
  }
  return { ...claims, scopes, withdrawn: claims.scopes.filter((scope) => !scopes.includes(scope)) };
}

export async function regionAccess(request: Request, check: RegionTokenCheck, scope: string): Promise<CheckedClaims> {
  return requireScope(await regionClaims(request, check), scope);
}

/** The claims when they hold `scope`; 403 when not. */
export function requireScope(claims: CheckedClaims, scope: string): CheckedClaims {
  // Write implies read (spec 1, Authentication 5), whether or not the token lists both.
  const write = scope.endsWith(":read") ? scope.replace(/:read$/, ":write") : null;
  const held = claims.scopes.includes(scope) || (write !== null && claims.scopes.includes(write));
  if (!held) {
    const lost = claims.withdrawn.includes(scope) || (write !== null && claims.withdrawn.includes(write));
    throw new ApiError(403, "forbidden", `region token lacks scope ${scope}${lost ? ": its owner's role no longer holds it" : ""}`);
  }
  return claims;
}

export const badRequest = (message: string) => new ApiError(400, "bad_request", message);
