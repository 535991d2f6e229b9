// Findings destinations of a project (spec 1: DestinationDto and its requests; docs/findings.md).
// The URL and the signing secret are never returned nor audited: the DTO says `has_secret` and
// shows `secret_hint`. Deleting a destination takes it out of every rule that sends to it.
// Every committed change is pushed to the project's region (findings-sync.ts).
import { and, asc, count, eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { notFound, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { findingsDestinations, findingsRules } from "../db/schema.ts";
import { newId, requireUuid } from "../ids.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { checkDestinationConfig, checkDestinationSecrets, checkFindingsName, secretHint } from "./destination-checks.ts";
import { destinationsPerProjectMax } from "./findings-limits.ts";
import { requireRegionServed } from "./findings-sync.ts";
import type { DestinationCreateInput, DestinationUpdateInput } from "./findings-schemas.ts";

export type DestinationRow = typeof findingsDestinations.$inferSelect;

export const destinationDto = (row: DestinationRow) => ({
  id: row.id,
  project_id: row.projectId,
  kind: row.kind,
  name: row.name,
  enabled: row.enabled,
  min_severity: row.minSeverity,
  config: row.config,
  has_secret: row.secret !== null,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  created_by: row.createdBy,
  secret_hint: row.secretHint,
});

export function projectDestinations(ctx: ControlContext, projectId: string): DestinationRow[] {
  return ctx.db.select().from(findingsDestinations).where(eq(findingsDestinations.projectId, projectId))
    .orderBy(asc(findingsDestinations.createdAt), asc(findingsDestinations.id)).all();
}

export function listDestinations(ctx: ControlContext, access: ProjectAccess) {
  requireScope(access, "alerts:read");
  return { destinations: projectDestinations(ctx, access.project.id).map(destinationDto) };
}

/** The project's destination (404 for another project's, an unknown or a malformed id). */
export function destinationOfProject(ctx: ControlContext, access: ProjectAccess, destinationId: string): DestinationRow {
  const id = requireUuid(destinationId, "findings destination");
  const row = ctx.db.select().from(findingsDestinations)
    .where(and(eq(findingsDestinations.id, id), eq(findingsDestinations.projectId, access.project.id))).get();
  if (!row) throw notFound("findings destination");
  return row;
}

const plan = (access: ProjectAccess, action: string, targetId: string, before: unknown, after: unknown, apply: () => DestinationRow): WritePlan<DestinationRow> => ({
  action, targetType: "findings_destination", targetId, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

export function planCreateDestination(ctx: ControlContext, access: ProjectAccess, input: DestinationCreateInput): WritePlan<DestinationRow> {
  requireScope(access, "alerts:write");
  requireRegionServed(ctx, access.project);
  const [{ value: existing }] = ctx.db.select({ value: count() }).from(findingsDestinations).where(eq(findingsDestinations.projectId, access.project.id)).all() as [{ value: number }];
  if (existing >= destinationsPerProjectMax) throw validation(`a project has at most ${destinationsPerProjectMax} findings destinations`);
  const secrets = checkDestinationSecrets(input.kind, input, { secret: null, signingSecret: null });
  const now = nowIso();
  const row: DestinationRow = {
    id: newId(),
    projectId: access.project.id,
    kind: input.kind,
    name: checkFindingsName(input.name),
    enabled: input.enabled ?? true,
    minSeverity: input.min_severity ?? "info",
    config: checkDestinationConfig(input.config),
    secret: secrets.secret,
    signingSecret: secrets.signingSecret,
    secretHint: secretHint(secrets.secret),
    createdAt: now,
    updatedAt: now,
    createdBy: access.principal.user.id,
  };
  return plan(access, "findings_destination.create", row.id, null, destinationDto(row), () => {
    ctx.db.insert(findingsDestinations).values(row).run();
    return row;
  });
}

export function planUpdateDestination(ctx: ControlContext, access: ProjectAccess, destinationId: string, input: DestinationUpdateInput): WritePlan<DestinationRow> {
  const row = destinationOfProject(ctx, access, destinationId);
  requireScope(access, "alerts:write");
  const secrets = checkDestinationSecrets(row.kind, input, { secret: row.secret, signingSecret: row.signingSecret });
  const after: DestinationRow = {
    ...row,
    name: input.name === undefined ? row.name : checkFindingsName(input.name),
    enabled: input.enabled ?? row.enabled,
    minSeverity: input.min_severity ?? row.minSeverity,
    config: input.config === undefined ? row.config : checkDestinationConfig(input.config),
    secret: secrets.secret,
    signingSecret: secrets.signingSecret,
    secretHint: secretHint(secrets.secret),
    updatedAt: nowIso(),
  };
  return plan(access, "findings_destination.update", row.id, destinationDto(row), destinationDto(after), () => {
    const { id: _id, projectId: _projectId, kind: _kind, createdAt: _createdAt, createdBy: _createdBy, ...changed } = after;
    ctx.db.update(findingsDestinations).set(changed).where(eq(findingsDestinations.id, row.id)).run();
    return after;
  });
}

/** Deletes the destination and takes it out of the rules that send to it (in the same transaction). */
export function planDeleteDestination(ctx: ControlContext, access: ProjectAccess, destinationId: string): WritePlan<DestinationRow> {
  const row = destinationOfProject(ctx, access, destinationId);
  requireScope(access, "alerts:write");
  return plan(access, "findings_destination.delete", row.id, destinationDto(row), null, () => {
    const now = nowIso();
    const rules = ctx.db.select().from(findingsRules).where(eq(findingsRules.projectId, access.project.id)).all();
    for (const rule of rules.filter((candidate) => candidate.destinationIds.includes(row.id))) {
      ctx.db.update(findingsRules).set({ destinationIds: rule.destinationIds.filter((id) => id !== row.id), updatedAt: now })
        .where(eq(findingsRules.id, rule.id)).run();
    }
    ctx.db.delete(findingsDestinations).where(eq(findingsDestinations.id, row.id)).run();
    return row;
  });
}
