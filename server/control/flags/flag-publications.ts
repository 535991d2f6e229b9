// Publications: every flag change records, in its own transaction, a versioned and
// checksummed snapshot of each environment it touched (every live flag of that environment),
// then pushes it to the project's region. The region keeps the newest version it has been
// given, so a late or repeated push never rolls flags back. A push that fails leaves the
// publication `failed` with the error; start-up and the periodic sync push the newest
// unpublished snapshot of each environment again. A snapshot also carries the definitions of
// the property cohorts its flags' cohort conditions name (docs/cohorts.md): the region and
// SDKs match those on person properties.
import { and, desc, eq, inArray, isNull, max, ne } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { sha256Hex } from "../../crypto.ts";
import type { RegionCode } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import { cohorts, flagEnvironments, flagPublications, flags, projects } from "../db/schema.ts";
import { InvalidCohortDefinitionError, parseCohortDefinition } from "../../../engine/cohorts/definition.ts";
import { isPropertyCohort } from "../../../engine/flags/cohort-conditions.ts";
import { newId } from "../ids.ts";
import { requireScope, type ProjectAccess, type ProjectRow } from "../access.ts";
import type { FlagSnapshot, SnapshotFlag } from "../../../storage/flag-store.ts";

export interface PendingPublication {
  id: string;
  region: string;
  snapshot: FlagSnapshot;
}

type PublicationRow = typeof flagPublications.$inferSelect;

export const publicationDto = (row: PublicationRow) => ({
  id: row.id,
  environment: row.environment,
  status: row.status,
  version: row.version,
  checksum: row.checksum,
  created_at: row.createdAt,
  error: row.error,
  published_at: row.publishedAt,
});

/** Every live flag of the project as configured in `environment`, by key. */
function snapshotFlags(ctx: ControlContext, projectId: string, environment: string): SnapshotFlag[] {
  const rows = ctx.db
    .select({ flag: flags, config: flagEnvironments })
    .from(flags)
    .innerJoin(flagEnvironments, and(eq(flagEnvironments.flagId, flags.id), eq(flagEnvironments.environment, environment)))
    .where(and(eq(flags.projectId, projectId), isNull(flags.archivedAt)))
    .orderBy(flags.key)
    .all();
  return rows.map(({ flag, config }) => ({
    id: flag.number,
    key: flag.key,
    name: flag.name,
    description: flag.description,
    kind: flag.kind,
    enabled: config.enabled,
    payload: config.payload ?? null,
    rules: config.rules as SnapshotFlag["rules"],
    variants: config.variants as SnapshotFlag["variants"],
    salt: config.salt,
    stickiness: config.stickiness,
    version: config.version,
  }));
}

/** The definitions of the property cohorts (dynamic, person criteria only) that the flags' cohort conditions name, by id. */
function propertyCohortDefinitions(ctx: ControlContext, projectId: string, flagList: SnapshotFlag[]): Record<string, unknown> {
  const named = new Set(flagList.flatMap((flag) => flag.rules.flatMap((rule) => rule.properties.flatMap((condition) => (condition.type === "cohort" ? [condition.cohort_id] : [])))));
  if (named.size === 0) return {};
  const rows = ctx.db.select({ id: cohorts.id, kind: cohorts.kind, definition: cohorts.definition }).from(cohorts)
    .where(and(eq(cohorts.projectId, projectId), inArray(cohorts.id, [...named]), isNull(cohorts.deletedAt))).orderBy(cohorts.id).all();
  const definitions: Record<string, unknown> = {};
  for (const row of rows) {
    if (row.kind !== "dynamic" || row.definition === null) continue;
    try {
      const definition = parseCohortDefinition(row.definition);
      if (isPropertyCohort(definition)) definitions[row.id] = definition;
    } catch (error) {
      if (!(error instanceof InvalidCohortDefinitionError)) throw error;
    }
  }
  return definitions;
}

/** Inside a write's transaction: a pending publication of each environment, with the next version. */
export function recordPublications(ctx: ControlContext, project: ProjectRow, environments: string[]): PendingPublication[] {
  return environments.map((environment) => {
    const last = ctx.db
      .select({ version: max(flagPublications.version) })
      .from(flagPublications)
      .where(and(eq(flagPublications.projectId, project.id), eq(flagPublications.environment, environment)))
      .get();
    const flagList = snapshotFlags(ctx, project.id, environment);
    const cohortDefinitions = propertyCohortDefinitions(ctx, project.id, flagList);
    const withCohorts = Object.keys(cohortDefinitions).length > 0;
    const version = (last?.version ?? 0) + 1;
    // Without cohorts the checksum is the flags' alone, as before cohorts existed.
    const checksum = sha256Hex(JSON.stringify(withCohorts ? { flags: flagList, cohorts: cohortDefinitions } : flagList));
    const snapshot: FlagSnapshot = {
      project_id: project.id, data_id: project.dataId, environment, version, checksum, flags: flagList, ...(withCohorts ? { cohorts: cohortDefinitions } : {}),
    };
    const id = newId();
    ctx.db.insert(flagPublications).values({
      id, projectId: project.id, environment, version, checksum: snapshot.checksum, snapshot: JSON.stringify(snapshot), status: "pending", createdAt: nowIso(),
    }).run();
    return { id, region: project.region, snapshot };
  });
}

/** Pushes publications to their regions and records how each went. */
export async function pushPublications(ctx: ControlContext, pending: PendingPublication[]): Promise<void> {
  for (const publication of pending) {
    const link = ctx.regions.get(publication.region as RegionCode);
    let error: string | null = link ? null : `region ${publication.region} is not live`;
    if (link) {
      try {
        await link.publishFlags(publication.snapshot);
      } catch (failure) {
        error = (failure as Error).message || String(failure);
      }
    }
    ctx.db.update(flagPublications)
      .set(error === null ? { status: "published", error: null, publishedAt: nowIso() } : { status: "failed", error })
      .where(eq(flagPublications.id, publication.id))
      .run();
  }
}

export function listPublications(ctx: ControlContext, access: ProjectAccess, environment: string | null) {
  requireScope(access, "flags:read");
  const where = environment === null
    ? eq(flagPublications.projectId, access.project.id)
    : and(eq(flagPublications.projectId, access.project.id), eq(flagPublications.environment, environment));
  const rows = ctx.db.select().from(flagPublications).where(where).orderBy(desc(flagPublications.createdAt), desc(flagPublications.version)).all();
  return { publications: rows.map(publicationDto) };
}

/** The newest publication of each environment that is not yet published (older ones are superseded by it). */
export async function pushUnpublished(ctx: ControlContext): Promise<void> {
  const unpublished = ctx.db.select().from(flagPublications).where(ne(flagPublications.status, "published")).all();
  const envKey = (row: { projectId: string; environment: string }) => `${row.projectId}\u0000${row.environment}`;
  const published = new Map(
    ctx.db.select({ projectId: flagPublications.projectId, environment: flagPublications.environment, version: max(flagPublications.version) })
      .from(flagPublications).where(eq(flagPublications.status, "published")).groupBy(flagPublications.projectId, flagPublications.environment).all()
      .map((row) => [envKey(row), row.version ?? 0]),
  );
  const newest = new Map<string, PublicationRow>();
  for (const row of unpublished) {
    const key = envKey(row);
    if (row.version > (published.get(key) ?? 0) && (newest.get(key)?.version ?? -1) < row.version) newest.set(key, row);
  }
  if (newest.size === 0) return;
  const regions = new Map(
    ctx.db.select({ id: projects.id, region: projects.region }).from(projects).where(inArray(projects.id, [...new Set(unpublished.map((row) => row.projectId))])).all()
      .map((row) => [row.id, row.region]),
  );
  await pushPublications(ctx, [...newest.values()].map((row) => ({ id: row.id, region: regions.get(row.projectId)!, snapshot: JSON.parse(row.snapshot) as FlagSnapshot })));
}
