// How a sync merges what the region has seen into the plan (spec 1, States and transitions;
// docs/catalog.md, "Sync"): a `planned` event that was seen becomes `implemented`; a name the
// catalog does not know becomes an `unplanned` event with the properties observed on it; every
// seen event gets its volume_30d and first and last time seen (the earliest and latest any sync
// saw). Observed properties the plan lacks are added to unplanned events only: the properties of
// a planned event are what the team decided, and the plan-violation warnings report the gaps.
// Status and properties are the plan (they raise the event's version); the figures are
// measurements (they do not).
import { exampleLengthMax, propertiesPerEventMax, type PropertyType } from "./catalog-schemas.ts";
import type { CatalogEvent, CatalogEventRow, CatalogPropertyRow } from "./catalog-dto.ts";
import type { DiscoveryAnswer } from "../../region/catalog-discovery.ts";
import { eventKind } from "./event-kinds.ts";
import { newId } from "../ids.ts";

type Discovered = DiscoveryAnswer["events"][number];
type Observed = Discovered["properties"][number];

export interface CatalogMerge {
  /** Names moved from planned to implemented, and names created as unplanned, by name. */
  implemented: string[];
  unplanned: string[];
  created: CatalogEvent[];
  /** Existing events with their new row and the properties added to them. */
  changed: { row: CatalogEventRow; added: CatalogPropertyRow[] }[];
  /** Whether the plan changed (an event created, a status or properties), not only figures. */
  planChanged: boolean;
}

/** One type from the types met: the one, or `any` for a property sent with several. */
const observedType = (types: Observed["types"]): PropertyType => (types.length === 1 ? types[0]! : "any");

const exampleText = (value: Observed["examples"][number] | undefined): string | null =>
  value === undefined ? null : Array.from(typeof value === "string" ? value : JSON.stringify(value)).slice(0, exampleLengthMax).join("");

function observedRows(projectId: string, eventId: string, observed: Observed[], from: number): CatalogPropertyRow[] {
  return observed.slice(0, Math.max(0, propertiesPerEventMax - from)).map((property, index) => ({
    id: newId(), projectId, eventId, name: property.name, type: observedType(property.types), scope: "event", pii: false, required: false,
    description: null, enumValues: null, example: exampleText(property.examples[0]), position: from + index,
  }));
}

const earlier = (a: string | null, b: string) => (a === null || b < a ? b : a);
const later = (a: string | null, b: string) => (a === null || b > a ? b : a);
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The merge of `discovered` into `catalog`; at most `eventsMax` events in all (the most frequent unknown names first). */
export function mergeDiscovery(projectId: string, catalog: CatalogEvent[], discovered: Discovered[], now: string, eventsMax: number): CatalogMerge {
  const byEventName = new Map(catalog.map((event) => [event.row.name, event]));
  const merge: CatalogMerge = { implemented: [], unplanned: [], created: [], changed: [], planChanged: false };
  for (const seen of discovered) {
    const figures = { volume30d: seen.volume_30d };
    const known = byEventName.get(seen.name);
    if (!known) {
      if (catalog.length + merge.created.length >= eventsMax) continue;
      const id = newId();
      const row: CatalogEventRow = {
        id, projectId, name: seen.name, kind: eventKind(seen.name), status: "unplanned", piiLevel: "none", platforms: [], tags: [], version: 1,
        ...figures, firstSeenAt: seen.first_seen, lastSeenAt: seen.last_seen, description: null, displayName: null, ownerId: null, question: null,
        createdAt: now, updatedAt: now,
      };
      merge.created.push({ row, properties: observedRows(projectId, id, seen.properties, 0) });
      merge.unplanned.push(seen.name);
      merge.planChanged = true;
      continue;
    }
    const row: CatalogEventRow = { ...known.row, ...figures, firstSeenAt: earlier(known.row.firstSeenAt, seen.first_seen), lastSeenAt: later(known.row.lastSeenAt, seen.last_seen) };
    if (row.status === "planned") {
      row.status = "implemented";
      merge.implemented.push(seen.name);
    }
    const planned = new Set(known.properties.map((property) => property.name));
    const added = row.status === "unplanned" ? observedRows(projectId, row.id, seen.properties.filter((property) => !planned.has(property.name)), known.properties.length) : [];
    if (row.status !== known.row.status || added.length > 0) {
      Object.assign(row, { version: row.version + 1, updatedAt: now });
      merge.planChanged = true;
    }
    const figuresChanged = row.volume30d !== known.row.volume30d || row.firstSeenAt !== known.row.firstSeenAt || row.lastSeenAt !== known.row.lastSeenAt;
    if (figuresChanged || row.version !== known.row.version) merge.changed.push({ row, added });
  }
  merge.implemented.sort(byName);
  merge.unplanned.sort(byName);
  return merge;
}
