// Every region route starts here: verify the region token, then require the route's scope.
// Project, environment and scopes come only from the token's verified claims.
import type { JWTVerifyGetKey } from "jose";
import { ApiError } from "../http/errors.ts";
import type { RegionCode } from "../config.ts";
import { verifyRegionToken, type RegionClaims } from "./region-auth.ts";

export interface RegionTokenCheck {
  keys: JWTVerifyGetKey;
  issuer: () => string;
  region: RegionCode;
}

export async function regionAccess(request: Request, check: RegionTokenCheck, scope: string): Promise<RegionClaims> {
  const claims = await verifyRegionToken(request.headers.get("authorization"), check.keys, check.issuer(), check.region);
  // Write implies read (spec 1, Authentication 5), whether or not the token lists both.
  const held = claims.scopes.includes(scope) || (scope.endsWith(":read") && claims.scopes.includes(scope.replace(/:read$/, ":write")));
  if (!held) throw new ApiError(403, "forbidden", `region token lacks scope ${scope}`);
  return claims;
}

export const badRequest = (message: string) => new ApiError(400, "bad_request", message);
