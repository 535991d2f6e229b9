import type { StoredEvent } from "../../storage/event-record.ts";

let clock = Date.parse("2026-11-20T10:00:00.000Z");

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
    groups: null,
    set: null,
    set_once: null,
    properties: {},
    ...overrides,
  };
}
