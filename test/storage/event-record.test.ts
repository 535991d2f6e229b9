import { describe, expect, test } from "bun:test";
import { decodeBatchRecord } from "../../storage/event-buffer.ts";
import { encodeBatchRecord, type AcceptedBatch } from "../../storage/event-record.ts";

const projectId = "6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const london = { country: "GB", region: "ENG", city: "London", timezone: "Europe/London" };
const paris = { country: "FR", region: "IDF", city: "Paris", timezone: "Europe/Paris" };
const uuidA = "019A8B2C-0000-7000-8000-00000000000A";
const uuidB = "019a8b2c-0000-7000-8000-00000000000b";
const session = "019A8B2C-0000-7000-8000-0000000000C0";

function body(batch: unknown[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ api_key: "pk_x", sent_at: "2026-11-21T10:00:00Z", batch }));
}

const rawA = {
  uuid: uuidA,
  event: "signed_up",
  timestamp: "2026-11-21T09:59:59Z",
  distinct_id: "user-1",
  session_id: session,
  lib: { name: "web", version: "2.0.0" },
  consent: "pending",
  groups: { company: "acme", team: "ops", unknown_sixth: "x" },
  $set: { plan: "pro" },
  $set_once: { first_seen: "2026-11-21" },
  properties: { $ip: "81.2.69.160", plan: "pro", $sample_rate: 0.5 },
};
const rejected = { uuid: "not-a-uuid", event: "x" };
const rawB = {
  uuid: uuidB,
  event: "$pageview",
  timestamp: "2026-11-21T09:59:58Z",
  distinct_id: "user-2",
  lib: { name: "web", version: "2.0.0" },
  properties: { $geoip_disable: true },
};

const accepted: AcceptedBatch = {
  projectId,
  dataId: 7,
  environment: "production",
  receivedAt: 1_795_000_000_123,
  // The request's address's location, then one an event gave as $ip.
  locations: [london, paris],
  // The project's types: team took slot 0 before company took slot 3; the sixth type has none.
  groupTypes: { team: 0, company: 3 },
  events: [
    { index: 0, timestamp: 1_795_000_000_000, sampleRate: 0.25, isSuspect: true, personIndex: 41, location: 1 },
    { index: 2, timestamp: 1_794_999_999_000, sampleRate: 1, isSuspect: false, personIndex: 2_000_000_000, location: 0 },
  ],
  body: body([rawA, rejected, rawB]),
};

describe("WAL event records", () => {
  test("decoding gives the stored events of the accepted indexes with ingest's decisions applied", () => {
    expect(decodeBatchRecord(...encodeBatchRecord(accepted))).toEqual({
      project_id: projectId,
      data_id: 7,
      environment: "production",
      received_at: 1_795_000_000_123,
      events: [
        {
          uuid: uuidA.toLowerCase(),
          event: "signed_up",
          timestamp: 1_795_000_000_000,
          distinct_id: "user-1",
          anon_id: null,
          session_id: session.toLowerCase(),
          window_id: null,
          lib_name: "web",
          lib_version: "2.0.0",
          consent: "pending",
          sample_rate: 0.25,
          // Its own location: the second of the record's.
          geo_country: "FR",
          geo_region: "IDF",
          geo_city: "Paris",
          geo_timezone: "Europe/Paris",
          is_suspect: true,
          person_index: 41,
          groups: { company: "acme", team: "ops", unknown_sixth: "x" },
          group_keys: ["ops", null, null, "acme", null],
          set: { plan: "pro" },
          set_once: { first_seen: "2026-11-21" },
          // $ip is never stored; the sample rate becomes the event's own.
          properties: { plan: "pro", $sample_rate: 0.25 },
        },
        {
          uuid: uuidB,
          event: "$pageview",
          timestamp: 1_794_999_999_000,
          distinct_id: "user-2",
          anon_id: null,
          session_id: null,
          window_id: null,
          lib_name: "web",
          lib_version: "2.0.0",
          consent: "granted",
          sample_rate: 1,
          // $geoip_disable: the request's location is not applied.
          geo_country: null,
          geo_region: null,
          geo_city: null,
          geo_timezone: null,
          is_suspect: false,
          person_index: 2_000_000_000,
          groups: null,
          group_keys: [null, null, null, null, null],
          set: null,
          set_once: null,
          properties: { $geoip_disable: true },
        },
      ],
    });
  });

  test("the whole payload, as the WAL gives it back, decodes like the two parts", () => {
    const [head, body] = encodeBatchRecord(accepted);
    expect(decodeBatchRecord(Buffer.concat([head, body]))).toEqual(decodeBatchRecord(head, body));
  });

  test("a record with no accepted events decodes to none", () => {
    const none = { ...accepted, locations: [london], events: [] };
    expect(decodeBatchRecord(...encodeBatchRecord(none)).events).toEqual([]);
  });

  test("a record of an unknown format is refused, not misread", () => {
    const [head, body] = encodeBatchRecord(accepted);
    head[0] = 9;
    expect(() => decodeBatchRecord(head, body)).toThrow("WAL record format 9 is not known (expected 4 or 3)");
  });

  test("a record of format 3 (one location per request, written before an upgrade) still decodes, every event at that location, without $ip", () => {
    // Earlier versions logged $ip inside $set, $set_once and $group_set as sent.
    const legacyA = {
      ...rawA,
      $set: { ...rawA.$set, $ip: "81.2.69.160" },
      $set_once: { ...rawA.$set_once, $ip: "81.2.69.160" },
      properties: { ...rawA.properties, $group_set: { $ip: "81.2.69.160", seats: 5 } },
    };
    const cleanA = { ...rawA, properties: { ...rawA.properties, $group_set: { seats: 5 } } };
    // Format 3 as earlier versions wrote it: the header's one `location`, entries without a location slot.
    const header = new TextEncoder().encode(JSON.stringify({
      project_id: projectId, data_id: 7, environment: "production", received_at: 1_795_000_000_123, location: london, group_types: { team: 0, company: 3 },
    }));
    const entryBytes = 25;
    const head = new Uint8Array(1 + 4 + header.byteLength + 4 + 2 * entryBytes);
    const view = new DataView(head.buffer);
    view.setUint8(0, 3);
    view.setUint32(1, header.byteLength, true);
    head.set(header, 5);
    let offset = 5 + header.byteLength;
    view.setUint32(offset, 2, true);
    offset += 4;
    for (const event of accepted.events) {
      view.setUint32(offset, event.index, true);
      view.setFloat64(offset + 4, event.timestamp, true);
      view.setFloat64(offset + 12, event.sampleRate, true);
      view.setUint8(offset + 20, event.isSuspect ? 1 : 0);
      view.setUint32(offset + 21, event.personIndex, true);
      offset += entryBytes;
    }
    const everyEventInLondon = decodeBatchRecord(...encodeBatchRecord({
      ...accepted,
      body: body([cleanA, rejected, rawB]),
      events: accepted.events.map((event) => ({ ...event, location: 0 })),
    }));
    // As the WAL gives it back: one payload, the body after the entries.
    expect(decodeBatchRecord(Buffer.concat([head, body([legacyA, rejected, rawB])]))).toEqual(everyEventInLondon);
    expect(everyEventInLondon.events.map((event) => [event.geo_city, event.set, event.set_once, event.properties.$group_set ?? null])).toEqual([
      ["London", { plan: "pro" }, { first_seen: "2026-11-21" }, { seats: 5 }],
      [null, null, null, null],
    ]);
  });
});
