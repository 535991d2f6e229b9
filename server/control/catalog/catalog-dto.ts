// Catalog rows to the spec's DTOs, and reading an event with its properties (kept in input
// order by `position`).
import { and, asc, eq, inArray } from "drizzle-orm";
import { notFound } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { catalogEvents, catalogProperties } from "../db/schema.ts";
import { requireUuid } from "../ids.ts";
import type { CatalogStatus, EventKind, PiiLevel, PropertyType } from "./catalog-schemas.ts";

export type CatalogEventRow = typeof catalogEvents.$inferSelect;
export type CatalogPropertyRow = typeof catalogProperties.$inferSelect;

/** An event as stored, with its properties in order. */
export interface CatalogEvent {
  row: CatalogEventRow;
  properties: CatalogPropertyRow[];
}

const catalogPropertyDto = (row: CatalogPropertyRow) => ({
  id: row.id,
  name: row.name,
  type: row.type as PropertyType,
  pii: row.pii,
  required: row.required,
  scope: "event" as const,
  description: row.description,
  enum_values: row.enumValues,
  event_id: row.eventId,
  example: row.example,
});

export const catalogEventDto = ({ row, properties }: CatalogEvent) => ({
  id: row.id,
  project_id: row.projectId,
  name: row.name,
  kind: row.kind as EventKind,
  status: row.status as CatalogStatus,
  pii_level: row.piiLevel as PiiLevel,
  platforms: row.platforms,
  tags: row.tags,
  properties: properties.map(catalogPropertyDto),
  version: row.version,
  volume_30d: row.volume30d,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  description: row.description,
  display_name: row.displayName,
  first_seen_at: row.firstSeenAt,
  last_seen_at: row.lastSeenAt,
  owner_id: row.ownerId,
  question: row.question,
});

export type CatalogEventDtoValue = ReturnType<typeof catalogEventDto>;

/** The properties of these events, by event id, in order. */
function propertiesOf(ctx: ControlContext, eventIds: string[]): Map<string, CatalogPropertyRow[]> {
  const byEvent = new Map<string, CatalogPropertyRow[]>(eventIds.map((eventId) => [eventId, []]));
  if (eventIds.length === 0) return byEvent;
  const rows = ctx.db.select().from(catalogProperties).where(inArray(catalogProperties.eventId, eventIds)).orderBy(asc(catalogProperties.position)).all();
  for (const row of rows) byEvent.get(row.eventId!)?.push(row);
  return byEvent;
}

/** Every event of the project, by name, with its properties. */
export function projectCatalog(ctx: ControlContext, projectId: string): CatalogEvent[] {
  const rows = ctx.db.select().from(catalogEvents).where(eq(catalogEvents.projectId, projectId)).all();
  rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const properties = propertiesOf(ctx, rows.map((row) => row.id));
  return rows.map((row) => ({ row, properties: properties.get(row.id)! }));
}

/** One event of the project (404 for another project's, or a malformed id). */
export function catalogEventOfProject(ctx: ControlContext, projectId: string, eventId: string): CatalogEvent {
  const id = requireUuid(eventId, "catalog event");
  const row = ctx.db.select().from(catalogEvents).where(and(eq(catalogEvents.id, id), eq(catalogEvents.projectId, projectId))).get();
  if (!row) throw notFound("catalog event");
  return { row, properties: propertiesOf(ctx, [row.id]).get(row.id)! };
}
