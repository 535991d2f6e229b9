// Each project's findings configuration mirrored into its region (RegionFindingsProject: the
// destinations with their secrets, the rules, the metrics the rules name, and what the region
// needs of the project), as revenue integrations are: after each change the project's whole
// configuration is pushed (or removed, when it has no destination and no rule left). A push that
// fails marks the region, and syncPendingFindings, which runs at start-up (every region once)
// and on the periodic retry, hands a marked region its whole set: that also removes the
// configuration of projects deleted, or emptied, while it was unreachable. Nothing is shown to
// users about it (docs/findings.md, "Sync"): the next retry brings the region up to date.
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { RegionCode } from "../../config.ts";
import { unavailable } from "../../http/errors.ts";
import type { RegionFindingsMetric, RegionFindingsProject } from "../../findings/findings-types.ts";
import type { ControlContext } from "../context.ts";
import type { ProjectRow } from "../access.ts";
import { environments, findingsDestinations, findingsRules, metrics, projects } from "../db/schema.ts";

/** A project's findings can only be configured where its region is served (503 otherwise). */
export function requireRegionServed(ctx: ControlContext, project: Pick<ProjectRow, "region">): void {
  if (!ctx.regions.has(project.region as RegionCode)) throw unavailable(`region ${project.region} is not served by this deployment`);
}

/**
 * Each region's pushes, one after another: a push reads the rows it sends only when its turn
 * comes, so a whole-set push that read the rows before a change can never land after that
 * change's own push and bring the old configuration back.
 */
const regionQueues = new WeakMap<ControlContext, Map<string, Promise<unknown>>>();

function inRegionOrder<T>(ctx: ControlContext, region: string, work: () => Promise<T>): Promise<T> {
  let queues = regionQueues.get(ctx);
  if (!queues) regionQueues.set(ctx, (queues = new Map()));
  // A turn that failed (its caller saw the error) does not stop the ones after it.
  const turn = (queues.get(region) ?? Promise.resolve()).catch(() => undefined).then(work);
  queues.set(region, turn);
  return turn;
}

/** Regions that missed a push; at start-up every region with a live project (a push missed before a restart is known to no one). */
const regionsToReconcile = new WeakMap<ControlContext, Set<string>>();

function reconcileSet(ctx: ControlContext): Set<string> {
  let regions = regionsToReconcile.get(ctx);
  if (!regions) {
    const live = ctx.db.selectDistinct({ region: projects.region }).from(projects).where(isNull(projects.deletedAt)).all();
    regions = new Set(live.map(({ region }) => region).filter((region) => ctx.regions.has(region as RegionCode)));
    regionsToReconcile.set(ctx, regions);
  }
  return regions;
}

/** The project's findings configuration as its region keeps it; null when it has no destination and no rule. */
export function findingsConfigOf(ctx: ControlContext, project: ProjectRow): RegionFindingsProject | null {
  const destinations = ctx.db.select().from(findingsDestinations).where(eq(findingsDestinations.projectId, project.id))
    .orderBy(findingsDestinations.createdAt, findingsDestinations.id).all();
  const rules = ctx.db.select().from(findingsRules).where(eq(findingsRules.projectId, project.id)).orderBy(findingsRules.createdAt, findingsRules.id).all();
  if (destinations.length === 0 && rules.length === 0) return null;
  const metricKeys = [...new Set(rules.flatMap((rule) => (rule.target.kind === "metric" && rule.target.key !== undefined ? [rule.target.key] : [])))];
  // An archived metric is left out: its rules are not evaluated until it is named again.
  const named: RegionFindingsMetric[] = metricKeys.length === 0 ? [] : ctx.db.select().from(metrics)
    .where(and(eq(metrics.projectId, project.id), inArray(metrics.key, metricKeys), isNull(metrics.archivedAt))).orderBy(metrics.key).all()
    .map((metric) => ({ key: metric.key, name: metric.name, kind: metric.kind, query: metric.query, unit: metric.unit }));
  const environment = ctx.db.select({ name: environments.name }).from(environments)
    .where(and(eq(environments.projectId, project.id), eq(environments.isDefault, true))).get();
  return {
    projectId: project.id,
    orgId: project.orgId,
    dataId: project.dataId,
    environment: environment?.name ?? "production",
    timeZone: project.timezone,
    consoleUrl: `${ctx.baseUrl()}/projects/${project.id}`,
    destinations: destinations.map((row) => ({
      id: row.id, kind: row.kind, name: row.name, enabled: row.enabled, min_severity: row.minSeverity, config: row.config,
      secret: row.secret, signing_secret: row.signingSecret,
    })),
    rules: rules.map((row) => ({
      id: row.id, name: row.name, cadence: row.cadence, enabled: row.enabled, min_severity: row.minSeverity, destination_ids: row.destinationIds,
      target: row.target, thresholds: row.thresholds, daily_cap: row.dailyCap,
    })),
    metrics: named,
  };
}

/** Pushes the project's whole findings configuration (or its removal) to its region; false when the region did not take it. */
export function pushFindingsProject(ctx: ControlContext, project: ProjectRow): Promise<boolean> {
  return inRegionOrder(ctx, project.region, async () => {
    const link = ctx.regions.get(project.region as RegionCode);
    if (!link) return false;
    const current = ctx.db.select().from(projects).where(eq(projects.id, project.id)).get();
    const config = current && current.deletedAt === null ? findingsConfigOf(ctx, current) : null;
    try {
      if (config) await link.putFindingsConfig([config], false);
      else await link.deleteFindingsConfig(project.id);
      return true;
    } catch (error) {
      console.error(`findings sync to region ${project.region} failed:`, error);
      reconcileSet(ctx).add(project.region);
      return false;
    }
  });
}

/** After a metric's change or archiving: the projects' rules that name it get the new definition. */
export async function pushFindingsAfterMetricChange(ctx: ControlContext, project: ProjectRow, metricKey: string): Promise<void> {
  const rules = ctx.db.select({ target: findingsRules.target }).from(findingsRules).where(eq(findingsRules.projectId, project.id)).all();
  if (rules.some(({ target }) => target.kind === "metric" && target.key === metricKey)) await pushFindingsProject(ctx, project);
}

/** After a project's deletion: its findings configuration leaves the region. */
export async function pushProjectFindingsRemoval(ctx: ControlContext, project: ProjectRow): Promise<void> {
  await pushFindingsProject(ctx, project);
}

/** Hands a region the findings configuration of all its live projects, replacing what it holds. */
function reconcileRegion(ctx: ControlContext, region: string): Promise<void> {
  return inRegionOrder(ctx, region, async () => {
    const link = ctx.regions.get(region as RegionCode);
    if (!link) return;
    const configured = [
      ...ctx.db.selectDistinct({ id: findingsDestinations.projectId }).from(findingsDestinations).all(),
      ...ctx.db.selectDistinct({ id: findingsRules.projectId }).from(findingsRules).all(),
    ].map(({ id }) => id);
    const live = configured.length === 0 ? [] : ctx.db.select().from(projects)
      .where(and(eq(projects.region, region), isNull(projects.deletedAt), inArray(projects.id, [...new Set(configured)]))).orderBy(projects.id).all();
    const configs = live.flatMap((project) => findingsConfigOf(ctx, project) ?? []);
    try {
      await link.putFindingsConfig(configs, true);
    } catch (error) {
      console.error(`findings sync to region ${region} failed:`, error);
      reconcileSet(ctx).add(region);
      return;
    }
    reconcileSet(ctx).delete(region);
  });
}

/** The regions that missed a push (and every region once after start-up) get their whole set. */
export async function syncPendingFindings(ctx: ControlContext): Promise<void> {
  for (const region of [...reconcileSet(ctx)]) await reconcileRegion(ctx, region);
}
