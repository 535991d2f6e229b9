// Catalog events by hand (spec 1: GET, POST …/catalog/events; GET, PATCH, DELETE
// …/catalog/events/{event_id}): console routes, reads with catalog:read and writes with
// catalog:write, each write an audited WritePlan (dry_run previews it). Every change of an
// event raises its version and the project's catalog version; a PATCH that changes nothing
// raises neither. `properties` in a PATCH replaces the event's list (a property keeps its id
// while its name stays). Limits: catalog-schemas.ts, plus catalogEventsMax events per project.
import { and, count, eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { conflict, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { catalogEvents, catalogProperties } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { requireScope, roleIn, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import {
  catalogStatuses, type CatalogEventCreateInput, type CatalogEventUpdateInput, type CatalogPropertyInputValue, type CatalogStatus,
} from "./catalog-schemas.ts";
import { catalogEventDto, catalogEventOfProject, projectCatalog, type CatalogEvent, type CatalogEventDtoValue, type CatalogEventRow, type CatalogPropertyRow } from "./catalog-dto.ts";
import { requireInitialStatus, requireTransition } from "./catalog-transitions.ts";
import { eventKind } from "./event-kinds.ts";
import { bumpCatalog } from "./catalog-settings.ts";

/** Events a project's catalog holds at most (syncs stop creating unplanned ones there). */
export const catalogEventsMax = 1000;
/** Search text of the list: longer text matches no name (names have at most 200 characters). */
export const catalogSearchLengthMax = 200;

export interface CatalogFilter {
  status: string | null;
  search: string | null;
}

export function listCatalogEvents(ctx: ControlContext, access: ProjectAccess, filter: CatalogFilter) {
  requireScope(access, "catalog:read");
  if (filter.status !== null && !(catalogStatuses as readonly string[]).includes(filter.status)) {
    throw validation(`status must be one of ${catalogStatuses.join(", ")}`);
  }
  if (filter.search !== null && (filter.search.length === 0 || filter.search.length > catalogSearchLengthMax)) {
    throw validation(`search must be 1 to ${catalogSearchLengthMax} characters`);
  }
  const needle = filter.search?.toLowerCase() ?? null;
  const found = projectCatalog(ctx, access.project.id).filter(({ row }) =>
    needle === null || row.name.toLowerCase().includes(needle) || (row.displayName?.toLowerCase().includes(needle) ?? false));
  const counts = { deprecated: 0, implemented: 0, planned: 0, unplanned: 0, verified: 0 };
  for (const { row } of found) counts[row.status]++;
  return { events: found.filter(({ row }) => filter.status === null || row.status === filter.status).map(catalogEventDto), counts };
}

export function getCatalogEvent(ctx: ControlContext, access: ProjectAccess, eventId: string) {
  requireScope(access, "catalog:read");
  return catalogEventDto(catalogEventOfProject(ctx, access.project.id, eventId));
}

/** An event's property rows from its input, in order; a name already there keeps its id. */
function propertyRows(projectId: string, eventId: string, inputs: CatalogPropertyInputValue[], existing: CatalogPropertyRow[]): CatalogPropertyRow[] {
  const seen = new Set<string>();
  return inputs.map((input, position) => {
    if (seen.has(input.name)) throw validation(`property names must be distinct: ${JSON.stringify(input.name)} is listed twice`);
    seen.add(input.name);
    const enumValues = input.enum_values ?? null;
    if (enumValues !== null && input.type !== "string") {
      throw validation(`property ${JSON.stringify(input.name)}: enum_values are for properties of type string, not ${input.type}`);
    }
    return {
      id: existing.find((property) => property.name === input.name)?.id ?? newId(),
      projectId, eventId, name: input.name, type: input.type, scope: "event", pii: input.pii ?? false, required: input.required ?? false,
      description: input.description ?? null, enumValues, example: input.example ?? null, position,
    };
  });
}

function requireOwner(ctx: ControlContext, access: ProjectAccess, ownerId: string | null | undefined): void {
  if (ownerId !== undefined && ownerId !== null && roleIn(ctx, access.org.id, ownerId.toLowerCase()) === null) {
    throw validation("owner_id must be a member of the project's organisation");
  }
}

/** Inside a write's transaction: replaces an event's property rows. */
function storeProperties(ctx: ControlContext, eventId: string, rows: CatalogPropertyRow[]): void {
  ctx.db.delete(catalogProperties).where(eq(catalogProperties.eventId, eventId)).run();
  if (rows.length > 0) ctx.db.insert(catalogProperties).values(rows).run();
}

const eventPlan = <T>(access: ProjectAccess, action: string, targetId: string, before: unknown, after: unknown, apply: () => T): WritePlan<T> => ({
  action, targetType: "catalog_event", targetId, orgId: access.org.id, projectId: access.project.id, before, after, apply,
});

export function planCreateCatalogEvent(ctx: ControlContext, access: ProjectAccess, input: CatalogEventCreateInput): WritePlan<CatalogEventDtoValue> {
  requireScope(access, "catalog:write");
  const projectId = access.project.id;
  const taken = ctx.db.select({ id: catalogEvents.id }).from(catalogEvents).where(and(eq(catalogEvents.projectId, projectId), eq(catalogEvents.name, input.name))).get();
  if (taken) throw conflict(`the catalog already has an event named ${JSON.stringify(input.name)}`);
  const held = ctx.db.select({ events: count() }).from(catalogEvents).where(eq(catalogEvents.projectId, projectId)).get()!.events;
  if (held >= catalogEventsMax) throw conflict(`the catalog holds ${catalogEventsMax} events, its limit; delete some first`);
  const status = input.status ?? "planned";
  requireInitialStatus(status);
  requireOwner(ctx, access, input.owner_id);
  const now = nowIso();
  const row: CatalogEventRow = {
    id: newId(), projectId, name: input.name, kind: eventKind(input.name), status, piiLevel: input.pii_level ?? "none",
    platforms: input.platforms ?? [], tags: input.tags ?? [], version: 1, volume30d: null, description: input.description ?? null,
    displayName: input.display_name ?? null, firstSeenAt: null, lastSeenAt: null, ownerId: input.owner_id?.toLowerCase() ?? null,
    question: input.question ?? null, createdAt: now, updatedAt: now,
  };
  const created: CatalogEvent = { row, properties: propertyRows(projectId, row.id, input.properties ?? [], []) };
  const dto = catalogEventDto(created);
  return eventPlan(access, "catalog.event.create", row.id, null, dto, () => {
    ctx.db.insert(catalogEvents).values(row).run();
    storeProperties(ctx, row.id, created.properties);
    bumpCatalog(ctx, projectId);
    return dto;
  });
}

/** The event's row fields an update sets (only those it names). */
function rowChanges(input: CatalogEventUpdateInput): Partial<CatalogEventRow> {
  const changes: Partial<CatalogEventRow> = {};
  if (input.description !== undefined) changes.description = input.description;
  if (input.display_name !== undefined) changes.displayName = input.display_name;
  if (input.owner_id !== undefined) changes.ownerId = input.owner_id?.toLowerCase() ?? null;
  if (input.pii_level !== undefined) changes.piiLevel = input.pii_level;
  if (input.platforms !== undefined) changes.platforms = input.platforms;
  if (input.question !== undefined) changes.question = input.question;
  if (input.status !== undefined) changes.status = input.status;
  if (input.tags !== undefined) changes.tags = input.tags;
  return changes;
}

/** What a person can change of an event, to tell whether an update changes anything. */
const definition = ({ row, properties }: CatalogEvent) => JSON.stringify([
  row.status, row.piiLevel, row.platforms, row.tags, row.description, row.displayName, row.ownerId, row.question,
  properties.map((property) => [property.name, property.type, property.pii, property.required, property.description, property.enumValues, property.example]),
]);

export function planUpdateCatalogEvent(ctx: ControlContext, access: ProjectAccess, eventId: string, input: CatalogEventUpdateInput): WritePlan<CatalogEventDtoValue> {
  requireScope(access, "catalog:write");
  const current = catalogEventOfProject(ctx, access.project.id, eventId);
  if (input.status !== undefined) requireTransition(current.row.status as CatalogStatus, input.status);
  requireOwner(ctx, access, input.owner_id);
  const properties = input.properties === undefined ? current.properties : propertyRows(access.project.id, current.row.id, input.properties, current.properties);
  const candidate: CatalogEvent = { row: { ...current.row, ...rowChanges(input) }, properties };
  const changed = definition(candidate) !== definition(current);
  const updated: CatalogEvent = changed ? { row: { ...candidate.row, version: current.row.version + 1, updatedAt: nowIso() }, properties } : current;
  const dto = catalogEventDto(updated);
  return eventPlan(access, "catalog.event.update", current.row.id, catalogEventDto(current), dto, () => {
    if (changed) {
      ctx.db.update(catalogEvents).set(updated.row).where(eq(catalogEvents.id, current.row.id)).run();
      if (input.properties !== undefined) storeProperties(ctx, current.row.id, properties);
      bumpCatalog(ctx, access.project.id);
    }
    return dto;
  });
}

export function planDeleteCatalogEvent(ctx: ControlContext, access: ProjectAccess, eventId: string): WritePlan<null> {
  requireScope(access, "catalog:write");
  const current = catalogEventOfProject(ctx, access.project.id, eventId);
  return eventPlan(access, "catalog.event.delete", current.row.id, catalogEventDto(current), null, () => {
    storeProperties(ctx, current.row.id, []);
    ctx.db.delete(catalogEvents).where(eq(catalogEvents.id, current.row.id)).run();
    bumpCatalog(ctx, access.project.id);
    return null;
  });
}
