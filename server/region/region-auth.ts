// The region trusts nothing but the token: project, data id, environment and scopes are
// read from its verified claims, never from the request.
import { errors, jwtVerify, type JWTVerifyGetKey } from "jose";
import { ApiError, bearerChallenge } from "../http/errors.ts";
import type { RegionCode } from "../config.ts";

export interface RegionClaims {
  /** The project's organisation: the tenant that shares of server-wide resources are counted by. */
  orgId: string;
  projectId: string;
  dataId: number;
  environment: string;
  scopes: string[];
  region: RegionCode;
  expiresAt: string;
}

/** Who a token was issued to and when: what revocations are matched against. */
export interface RegionTokenIssue {
  /** The user the token was issued to (`sub`). */
  userId: string;
  /** The personal access token it was issued with; null when issued for a console session. */
  accessTokenId: string | null;
  /** Unix seconds (`iat`). */
  issuedAt: number;
}

const regionUnauthorized = (message: string) => new ApiError(401, "unauthorized", message, bearerChallenge);

export const regionAudience = (region: RegionCode) => `region:${region}`;

export async function verifyRegionToken(
  authorization: string | null,
  keys: JWTVerifyGetKey,
  issuer: string,
  region: RegionCode,
): Promise<RegionClaims & RegionTokenIssue> {
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  if (!match) throw regionUnauthorized("region token required (Authorization: Bearer <token>)");
  try {
    const { payload } = await jwtVerify(match[1]!, keys, {
      issuer,
      audience: regionAudience(region),
      algorithms: ["EdDSA"],
      requiredClaims: ["exp", "iat", "sub", "org_id", "project_id", "data_id", "environment", "scopes", "region"],
    });
    if (payload.region !== region) throw regionUnauthorized("region token is for another region");
    return {
      orgId: String(payload.org_id),
      userId: String(payload.sub),
      projectId: String(payload.project_id),
      dataId: Number(payload.data_id),
      environment: String(payload.environment),
      scopes: (payload.scopes as unknown[]).map(String),
      region,
      accessTokenId: typeof payload.access_token_id === "string" ? payload.access_token_id : null,
      issuedAt: payload.iat!,
      expiresAt: new Date(payload.exp! * 1000).toISOString(),
    };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof errors.JWTExpired) throw regionUnauthorized("region token expired");
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === "aud") {
      throw regionUnauthorized("region token is for another region");
    }
    throw regionUnauthorized("invalid region token");
  }
}
