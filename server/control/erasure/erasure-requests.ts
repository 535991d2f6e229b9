// Erasure requests as the routes see them: create (audited, identifiers kept aside until the
// erasure ends), list newest first, read one, read its certificate. Every call needs
// `persons.erase` (spec 1: admins and owners), checked after the tenancy check.
import { and, desc, eq, sql } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { conflict, notFound, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { erasureRequests, erasureSubjects } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { defaultEnvironment, requireEnvironment } from "../services/projects.ts";
import { listPage, pageOf } from "../list-params.ts";
import { certificatePayloadOf } from "./erasure-certificate.ts";
import type { ErasureCreateInput } from "./erasure-schemas.ts";

export const erasureScope = "persons.erase";
/** Requests made in the same millisecond keep the order they were made in. */
export const insertionOrder = sql`${erasureRequests}.rowid`;

export type ErasureRow = typeof erasureRequests.$inferSelect;
export interface ErasureSubjects {
  person_ids: string[];
  distinct_ids: string[];
}

/** Where a surface serves a request's certificate: /v1 for tokens, /app for the console. */
export type CertificateBase = (projectId: string, requestId: string) => string;

export function erasureDto(row: ErasureRow, certificateUrl: CertificateBase) {
  const report = row.report as { persons_erased?: number } | null;
  return {
    id: row.id,
    project_id: row.projectId,
    environment: row.environment,
    status: row.status,
    progress: row.progressStage === null ? null : { stage: row.progressStage, done: row.progressDone ?? 0, total: row.progressTotal ?? 0 },
    subject_count: row.subjectCount,
    persons_erased: report?.persons_erased ?? null,
    error: row.error,
    created_at: row.createdAt,
    started_at: row.startedAt,
    completed_at: row.completedAt,
    certificate_url: row.status === "completed" ? certificateUrl(row.projectId, row.id) : null,
  };
}
export type ErasureDto = ReturnType<typeof erasureDto>;

/** Each identifier once, in the order given: naming a person twice erases them once. */
function subjectsOf(input: ErasureCreateInput): ErasureSubjects {
  const personIds = new Set<string>();
  const distinctIds = new Set<string>();
  input.persons.forEach((person, index) => {
    if ((person.person_id === undefined) === (person.distinct_id === undefined)) {
      throw validation(`body /persons/${index}: name the person by exactly one of person_id and distinct_id`);
    }
    if (person.distinct_id?.trim() === "") throw validation(`body /persons/${index}/distinct_id: must not be only white space (ingest accepts no such id)`);
    if (person.person_id !== undefined) personIds.add(person.person_id.toLowerCase());
    else distinctIds.add(person.distinct_id!);
  });
  return { person_ids: [...personIds], distinct_ids: [...distinctIds] };
}

export function planCreateErasure(ctx: ControlContext, access: ProjectAccess, input: ErasureCreateInput): WritePlan<ErasureRow> {
  requireScope(access, erasureScope);
  const environment = input.environment ?? defaultEnvironment;
  requireEnvironment(ctx, access.project.id, environment);
  const subjects = subjectsOf(input);
  const row: ErasureRow = {
    id: newId(),
    projectId: access.project.id,
    environment,
    status: "pending",
    subjectCount: subjects.person_ids.length + subjects.distinct_ids.length,
    progressStage: null,
    progressDone: null,
    progressTotal: null,
    error: null,
    report: null,
    certificate: null,
    createdAt: nowIso(),
    startedAt: null,
    completedAt: null,
  };
  return {
    action: "erasure.request",
    targetType: "erasure_request",
    targetId: row.id,
    orgId: access.org.id,
    projectId: access.project.id,
    before: null,
    // Counts only: the audit log outlives the erasure, so it never names whom it erased.
    after: { environment, person_ids: subjects.person_ids.length, distinct_ids: subjects.distinct_ids.length },
    apply: () => {
      ctx.db.insert(erasureRequests).values(row).run();
      ctx.db.insert(erasureSubjects).values({ requestId: row.id, subjects }).run();
      return row;
    },
  };
}

export function listErasures(ctx: ControlContext, access: ProjectAccess, query: URLSearchParams, certificateUrl: CertificateBase) {
  requireScope(access, erasureScope);
  const page = listPage(query);
  const rows = ctx.db.select().from(erasureRequests).where(eq(erasureRequests.projectId, access.project.id))
    .orderBy(desc(erasureRequests.createdAt), desc(insertionOrder)).limit(page.limit + 1).offset(page.offset).all();
  const { rows: shown, nextOffset } = pageOf(rows, page);
  return { erasure_requests: shown.map((row) => erasureDto(row, certificateUrl)), next_offset: nextOffset };
}

export function erasureOfProject(ctx: ControlContext, access: ProjectAccess, requestId: string): ErasureRow {
  requireScope(access, erasureScope);
  const id = requireUuid(requestId, "erasure request");
  const row = ctx.db.select().from(erasureRequests).where(and(eq(erasureRequests.id, id), eq(erasureRequests.projectId, access.project.id))).get();
  if (!row) throw notFound("erasure request");
  return row;
}

export function erasureCertificate(ctx: ControlContext, access: ProjectAccess, requestId: string) {
  const row = erasureOfProject(ctx, access, requestId);
  if (row.status !== "completed" || row.certificate === null) throw conflict(`the erasure is ${row.status}: its certificate is issued once it is completed`);
  return { certificate: row.certificate, payload: certificatePayloadOf(row.certificate) };
}
