// Metrics (spec 1: MetricDto, MetricCreateRequest, MetricUpdateRequest): named, versioned
// definitions experiments measure. The query object is "not shown"; ours is
// {kind: "proportion", event} (did the person do the event) or {kind: "mean", event, property?}
// (per person, the sum of a numeric property over the event, or its count): docs/experiments.md.
import { and, asc, eq, isNull } from "drizzle-orm";
import { t } from "elysia";
import { nowIso } from "../../clock.ts";
import { conflict, notFound } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { metrics } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { Name } from "../schemas.ts";

export type MetricRow = typeof metrics.$inferSelect;

const metricKeyLengthMax = 200;
const eventNameLengthMax = 200;
const propertyKeyLengthMax = 400;
const descriptionLengthMax = 2000;
const unitLengthMax = 50;

export const MetricQuery = t.Union([
  t.Object({ kind: t.Literal("proportion"), event: t.String({ minLength: 1, maxLength: eventNameLengthMax }) }, { additionalProperties: false }),
  t.Object(
    {
      kind: t.Literal("mean"),
      event: t.String({ minLength: 1, maxLength: eventNameLengthMax }),
      property: t.Optional(t.Union([t.String({ minLength: 1, maxLength: propertyKeyLengthMax }), t.Null()])),
    },
    { additionalProperties: false },
  ),
]);
export type MetricQueryInput = typeof MetricQuery.static;

const Direction = t.Union([t.Literal("increase"), t.Literal("decrease")]);
const Description = t.Union([t.String({ maxLength: descriptionLengthMax }), t.Null()]);
const Unit = t.Union([t.String({ maxLength: unitLengthMax }), t.Null()]);
const OwnerId = t.Union([t.String({ format: "uuid" }), t.Null()]);

export const MetricCreateRequest = t.Object(
  {
    key: t.String({ minLength: 1, maxLength: metricKeyLengthMax, pattern: "^[A-Za-z0-9_.-]+$" }),
    name: Name,
    query: MetricQuery,
    description: t.Optional(Description),
    direction: t.Optional(Direction),
    monitor: t.Optional(t.Boolean()),
    owner_id: t.Optional(OwnerId),
    unit: t.Optional(Unit),
  },
  { title: "MetricCreateRequest", additionalProperties: false },
);

export const MetricUpdateRequest = t.Object(
  {
    description: t.Optional(Description),
    direction: t.Optional(Direction),
    monitor: t.Optional(t.Boolean()),
    name: t.Optional(Name),
    owner_id: t.Optional(OwnerId),
    query: t.Optional(MetricQuery),
    unit: t.Optional(Unit),
  },
  { title: "MetricUpdateRequest", additionalProperties: false },
);

const nullableTime = t.Union([t.String({ format: "date-time" }), t.Null()]);
export const MetricDto = t.Object(
  {
    id: t.String({ format: "uuid" }),
    project_id: t.String({ format: "uuid" }),
    key: t.String(),
    kind: t.Union([t.Literal("proportion"), t.Literal("mean")]),
    name: t.String(),
    direction: Direction,
    certified: t.Boolean(),
    monitor: t.Boolean(),
    version: t.Integer({ format: "int32" }),
    query: MetricQuery,
    created_at: t.String({ format: "date-time" }),
    archived_at: nullableTime,
    certified_at: nullableTime,
    certified_by: OwnerId,
    description: Description,
    owner_id: OwnerId,
    unit: Unit,
  },
  { title: "MetricDto" },
);
export const MetricListResponse = t.Object({ metrics: t.Array(MetricDto) }, { title: "MetricListResponse" });

export const metricDto = (row: MetricRow) => ({
  id: row.id,
  project_id: row.projectId,
  key: row.key,
  kind: row.kind,
  name: row.name,
  direction: row.direction,
  certified: row.certified,
  monitor: row.monitor,
  version: row.version,
  query: row.query,
  created_at: row.createdAt,
  archived_at: row.archivedAt,
  certified_at: row.certifiedAt,
  certified_by: row.certifiedBy,
  description: row.description,
  owner_id: row.ownerId,
  unit: row.unit,
});

/** How experiments refer to a metric (ExperimentMetricRef). */
export const metricRef = (row: MetricRow) => ({ metric_id: row.id, key: row.key, kind: row.kind, name: row.name, higher_is_better: row.direction === "increase" });

export function metricOfProject(ctx: ControlContext, projectId: string, metricId: string): MetricRow {
  const id = requireUuid(metricId, "metric");
  const row = ctx.db.select().from(metrics).where(and(eq(metrics.id, id), eq(metrics.projectId, projectId))).get();
  if (!row) throw notFound("metric");
  return row;
}

const liveMetric = (ctx: ControlContext, access: ProjectAccess, metricId: string) => {
  const row = metricOfProject(ctx, access.project.id, metricId);
  if (row.archivedAt !== null) throw conflict("the metric is archived");
  return row;
};

export function listMetrics(ctx: ControlContext, access: ProjectAccess, includeArchived: boolean) {
  requireScope(access, "insights:read");
  const where = includeArchived ? eq(metrics.projectId, access.project.id) : and(eq(metrics.projectId, access.project.id), isNull(metrics.archivedAt));
  return { metrics: ctx.db.select().from(metrics).where(where).orderBy(asc(metrics.key)).all().map(metricDto) };
}

export function getMetric(ctx: ControlContext, access: ProjectAccess, metricId: string) {
  requireScope(access, "insights:read");
  return metricDto(metricOfProject(ctx, access.project.id, metricId));
}

const plan = (access: ProjectAccess, action: string, targetId: string, before: unknown, after: unknown, apply: () => ReturnType<typeof metricDto>): WritePlan<ReturnType<typeof metricDto>> => ({
  action, targetType: "metric", targetId, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

export function planCreateMetric(ctx: ControlContext, access: ProjectAccess, input: typeof MetricCreateRequest.static) {
  requireScope(access, "insights:write");
  const taken = ctx.db.select({ id: metrics.id }).from(metrics).where(and(eq(metrics.projectId, access.project.id), eq(metrics.key, input.key))).get();
  if (taken) throw conflict(`a metric with key "${input.key}" already exists`);
  const now = nowIso();
  const row: MetricRow = {
    id: newId(), projectId: access.project.id, key: input.key, kind: input.query.kind, name: input.name.trim(), direction: input.direction ?? "increase",
    certified: false, monitor: input.monitor ?? false, version: 1, query: input.query, description: input.description ?? null, ownerId: input.owner_id ?? null,
    unit: input.unit ?? null, createdAt: now, updatedAt: now, archivedAt: null, certifiedAt: null, certifiedBy: null,
  };
  return plan(access, "metric.create", row.id, null, metricDto(row), () => {
    ctx.db.insert(metrics).values(row).run();
    return metricDto(row);
  });
}

export function planUpdateMetric(ctx: ControlContext, access: ProjectAccess, metricId: string, input: typeof MetricUpdateRequest.static) {
  requireScope(access, "insights:write");
  const row = liveMetric(ctx, access, metricId);
  const changes: Partial<MetricRow> = { updatedAt: nowIso() };
  if (input.description !== undefined) changes.description = input.description;
  if (input.direction !== undefined) changes.direction = input.direction;
  if (input.monitor !== undefined) changes.monitor = input.monitor;
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.owner_id !== undefined) changes.ownerId = input.owner_id;
  if (input.unit !== undefined) changes.unit = input.unit;
  // A new definition is a new version, and no longer the one that was certified.
  if (input.query !== undefined && JSON.stringify(input.query) !== JSON.stringify(row.query)) {
    Object.assign(changes, { query: input.query, kind: input.query.kind, version: row.version + 1, certified: false, certifiedAt: null, certifiedBy: null });
  }
  const updated = { ...row, ...changes };
  return plan(access, "metric.update", row.id, metricDto(row), metricDto(updated), () => {
    ctx.db.update(metrics).set(changes).where(eq(metrics.id, row.id)).run();
    return metricDto(updated);
  });
}

export function planArchiveMetric(ctx: ControlContext, access: ProjectAccess, metricId: string) {
  requireScope(access, "insights:write");
  const row = liveMetric(ctx, access, metricId);
  const now = nowIso();
  const archived = { ...row, archivedAt: now, updatedAt: now };
  return plan(access, "metric.archive", row.id, metricDto(row), metricDto(archived), () => {
    ctx.db.update(metrics).set({ archivedAt: now, updatedAt: now }).where(eq(metrics.id, row.id)).run();
    return metricDto(archived);
  });
}

/** Certifying vouches for a definition: an admin's call (projects:write), not any editor's. */
export function planCertifyMetric(ctx: ControlContext, access: ProjectAccess, metricId: string) {
  requireScope(access, "insights:write");
  requireScope(access, "projects:write");
  const row = liveMetric(ctx, access, metricId);
  if (row.certified) throw conflict("the metric is already certified");
  const now = nowIso();
  const certified = { ...row, certified: true, certifiedAt: now, certifiedBy: access.principal.user.id, updatedAt: now };
  return plan(access, "metric.certify", row.id, metricDto(row), metricDto(certified), () => {
    ctx.db.update(metrics).set({ certified: true, certifiedAt: now, certifiedBy: certified.certifiedBy, updatedAt: now }).where(eq(metrics.id, row.id)).run();
    return metricDto(certified);
  });
}
