// Annotations in the control plane: list a time window (default the last 90 days to a day
// ahead, oldest first, as a chart's time axis reads), create, update and delete the ones people
// wrote. System annotations answer 409 to changes: they record what the service did.
import { and, asc, eq, gte, lt, type SQL } from "drizzle-orm";
import { dayMs, nowIso } from "../../clock.ts";
import { conflict, notFound, validation } from "../../http/errors.ts";
import { parseRfc3339 } from "../../ingest/rfc3339.ts";
import type { ControlContext } from "../context.ts";
import { annotations } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { listPage, pageOf } from "../list-params.ts";
import { annotationRefBytesMax, systemKinds, userKinds, type AnnotationCreateInput, type AnnotationUpdateInput } from "./annotation-schemas.ts";

export type AnnotationRow = typeof annotations.$inferSelect;

export const listLookBackMs = 90 * dayMs;
export const listLookAheadMs = dayMs;

export const annotationDto = (row: AnnotationRow) => ({
  id: row.id,
  project_id: row.projectId,
  content: row.content,
  kind: row.kind,
  occurred_at: row.occurredAt,
  source: row.source,
  created_at: row.createdAt,
  created_by: row.createdBy,
  ref: row.ref,
});
type AnnotationDtoValue = ReturnType<typeof annotationDto>;

/** An RFC 3339 time as stored (UTC, milliseconds), or a 400 naming where it came from. */
function instant(value: string, where: string): string {
  const ms = parseRfc3339(value);
  if (ms === null) throw validation(`${where} must be an RFC 3339 timestamp such as 2026-11-27T09:30:00Z`);
  return new Date(ms).toISOString();
}

function checkRef(ref: Record<string, unknown> | null | undefined): void {
  if (ref && Buffer.byteLength(JSON.stringify(ref)) > annotationRefBytesMax) throw validation(`body /ref: at most ${annotationRefBytesMax} bytes of JSON`);
}

function annotationOfProject(ctx: ControlContext, access: ProjectAccess, annotationId: string): AnnotationRow {
  const id = requireUuid(annotationId, "annotation");
  const row = ctx.db.select().from(annotations).where(and(eq(annotations.id, id), eq(annotations.projectId, access.project.id))).get();
  if (!row) throw notFound("annotation");
  return row;
}

function editable(ctx: ControlContext, access: ProjectAccess, annotationId: string): AnnotationRow {
  const row = annotationOfProject(ctx, access, annotationId);
  if (row.source === "system") throw conflict("system annotations record what the service did and cannot be changed");
  return row;
}

export function listAnnotations(ctx: ControlContext, access: ProjectAccess, query: URLSearchParams) {
  requireScope(access, "annotations:read");
  const now = Date.now();
  const from = query.has("from") ? instant(query.get("from")!, "from") : new Date(now - listLookBackMs).toISOString();
  const to = query.has("to") ? instant(query.get("to")!, "to") : new Date(now + listLookAheadMs).toISOString();
  if (from >= to) throw validation(`from (${from}) must be before to (${to})`);
  const where: SQL[] = [eq(annotations.projectId, access.project.id), gte(annotations.occurredAt, from), lt(annotations.occurredAt, to)];
  const kind = query.get("kind");
  if (kind !== null) {
    const kinds: readonly string[] = [...userKinds, ...systemKinds];
    if (!kinds.includes(kind)) throw validation(`kind must be one of ${kinds.join(", ")}`);
    where.push(eq(annotations.kind, kind));
  }
  const page = listPage(query);
  const rows = ctx.db.select().from(annotations).where(and(...where)).orderBy(asc(annotations.occurredAt), asc(annotations.id)).limit(page.limit + 1).offset(page.offset).all();
  const { rows: shown, nextOffset } = pageOf(rows, page);
  return { annotations: shown.map(annotationDto), next_offset: nextOffset };
}

const plan = (access: ProjectAccess, action: string, targetId: string, before: unknown, after: unknown, apply: () => AnnotationDtoValue): WritePlan<AnnotationDtoValue> => ({
  action, targetType: "annotation", targetId, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

export function planCreateAnnotation(ctx: ControlContext, access: ProjectAccess, input: AnnotationCreateInput): WritePlan<AnnotationDtoValue> {
  requireScope(access, "annotations:write");
  checkRef(input.ref);
  const now = nowIso();
  const row: AnnotationRow = {
    id: newId(), projectId: access.project.id, content: input.content.trim(), kind: input.kind, occurredAt: instant(input.occurred_at, "body /occurred_at"),
    source: "user", ref: input.ref ?? null, createdBy: access.principal.user.id, createdAt: now, updatedAt: now,
  };
  return plan(access, "annotation.create", row.id, null, annotationDto(row), () => {
    ctx.db.insert(annotations).values(row).run();
    return annotationDto(row);
  });
}

/** Null members leave the field as it is (the spec's update fields are nullable, and none may be emptied). */
export function planUpdateAnnotation(ctx: ControlContext, access: ProjectAccess, annotationId: string, input: AnnotationUpdateInput): WritePlan<AnnotationDtoValue> {
  requireScope(access, "annotations:write");
  const row = editable(ctx, access, annotationId);
  const changes: Partial<AnnotationRow> = { updatedAt: nowIso() };
  if (input.content != null) changes.content = input.content.trim();
  if (input.kind != null) changes.kind = input.kind;
  if (input.occurred_at != null) changes.occurredAt = instant(input.occurred_at, "body /occurred_at");
  const updated = { ...row, ...changes };
  return plan(access, "annotation.update", row.id, annotationDto(row), annotationDto(updated), () => {
    ctx.db.update(annotations).set(changes).where(eq(annotations.id, row.id)).run();
    return annotationDto(updated);
  });
}

export function planDeleteAnnotation(ctx: ControlContext, access: ProjectAccess, annotationId: string): WritePlan<AnnotationDtoValue> {
  requireScope(access, "annotations:write");
  const row = editable(ctx, access, annotationId);
  return plan(access, "annotation.delete", row.id, annotationDto(row), null, () => {
    ctx.db.delete(annotations).where(eq(annotations.id, row.id)).run();
    return annotationDto(row);
  });
}
