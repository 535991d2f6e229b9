// Region tokens are verified offline, so the regions must be told when one stops being good
// before it expires: its project was deleted, its owner left the organisation or lost scopes
// with a role change, or the access token it was cut from was revoked. The revocation is
// recorded in the same transaction as the change, pushed to the regions right after, and
// pushed again by the periodic sync (service.ts) to a region that could not take it, until
// every token it covers has expired.
import { and, eq, lt } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import type { RegionCode } from "../../config.ts";
import type { RevocationReason, TokenRevocation } from "../../../storage/token-revocations.ts";
import type { ControlContext } from "../context.ts";
import { regionTokenRevocations } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { regionTokenLifeMaxMs } from "./region-tokens.ts";

/**
 * A revocation also covers tokens issued this long after it: `iat` has whole seconds, and a
 * token whose access was checked before the change may be signed just after it commits.
 */
export const revocationIssueMarginSeconds = 1;

/** Revocations per request to a region: a backlog after a long outage goes in batches the region's body limit takes. */
export const revocationsPerPushMax = 1000;

export interface RevocationSubject {
  orgId?: string;
  userId?: string;
  projectId?: string;
  accessTokenId?: string;
}

type RevocationRow = typeof regionTokenRevocations.$inferSelect;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Records a revocation for each region; call it inside the transaction of the change that causes it. */
export function recordRevocation(
  ctx: ControlContext,
  regions: Iterable<RegionCode>,
  subject: RevocationSubject,
  reason: RevocationReason,
  scopes: string[] | null,
): void {
  const id = newId();
  const issuedUpTo = nowSeconds() + revocationIssueMarginSeconds;
  const keepUntil = issuedUpTo + Math.ceil(regionTokenLifeMaxMs / 1000);
  const rows = [...regions].map((region) => ({
    id,
    region,
    orgId: subject.orgId ?? null,
    userId: subject.userId ?? null,
    projectId: subject.projectId ?? null,
    accessTokenId: subject.accessTokenId ?? null,
    issuedUpTo,
    keepUntil,
    scopes,
    reason,
    synced: false,
    createdAt: nowIso(),
  }));
  if (rows.length) ctx.db.insert(regionTokenRevocations).values(rows).run();
}

const wire = (row: RevocationRow): TokenRevocation => ({
  id: row.id,
  orgId: row.orgId,
  userId: row.userId,
  projectId: row.projectId,
  accessTokenId: row.accessTokenId,
  issuedUpTo: row.issuedUpTo,
  keepUntil: row.keepUntil,
  scopes: row.scopes,
  reason: row.reason,
});

async function pushToRegion(ctx: ControlContext, region: string, rows: RevocationRow[]): Promise<void> {
  const link = ctx.regions.get(region as RegionCode);
  if (!link) return;
  for (let start = 0; start < rows.length; start += revocationsPerPushMax) {
    const batch = rows.slice(start, start + revocationsPerPushMax);
    try {
      await link.revokeTokens(batch.map(wire));
    } catch (error) {
      console.error(`region-token revocation push to region ${region} failed (pushed again at the next sync):`, error);
      return;
    }
    for (const row of batch) {
      ctx.db.update(regionTokenRevocations).set({ synced: true })
        .where(and(eq(regionTokenRevocations.id, row.id), eq(regionTokenRevocations.region, region))).run();
    }
  }
}

/** Pushes every revocation a region has not taken yet, all regions at once; forgets expired ones. */
export async function pushRevocations(ctx: ControlContext): Promise<void> {
  ctx.db.delete(regionTokenRevocations).where(lt(regionTokenRevocations.keepUntil, nowSeconds())).run();
  const pending = ctx.db.select().from(regionTokenRevocations).where(eq(regionTokenRevocations.synced, false)).all();
  const byRegion = Map.groupBy(pending, (row) => row.region);
  await Promise.all([...byRegion].map(([region, rows]) => pushToRegion(ctx, region, rows)));
}
