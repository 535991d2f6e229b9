import { groupTypesPerProjectMax } from "../../storage/person-store.ts";
import { noLocation, type AcceptedBatch, type Location, type StoredEvent } from "../../storage/event-record.ts";

let clock = Date.parse("2026-11-20T10:00:00.000Z");

/** Group keys by slot when the event's group types take slots in the order they are listed. */
function slotsInOrder(groups: Record<string, string> | null | undefined): (string | null)[] {
  const keys: (string | null)[] = new Array(groupTypesPerProjectMax).fill(null);
  Object.values(groups ?? {}).forEach((key, slot) => (keys[slot] = key));
  return keys;
}

export function storedEvent(overrides: Partial<StoredEvent> = {}): StoredEvent {
  clock += 1000;
  return {
    uuid: Bun.randomUUIDv7(),
    event: "page_viewed",
    timestamp: clock,
    distinct_id: "user-1",
    anon_id: null,
    session_id: null,
    window_id: null,
    lib_name: "test",
    lib_version: "1.0.0",
    consent: "granted",
    sample_rate: 1,
    geo_country: null,
    geo_region: null,
    geo_city: null,
    geo_timezone: null,
    is_suspect: false,
    person_index: 0,
    groups: null,
    group_keys: slotsInOrder(overrides.groups),
    set: null,
    set_once: null,
    properties: {},
    ...overrides,
  };
}

/**
 * The WAL record capture would write for these events: a native body with each event's
 * fields, and ingest's decisions (timestamp, sample rate, suspect mark, location: each distinct
 * one once in the record, as capture names each address's once).
 */
export function acceptedBatchOf(projectId: string, dataId: number, environment: string, events: StoredEvent[]): AcceptedBatch {
  const locations: Location[] = [];
  const slots = new Map<string, number>();
  const locationSlot = (event: StoredEvent): number => {
    const place: Location = { country: event.geo_country, region: event.geo_region, city: event.geo_city, timezone: event.geo_timezone };
    const text = JSON.stringify(place);
    if (!slots.has(text)) slots.set(text, locations.push(place) - 1);
    return slots.get(text)!;
  };
  const eventLocations = events.map(locationSlot);
  const groupTypes: Record<string, number> = {};
  for (const event of events) {
    for (const [type, key] of Object.entries(event.groups ?? {})) {
      const slot = event.group_keys.indexOf(key);
      if (slot < 0 || (groupTypes[type] ?? slot) !== slot) throw new Error(`group type ${type} must keep one slot across the batch`);
      groupTypes[type] = slot;
    }
  }
  const batch = events.map((event) => ({
    uuid: event.uuid,
    event: event.event,
    timestamp: new Date(event.timestamp).toISOString(),
    distinct_id: event.distinct_id,
    anon_id: event.anon_id,
    session_id: event.session_id,
    window_id: event.window_id,
    lib: { name: event.lib_name, version: event.lib_version },
    consent: event.consent,
    groups: event.groups,
    $set: event.set,
    $set_once: event.set_once,
    properties: event.properties,
  }));
  return {
    projectId,
    dataId,
    environment,
    receivedAt: Date.now(),
    locations: locations.length > 0 ? locations : [noLocation],
    groupTypes,
    events: events.map((event, index) => ({
      index, timestamp: event.timestamp, sampleRate: event.sample_rate, isSuspect: event.is_suspect, personIndex: event.person_index,
      location: eventLocations[index]!,
    })),
    body: new TextEncoder().encode(JSON.stringify({ batch })),
  };
}
