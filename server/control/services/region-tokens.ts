// Region tokens: short-lived EdDSA JWTs that carry everything the region needs (project,
// data id, environment, scopes), so the region never calls back to the control plane.
import { minuteMs } from "../../clock.ts";
import { validation, scopeNotHeld } from "../../http/errors.ts";
import { regionAudience } from "../../region/region-auth.ts";
import type { RegionCode } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import type { ProjectAccess } from "../access.ts";
import { isKnownScope, regionalScopes, sortScopes } from "../auth/scopes.ts";
import { defaultEnvironment, requireEnvironment } from "./projects.ts";

export const regionTokenLifeMs = 10 * minuteMs;
export const regionTokenLifeMaxMs = 15 * minuteMs;

export const regionApiUrl = (ctx: ControlContext, region: string) => `${ctx.baseUrl()}/region/${region}`;
export const ingestUrl = (ctx: ControlContext, region: string) => `${ctx.baseUrl()}/ingest/${region}`;

export interface RegionTokenInput {
  environment?: string | null;
  scopes?: string[] | null;
}

export async function issueRegionToken(ctx: ControlContext, access: ProjectAccess, input: RegionTokenInput, lifeMs = regionTokenLifeMs) {
  const environment = input.environment ?? defaultEnvironment;
  requireEnvironment(ctx, access.project.id, environment);
  const held = regionalScopes.filter((scope) => access.scopes.has(scope));
  let scopes = held;
  if (input.scopes != null) {
    const unknown = input.scopes.filter((scope) => !isKnownScope(scope) || !regionalScopes.includes(scope));
    if (unknown.length) throw validation(`not regional scopes: ${unknown.join(", ")}`);
    const notHeld = input.scopes.filter((scope) => !held.includes(scope));
    if (notHeld.length) throw scopeNotHeld(notHeld);
    scopes = sortScopes(new Set(input.scopes));
  }
  // Never outlives the access token it is issued with.
  const principal = access.principal;
  const accessTokenEnd = principal.kind === "token" && principal.token.expiresAt !== null ? Date.parse(principal.token.expiresAt) : Infinity;
  const expiresAt = new Date(Math.min(Date.now() + Math.min(lifeMs, regionTokenLifeMaxMs), accessTokenEnd));
  expiresAt.setMilliseconds(0);
  const region = access.project.region as RegionCode;
  const token = await ctx.signer.sign(
    {
      org_id: access.org.id,
      project_id: access.project.id,
      data_id: access.project.dataId,
      environment,
      scopes,
      region,
      // Lets the region refuse the token as soon as the access token it was cut from is revoked.
      ...(principal.kind === "token" ? { access_token_id: principal.token.id } : {}),
    },
    { issuer: ctx.baseUrl(), audience: regionAudience(region), subject: principal.user.id, expiresAt },
  );
  return {
    token,
    region_api_url: regionApiUrl(ctx, region),
    expires_at: expiresAt.toISOString(),
    region,
    environment,
    scopes,
  };
}
