// Keys named like members of Object.prototype (`toString`, `constructor`, `__proto__`, ...) are
// keys like any other wherever ingest stores them: event properties, person properties ($set,
// $set_once, and merges of persons), group types and group properties, on the native path and
// the drop-in paths. Bodies are written as JSON text (an object literal's `__proto__` would set
// a prototype instead of a key), and what was stored is read back through the region API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createToken, regionTokenFor } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { regionReader, type RegionReader } from "../drop-in/region-reader.ts";
import { nativeBody, nativeEvent, ok, postIngest, rfc3339, startDedicatedService, type DedicatedService } from "./helpers.ts";

const prototypeKeys = [
  "toString", "constructor", "valueOf", "hasOwnProperty", "__proto__", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString",
  "__defineGetter__", "__lookupSetter__",
];

/** An object whose own keys are `entries`' (`__proto__` too), as JSON.parse makes it. */
function own(entries: [string, unknown][]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  return record;
}

/**
 * Every prototype key with a value made from it: an object for every other key (`__proto__`
 * among them), text for the rest; `flipped` swaps which, so each key is tried both ways.
 */
const valuesOf = (tag: string, flipped = false) =>
  own(prototypeKeys.map((key, index) => [key, (index % 2 === 0) !== flipped ? { [tag]: index } : `${tag}-${key}`]));

let dedicated: DedicatedService;
let reader: RegionReader;
let maskedToken: string;
let clock = Date.now() - 3_600_000;
const at = () => rfc3339((clock += 1000));

beforeAll(async () => {
  dedicated = await startDedicatedService();
  reader = await regionReader(dedicated.service, dedicated.owner, dedicated.project.id);
  const { secret } = await createToken(dedicated.owner, ["persons:read"]);
  maskedToken = await regionTokenFor(dedicated.service, secret, dedicated.project.id, ["persons:read"]);
});
afterAll(() => dedicated.dispose());

const region = async (path: string, token: string) => {
  const reply = await call(dedicated.service.url, "GET", `/region/eu${path}`, { headers: bearer(token) });
  expect([path, reply.status]).toEqual([path, 200]);
  return reply.body;
};

const post = async (payload: unknown, path = "/batch") => {
  const reply = await postIngest(dedicated.service.url, undefined, { path, raw: JSON.stringify(payload) });
  return [reply.status, reply.body];
};

describe("native events", () => {
  test("$set and $set_once keys named like Object.prototype members are person properties, through later writes and a merge", async () => {
    const once = valuesOf("once");
    const set = valuesOf("set");
    const later = own([["toString", "later"], ["__proto__", "later"]]);
    const batch = [
      nativeEvent({ distinct_id: "proto-anon", timestamp: at(), properties: {}, $set_once: once }),
      nativeEvent({ distinct_id: "proto-user", timestamp: at(), properties: {}, $set: set, $set_once: own([["valueOf", "ignored"]]) }),
      nativeEvent({ distinct_id: "proto-user", timestamp: at(), properties: {}, $set: later }),
      nativeEvent({ event: "$identify", distinct_id: "proto-user", anon_id: "proto-anon", timestamp: at(), properties: {} }),
    ];
    expect(await post(nativeBody(dedicated.key, batch))).toEqual([200, ok(4)]);
    const person = await reader.personOf("proto-user");
    // $set wins over $set_once; the later $set wins; the merge keeps them all.
    const expected = own(prototypeKeys.map((key) => [key, key === "toString" || key === "__proto__" ? "later" : set[key]]));
    expect([person.distinct_ids.sort(), person.properties]).toEqual([["proto-anon", "proto-user"], expected]);
    expect(Object.keys(person.properties).sort()).toEqual([...prototypeKeys].sort());
    // A token without persons.pii sees the same keys (none of these values is personal data).
    expect((await region(`/persons/${person.id}`, maskedToken)).properties).toEqual(expected);
  });

  test("event properties, group types and group properties named like Object.prototype members are stored as sent", async () => {
    const properties = valuesOf("event");
    const flipped = valuesOf("flipped", true);
    const groups = own([["__proto__", "proto-group"], ["constructor", "constructor-group"]]);
    const groupSet = valuesOf("group");
    const batch = [
      nativeEvent({ distinct_id: "proto-event", timestamp: at(), properties, groups }),
      nativeEvent({ distinct_id: "proto-event", timestamp: at(), properties: flipped }),
      nativeEvent({
        event: "$groupidentify", distinct_id: "proto-event", timestamp: at(),
        properties: own([["$group_type", "constructor"], ["$group_key", "constructor-group"], ["$group_set", groupSet]]),
      }),
    ];
    expect(await post(nativeBody(dedicated.key, batch))).toEqual([200, ok(3)]);
    const [event, flippedEvent, identify] = await reader.eventsOf(await reader.personOf("proto-event"));
    expect([event!.properties, event!.groups, flippedEvent!.properties]).toEqual([properties, groups, flipped]);
    expect(Object.keys(event!.properties).sort()).toEqual([...prototypeKeys].sort());
    expect(identify!.properties.$group_set).toEqual(groupSet);
    const types = await region("/groups/types", maskedToken);
    expect(types.results).toEqual([{ index: 0, name: "__proto__" }, { index: 1, name: "constructor" }]);
    expect((await region("/groups/1/constructor-group", maskedToken)).properties).toEqual(groupSet);
  });
});

describe("drop-in events", () => {
  test("PostHog: properties, $set in properties and $groups keep such keys", async () => {
    const properties = valuesOf("posthog");
    const set = valuesOf("posthog-set");
    const groups = own([["__proto__", "proto-group"]]);
    const event = { event: "proto", distinct_id: "proto-posthog", timestamp: at(), properties: own([...Object.entries(properties), ["$set", set], ["$groups", groups]]) };
    expect(await post({ api_key: dedicated.key, batch: [event] }, "/i/v0/e/")).toEqual([200, { status: 1, ...ok(1) }]);
    const person = await reader.personOf("proto-posthog");
    const [stored] = await reader.eventsOf(person);
    expect([stored!.properties, stored!.groups, stored!.$set, person.properties]).toEqual([properties, groups, set, set]);
  });

  test("Segment: track properties and identify traits keep such keys", async () => {
    const properties = valuesOf("segment");
    const traits = valuesOf("traits");
    const batch = [
      { type: "track", userId: "proto-segment", event: "proto", timestamp: at(), properties },
      { type: "identify", userId: "proto-segment", timestamp: at(), traits },
    ];
    expect(await post({ writeKey: dedicated.key, batch }, "/v1/batch")).toEqual([200, { success: true, ...ok(2) }]);
    const person = await reader.personOf("proto-segment");
    const [track] = await reader.eventsOf(person);
    expect([track!.properties, person.properties]).toEqual([properties, traits]);
  });
});
