// The live hub without HTTP: what publishing keeps, and how streams end when rendering fails or
// the service stops.
import { describe, expect, test } from "bun:test";
import { LiveHub } from "../../../server/region/live/live-hub.ts";
import type { PersonLookup } from "../../../server/region/live/live-rendering.ts";
import type { PersonRecord } from "../../../storage/person-directory.ts";
import { SseReader } from "../../helpers/sse.ts";
import { nowhere, storedAs, validEvent, watcher } from "./fixtures.ts";

const everything = { events: null, distinctIds: null, properties: [] };

/** Persons 0, 1, ... with ids person-0, person-1, ...; 2 was merged into 1. */
function persons(failing: { now: boolean } = { now: false }): PersonLookup {
  return {
    person: (_projectId: string, index: number | string): PersonRecord | null => {
      if (failing.now) throw new Error("disk I/O error");
      return { projectId: "p", index: Number(index), id: `person-${index}`, properties: {}, createdAt: 0, isIdentified: false, version: 0, mergedInto: index === 2 ? 1 : null };
    },
    piiProperties: () => [],
  };
}

describe("publishing", () => {
  test("keeps what was stored for later streams and answers, without what sampling left out, with the person now", () => {
    const hub = new LiveHub(persons());
    const events = [validEvent(), validEvent(), validEvent()];
    hub.publish("p", "production", events, [storedAs(0, 0), null, storedAs(2, 2)], [nowhere], 1_000, 300);
    const listed = hub.list("p", "production", everything, 10, true);
    expect(listed.events.map((event) => [event.uuid, event.person_id])).toEqual([[events[2]!.uuid, "person-1"], [events[0]!.uuid, "person-0"]]);
    expect(listed.last_event_id).toBe(`${hub.epoch}-2`);
    expect(hub.list("p", "staging", everything, 10, true)).toEqual({ events: [], last_event_id: `${hub.epoch}-0` });
  });

  test("a failure while rendering for a stream ends that stream with internal_error, not the ingest request", async () => {
    const failing = { now: false };
    const hub = new LiveHub(persons(failing));
    const stream = hub.open("p", "production", watcher(), 0, null)!;
    const reader = new SseReader(stream.body);
    failing.now = true;
    const originalError = console.error;
    const logged: unknown[] = [];
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      hub.publish("p", "production", [validEvent()], [storedAs(0)], [nowhere], 1_000, 300);
    } finally {
      console.error = originalError;
    }
    expect(logged).toHaveLength(1);
    expect((await reader.end()).map((event) => [event.type, event.data])).toEqual([["end", '{"reason":"internal_error"}']]);
    expect(hub.streams("p")).toEqual([]);
    failing.now = false;
    expect(hub.list("p", "production", everything, 10, true).events).toHaveLength(1);
  });
});

describe("forgetting (an erasure)", () => {
  test("drops the subjects' events; another person's event keeps its place without their id as its anonymous id", () => {
    const hub = new LiveHub(persons());
    const theirs = validEvent({ distinctId: "gone-7" });
    const byIndex = validEvent({ distinctId: "other-id-of-theirs" });
    const shared = validEvent({ distinctId: "q-login", anonId: "gone-7", properties: { $anon_distinct_id: "gone-7", $device_id: "device-q", plan: "pro" } });
    hub.publish("p", "production", [theirs, byIndex, shared], [storedAs(0, 3), storedAs(1, 4), storedAs(2, 5)], [nowhere], 1_000, 300);
    expect(hub.forget("p", new Set(["gone-7"]), new Set([4]))).toBe(2);
    const listed = hub.list("p", "production", everything, 10, true).events;
    expect(listed.map((event) => [event.uuid, event.distinct_id, event.properties])).toEqual([[shared.uuid, "q-login", { $device_id: "device-q", plan: "pro" }]]);
    expect(JSON.stringify(listed)).not.toContain("gone-7");
  });
});

describe("opening", () => {
  test("a failure while sending the backlog fails the request and leaves no stream behind", () => {
    const failing = { now: false };
    const hub = new LiveHub(persons(failing));
    hub.publish("p", "production", [validEvent()], [storedAs(0)], [nowhere], 1_000, 300);
    failing.now = true;
    expect(() => hub.open("p", "production", watcher(), 10, null)).toThrow("disk I/O error");
    expect(hub.streams("p")).toEqual([]);
  });
});

describe("closing", () => {
  test("ends every stream, and a stream opened afterwards at once", async () => {
    const hub = new LiveHub(persons());
    const readers = [hub.open("p", "production", watcher(), 0, null)!, hub.open("q", "staging", watcher(), 0, null)!].map((stream) => new SseReader(stream.body));
    await hub.close();
    for (const reader of readers) expect((await reader.end()).map((event) => event.data)).toEqual(['{"reason":"shutting_down"}']);
    const late = new SseReader(hub.open("p", "production", watcher(), 0, null)!.body);
    expect((await late.end()).map((event) => event.data)).toEqual(['{"reason":"shutting_down"}']);
    expect([hub.streams("p"), hub.streams("q")]).toEqual([[], []]);
  });
});
