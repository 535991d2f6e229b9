// What GET /events/live shows of an event: the fields a console lists (docs/live-events.md),
// the same as GET /persons/{id}/events plus the person and the time the region received it.
// Everything in it came from ingest and is hostile: it only ever leaves as JSON text.
import type { RecentEvent } from "./recent-events.ts";

export interface LiveEventDto {
  uuid: string;
  event: string;
  timestamp: string;
  received_at: string;
  distinct_id: string;
  /** The person now (after merges), or null when the person store no longer has it. */
  person_id: string | null;
  anon_id: string | null;
  session_id: string | null;
  window_id: string | null;
  lib: { name: string; version: string };
  consent: string;
  groups: Record<string, string> | null;
  $set: Record<string, unknown> | null;
  $set_once: Record<string, unknown> | null;
  properties: Record<string, unknown>;
  location: { country: string | null; region: string | null; city: string | null; timezone: string | null };
  is_suspect: boolean;
  sample_rate: number;
}

/** Masks personal data in property objects, or leaves them (a token with persons.pii). */
export type PropertyView = (properties: Record<string, unknown>) => Record<string, unknown>;

const iso = (epochMs: number) => new Date(epochMs).toISOString();

export function liveEventDto({ event, stored, location, receivedAt }: RecentEvent, personId: string | null, view: PropertyView): LiveEventDto {
  return {
    uuid: event.uuid,
    event: event.event,
    timestamp: iso(stored.timestamp),
    received_at: iso(receivedAt),
    distinct_id: event.distinctId,
    person_id: personId,
    anon_id: event.anonId,
    session_id: event.sessionId,
    window_id: event.windowId,
    lib: { name: event.libName, version: event.libVersion },
    consent: event.consent,
    groups: event.groups,
    $set: event.set && view(event.set),
    $set_once: event.setOnce && view(event.setOnce),
    properties: view(event.properties),
    location: { country: location.country, region: location.region, city: location.city, timezone: location.timezone },
    is_suspect: stored.isSuspect,
    sample_rate: stored.sampleRate,
  };
}
