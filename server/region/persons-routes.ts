// GET /persons, GET /persons/{id}, GET /persons/{id}/events, GET /persons/{id}/identity and
// POST /persons/{id}/unmerge (spec 2, Region API). Bodies are not shown in the spec; they are
// documented in docs/persons.md. Persons belong to the token's project; events are those of
// the token's environment. A merged-away person's id answers as the person it merged into.
import { Elysia, t } from "elysia";
import { jsonResponse, ApiError, notFound } from "../http/errors.ts";
import { requireUuid } from "../control/ids.ts";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import type { StoredEvent } from "../../storage/event-record.ts";
import type { PersonRecord } from "../../storage/person-directory.ts";
import { UnmergeError, unmergeDistinctIdsMax } from "../../storage/person-store.ts";
import { distinctIdLengthMax } from "../ingest/limits.ts";
import type { RegionNode } from "./region-node.ts";
import { snapshotChunks, type ChunkStore } from "../../engine/chunk-store.ts";
import { personEventsOf, type EventCursor } from "../../engine/person-events.ts";
import { snapshotAttemptsMax } from "./sql-service.ts";
import { tooManyConcurrentQueries, type QueryGate } from "./query-service.ts";
import type { RegionClaims } from "./region-auth.ts";
import { badRequest, regionAccess, type RegionTokenCheck } from "./region-access.ts";
import { decodeCursor, page, pageAt, pageLimit, textParam } from "./paging.ts";
import { isPersonalKey, isPersonalValue, maskProperties } from "./pii-mask.ts";

const unmergeBodyBytesMax = 64 * 1024;

const UnmergeRequest = t.Object(
  { distinct_ids: t.Array(t.String({ minLength: 1, maxLength: distinctIdLengthMax }), { minItems: 1, maxItems: unmergeDistinctIdsMax }) },
  { additionalProperties: false },
);

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** What a token may see of personal data: everything with persons.pii, else masked values. */
export function propertyView(node: RegionNode, claims: RegionClaims): (properties: Record<string, unknown>) => Record<string, unknown> {
  if (claims.scopes.includes("persons.pii")) return (properties) => properties;
  const catalogPii = new Set(node.store.directory.piiProperties(claims.projectId));
  return (properties) => maskProperties(properties, catalogPii);
}

/** A person as the persons routes (and the cohort preview's sample) answer it. */
export function personDto(node: RegionNode, person: PersonRecord, view: (p: Record<string, unknown>) => Record<string, unknown>) {
  return {
    id: person.id,
    distinct_ids: node.store.directory.distinctIdsOf(person.projectId, person.index),
    properties: view(person.properties),
    created_at: iso(person.createdAt),
    is_identified: person.isIdentified,
    version: person.version,
  };
}

function eventDto(event: StoredEvent, view: (p: Record<string, unknown>) => Record<string, unknown>) {
  return {
    uuid: event.uuid,
    event: event.event,
    timestamp: iso(event.timestamp),
    distinct_id: event.distinct_id,
    anon_id: event.anon_id,
    session_id: event.session_id,
    window_id: event.window_id,
    lib: { name: event.lib_name, version: event.lib_version },
    consent: event.consent,
    groups: event.groups,
    $set: event.set && view(event.set),
    $set_once: event.set_once && view(event.set_once),
    properties: view(event.properties),
    location: { country: event.geo_country, region: event.geo_region, city: event.geo_city, timezone: event.geo_timezone },
    is_suspect: event.is_suspect,
    sample_rate: event.sample_rate,
  };
}

/** The person an id in the path names now (following merges), in the token's project. */
function pathPerson(node: RegionNode, claims: RegionClaims, id: string): PersonRecord {
  const person = node.store.directory.currentPerson(claims.projectId, requireUuid(id, "person"));
  if (!person) throw notFound("person");
  return person;
}

const isPersonPosition = (value: unknown): value is { before: number } =>
  typeof value === "object" && value !== null && Number.isSafeInteger((value as { before: unknown }).before);

const isEventPosition = (value: unknown): value is EventCursor =>
  typeof value === "object" && value !== null &&
  Number.isFinite((value as EventCursor).timestamp) && typeof (value as EventCursor).uuid === "string";

/** A person's events in the token's environment (see personEventsOf): a scan of the partition like a query's, so one of the project's concurrent queries. */
async function readPersonEvents(
  node: RegionNode, columns: ChunkStore, gate: QueryGate, claims: RegionClaims, personIndexes: number[], before: EventCursor | null, limit: number,
): Promise<StoredEvent[]> {
  const release = gate.tryAcquire(claims.projectId);
  if (!release) throw tooManyConcurrentQueries();
  try {
    return await readFromSnapshots(node, columns, claims, personIndexes, before, limit);
  } finally {
    release();
  }
}

/** personEventsOf over a snapshot, and over a fresh one when a compaction removed one of its files while they were read. */
async function readFromSnapshots(
  node: RegionNode, columns: ChunkStore, claims: RegionClaims, personIndexes: number[], before: EventCursor | null, limit: number,
): Promise<StoredEvent[]> {
  for (let attempt = 1; ; attempt++) {
    const chunks = snapshotChunks(await node.events.snapshot(claims.dataId, claims.environment), node.dataDir);
    try {
      return await personEventsOf(columns, chunks, personIndexes, before, limit);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === snapshotAttemptsMax) throw error;
    } finally {
      columns.release(chunks);
    }
  }
}

export function personsRoutes(node: RegionNode, check: RegionTokenCheck, columns: ChunkStore, gate: QueryGate) {
  const directory = node.store.directory;
  return new Elysia()
    .get("/persons", async ({ request }) => {
      const claims = await regionAccess(request, check, "persons:read");
      const query = new URL(request.url).searchParams;
      const limit = pageLimit(query);
      const cursor = decodeCursor(query, isPersonPosition);
      const search = textParam(query, "search");
      const property = textParam(query, "property");
      const value = query.get("value") ?? undefined;
      if (value !== undefined && property === undefined) throw badRequest("value needs property");
      if (property?.includes('"')) throw badRequest("property names with double quotes cannot be searched");
      if (!claims.scopes.includes("persons.pii") && property !== undefined) {
        const catalogPii = new Set(directory.piiProperties(claims.projectId));
        // Matching on a personal-data value would reveal it even though the answer masks it.
        if (isPersonalKey(property, catalogPii) || isPersonalValue(value)) {
          throw new ApiError(403, "forbidden", "searching by personal-data properties needs persons.pii");
        }
      }
      const view = propertyView(node, claims);
      const { persons, nextBefore } = directory.listPersons(claims.projectId, { search, property, value }, cursor?.before ?? null, limit);
      return jsonResponse(200, pageAt(persons.map((person) => personDto(node, person, view)), nextBefore === null ? null : { before: nextBefore }));
    })
    .get("/persons/:id", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "persons:read");
      return jsonResponse(200, personDto(node, pathPerson(node, claims, params.id), propertyView(node, claims)));
    })
    .get("/persons/:id/events", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "persons:read");
      const person = pathPerson(node, claims, params.id);
      const query = new URL(request.url).searchParams;
      const limit = pageLimit(query);
      const cursor = decodeCursor(query, isEventPosition);
      const indexes = directory.indexesOf(claims.projectId, person.index);
      const events = await readPersonEvents(node, columns, gate, claims, indexes, cursor, limit + 1);
      const view = propertyView(node, claims);
      return jsonResponse(200, page(events, limit, (event) => eventDto(event, view), (event) => ({ timestamp: event.timestamp, uuid: event.uuid })));
    })
    .get("/persons/:id/identity", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "persons:read");
      const person = pathPerson(node, claims, params.id);
      const idOf = (index: number) => directory.person(claims.projectId, index)!.id;
      return jsonResponse(200, {
        person_id: person.id,
        distinct_ids: directory.distinctIdsOf(claims.projectId, person.index),
        history: directory.identityLog(claims.projectId, person.index).map((entry) => ({
          kind: entry.kind,
          at: iso(entry.at),
          event_uuid: entry.kind === "unmerge" ? null : entry.eventUuid,
          survivor_id: idOf(entry.survivor),
          absorbed_id: idOf(entry.absorbed),
        })),
      });
    })
    .post("/persons/:id/unmerge", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "persons:write");
      const person = pathPerson(node, claims, params.id);
      const body = validateBody<typeof UnmergeRequest.static>(UnmergeRequest, await readJsonBody(request, unmergeBodyBytesMax));
      let split: number;
      try {
        split = node.store.persons.unmerge(claims.projectId, person.index, body.distinct_ids, Date.now());
      } catch (error) {
        if (error instanceof UnmergeError) throw badRequest(error.message);
        throw error;
      }
      const view = propertyView(node, claims);
      return jsonResponse(200, {
        person: personDto(node, directory.person(claims.projectId, person.index)!, view),
        new_person: personDto(node, directory.person(claims.projectId, split)!, view),
      });
    }, { parse: "none" });
}
