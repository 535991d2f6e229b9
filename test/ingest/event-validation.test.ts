// Native ingest's checks of each event over real HTTP (spec 2: Events, Errors, Limits): every
// rejection reason, clock skew and the event size limit, with the rest of the batch accepted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestService } from "../helpers/service.ts";
import {
  daysAgo, eventOfSize, nativeBody, nativeEvent, nonexistentDay, ok, postIngest, rfc3339, startDedicatedService,
  type DedicatedService, type NativeEvent,
} from "./helpers.ts";
import { regionReader } from "../drop-in/region-reader.ts";

const KiB = 1024;
/** Names with a defined meaning (spec 2, Events) plus the other `$` names the service knows. */
const knownReservedNames = [
  "$identify", "$create_alias", "$groupidentify", "$set", "$pageview", "$screen",
  "$pageleave", "$autocapture", "$exception", "$feature_flag_called", "$rageclick", "$opt_in",
];

let service: TestService;
let key: string;
let dispose: () => Promise<void>;
let dedicated: DedicatedService;

beforeAll(async () => {
  dedicated = await startDedicatedService();
  ({ service, key, dispose } = dedicated);
});
afterAll(() => dispose());

const post = (payload: unknown, options?: Parameters<typeof postIngest>[2]) => postIngest(service.url, payload, options);
const bodyText = (batch: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify(nativeBody(key, batch, extra));

interface EventCase {
  name: string;
  event: () => NativeEvent;
}

const string201 = "u".repeat(201);
const sixGroups = { company: "acme", team: "growth", workspace: "w1", region: "emea", plan: "pro", cohort: "c7" };
const fiveGroups = { company: "acme", team: "growth", workspace: "w1", region: "emea", plan: "pro" };

const invalidEvents: EventCase[] = [
  { name: "uuid is a v4 uuid", event: () => nativeEvent({ uuid: crypto.randomUUID() }) },
  { name: "uuid is not a uuid", event: () => nativeEvent({ uuid: "event-1" }) },
  { name: "uuid is a v7 without dashes", event: () => nativeEvent({ uuid: Bun.randomUUIDv7().replace(/-/g, "") }) },
  { name: "uuid is missing (reported as null)", event: () => nativeEvent({ uuid: undefined }) },
  { name: "uuid is a number (reported as null)", event: () => nativeEvent({ uuid: 42 }) },
  { name: "event name is missing", event: () => nativeEvent({ event: undefined }) },
  { name: "event name is empty", event: () => nativeEvent({ event: "" }) },
  { name: "event name is only spaces", event: () => nativeEvent({ event: "   " }) },
  { name: "event name is over 200 characters", event: () => nativeEvent({ event: "e".repeat(201) }) },
  { name: "event name is not a string", event: () => nativeEvent({ event: 42 }) },
  { name: "timestamp is missing", event: () => nativeEvent({ timestamp: undefined }) },
  { name: "timestamp is a word", event: () => nativeEvent({ timestamp: "yesterday" }) },
  { name: "timestamp is a date without a time", event: () => nativeEvent({ timestamp: new Date().toISOString().slice(0, 10) }) },
  { name: "timestamp has no offset", event: () => nativeEvent({ timestamp: new Date(Date.now() - 60_000).toISOString().slice(0, 19) }) },
  { name: "timestamp is epoch milliseconds", event: () => nativeEvent({ timestamp: Date.now() - 60_000 }) },
  { name: "timestamp has month 13", event: () => nativeEvent({ timestamp: `${new Date().getUTCFullYear()}-13-01T00:00:00Z` }) },
  { name: "timestamp has hour 25", event: () => nativeEvent({ timestamp: `${rfc3339(daysAgo(1)).slice(0, 10)}T25:00:00Z` }) },
  { name: "timestamp names a day that does not exist (the 31st of a 30-day month)", event: () => nativeEvent({ timestamp: nonexistentDay() }) },
  { name: "timestamp is older than the project's retention (366 days)", event: () => nativeEvent({ timestamp: rfc3339(daysAgo(366)) }) },
  { name: "distinct_id is missing", event: () => nativeEvent({ distinct_id: undefined }) },
  { name: "distinct_id is empty", event: () => nativeEvent({ distinct_id: "" }) },
  { name: "distinct_id is only spaces", event: () => nativeEvent({ distinct_id: "   " }) },
  { name: "distinct_id is 201 characters", event: () => nativeEvent({ distinct_id: string201 }) },
  { name: "distinct_id is 201 characters outside the BMP (402 UTF-16 units)", event: () => nativeEvent({ distinct_id: "😀".repeat(201) }) },
  { name: "anon_id is 201 characters", event: () => nativeEvent({ anon_id: string201 }) },
  { name: "distinct_id is a number", event: () => nativeEvent({ distinct_id: 1234567890 }) },
  { name: "distinct_id is an email address", event: () => nativeEvent({ distinct_id: "jane@example.com" }) },
  { name: "distinct_id is a mixed-case email address", event: () => nativeEvent({ distinct_id: "Jane.Doe+news@Example.CO.UK" }) },
  { name: "distinct_id is an international phone number", event: () => nativeEvent({ distinct_id: "+44 20 7946 0958" }) },
  { name: "distinct_id is a phone number with parentheses", event: () => nativeEvent({ distinct_id: "(555) 123-4567" }) },
  { name: "distinct_id is a phone number with dashes", event: () => nativeEvent({ distinct_id: "555-123-4567" }) },
  { name: "properties are missing", event: () => nativeEvent({ properties: undefined }) },
  { name: "properties are null", event: () => nativeEvent({ properties: null }) },
  { name: "properties are an array", event: () => nativeEvent({ properties: [{ plan: "pro" }] }) },
  { name: "properties are a string", event: () => nativeEvent({ properties: "plan=pro" }) },
  { name: "revenue is a decimal amount with a currency", event: () => nativeEvent({ properties: { revenue: 9.99, currency: "EUR" } }) },
  { name: "amount is a decimal amount with a currency", event: () => nativeEvent({ properties: { amount: 10.5, currency: "USD" } }) },
  { name: "price is a string with a currency", event: () => nativeEvent({ properties: { price: "999", currency: "GBP" } }) },
  { name: "currency is not an ISO 4217 code", event: () => nativeEvent({ properties: { revenue: 999, currency: "XYZ" } }) },
  { name: "currency is a number", event: () => nativeEvent({ properties: { revenue: 999, currency: 978 } }) },
  { name: "lib is an empty object", event: () => nativeEvent({ lib: {} }) },
  { name: "lib name is empty", event: () => nativeEvent({ lib: { name: "", version: "1.0.0" } }) },
  { name: "lib version is missing", event: () => nativeEvent({ lib: { name: "test-sdk" } }) },
  { name: "lib version is empty", event: () => nativeEvent({ lib: { name: "test-sdk", version: "" } }) },
  { name: "lib version is a number", event: () => nativeEvent({ lib: { name: "test-sdk", version: 1 } }) },
  { name: "anon_id is a number", event: () => nativeEvent({ anon_id: 42 }) },
  { name: "anon_id is an object", event: () => nativeEvent({ anon_id: { id: "device-1" } }) },
  { name: "session_id is a v4 uuid", event: () => nativeEvent({ session_id: crypto.randomUUID() }) },
  { name: "session_id is not a uuid", event: () => nativeEvent({ session_id: "session-1" }) },
  { name: "session_id is a number", event: () => nativeEvent({ session_id: 7 }) },
  { name: "window_id is a v4 uuid", event: () => nativeEvent({ window_id: crypto.randomUUID() }) },
  { name: "window_id is not a uuid", event: () => nativeEvent({ window_id: "tab-1" }) },
  { name: "$set is a string", event: () => nativeEvent({ $set: "plan=pro" }) },
  { name: "$set is an array", event: () => nativeEvent({ $set: [] }) },
  { name: "$set_once is a number", event: () => nativeEvent({ $set_once: 5 }) },
  { name: "groups have 6 types", event: () => nativeEvent({ groups: sixGroups }) },
  { name: "groups are a string", event: () => nativeEvent({ groups: "acme" }) },
  { name: "groups are an array", event: () => nativeEvent({ groups: ["acme"] }) },
  { name: "a group key is a number", event: () => nativeEvent({ groups: { company: 42 } }) },
  { name: "a group key is empty", event: () => nativeEvent({ groups: { company: "" } }) },
  { name: "consent is not one of granted, pending, cookieless", event: () => nativeEvent({ consent: "yes" }) },
  { name: "consent is upper case", event: () => nativeEvent({ consent: "GRANTED" }) },
  { name: "consent is a boolean", event: () => nativeEvent({ consent: true }) },
];

const reservedNameEvents: EventCase[] = [
  { name: "an unknown $ name", event: () => nativeEvent({ event: "$something_unknown" }) },
  { name: "a known $ name in another case", event: () => nativeEvent({ event: "$PAGEVIEW" }) },
  { name: "a lone $", event: () => nativeEvent({ event: "$" }) },
];

const acceptedEvents: EventCase[] = [
  { name: "a v7 uuid in upper case", event: () => nativeEvent({ uuid: Bun.randomUUIDv7().toUpperCase() }) },
  { name: "an event name of 200 characters", event: () => nativeEvent({ event: "e".repeat(200) }) },
  { name: "an event name with a $ that is not the first character", event: () => nativeEvent({ event: "paid $5" }) },
  { name: "a timestamp with a +05:30 offset", event: () => nativeEvent({ timestamp: new Date(Date.now() - 60_000 + 5.5 * 3_600_000).toISOString().replace("Z", "+05:30") }) },
  { name: "a timestamp with lower-case t and z", event: () => nativeEvent({ timestamp: rfc3339(daysAgo(1)).replace("T", "t").replace("Z", "z") }) },
  { name: "a timestamp with nanoseconds", event: () => nativeEvent({ timestamp: rfc3339(daysAgo(1)).replace("Z", ".123456789Z") }) },
  { name: "a timestamp 364 days old (inside the retention)", event: () => nativeEvent({ timestamp: rfc3339(daysAgo(364)) }) },
  { name: "a timestamp in the future (clamped, not rejected)", event: () => nativeEvent({ timestamp: rfc3339(Date.now() + 3_600_000) }) },
  { name: "a bare digit string as distinct_id (a numeric user id)", event: () => nativeEvent({ distinct_id: "1234567890" }) },
  { name: "a distinct_id of 200 characters", event: () => nativeEvent({ distinct_id: "u".repeat(200) }) },
  { name: "a distinct_id of 200 characters outside the BMP (400 UTF-16 units: characters are code points)", event: () => nativeEvent({ distinct_id: "😀".repeat(200) }) },
  { name: "an anon_id of 200 characters", event: () => nativeEvent({ anon_id: "d".repeat(200) }) },
  { name: "a uuid as distinct_id", event: () => nativeEvent({ distinct_id: crypto.randomUUID() }) },
  { name: "a distinct_id of one character", event: () => nativeEvent({ distinct_id: "7" }) },
  { name: "empty properties", event: () => nativeEvent({ properties: {} }) },
  { name: "integer minor units with a currency", event: () => nativeEvent({ properties: { revenue: 999, amount: 1999, price: 500, currency: "EUR" } }) },
  { name: "a currency without an amount", event: () => nativeEvent({ properties: { currency: "JPY" } }) },
  { name: "a decimal revenue without a currency (the money rule needs a currency)", event: () => nativeEvent({ properties: { revenue: 9.99 } }) },
  { name: "lib name import (hand-written integrations)", event: () => nativeEvent({ lib: { name: "import", version: "1" } }) },
  { name: "anon_id as a string", event: () => nativeEvent({ anon_id: "device-1" }) },
  { name: "anon_id null", event: () => nativeEvent({ anon_id: null }) },
  { name: "v7 session_id and window_id", event: () => nativeEvent({ session_id: Bun.randomUUIDv7(), window_id: Bun.randomUUIDv7() }) },
  { name: "$set and $set_once objects", event: () => nativeEvent({ $set: { plan: "pro" }, $set_once: {} }) },
  { name: "groups with 5 types", event: () => nativeEvent({ groups: fiveGroups }) },
  { name: "consent granted", event: () => nativeEvent({ consent: "granted" }) },
  { name: "consent pending", event: () => nativeEvent({ consent: "pending" }) },
  { name: "consent cookieless", event: () => nativeEvent({ consent: "cookieless" }) },
  { name: "unknown extra fields on the event", event: () => nativeEvent({ extra: { anything: true } }) },
];

describe("per-event validation: the event is rejected, the rest of the batch accepted", () => {
  const expectRejected = async (bad: NativeEvent, reason: string) => {
    const reply = await post(nativeBody(key, [nativeEvent(), bad, nativeEvent()]));
    const uuid = typeof bad.uuid === "string" ? bad.uuid : null;
    expect([reply.status, reply.body]).toEqual([200, ok(2, [{ uuid, reason }])]);
  };
  for (const { name, event } of invalidEvents) test(`invalid: ${name}`, () => expectRejected(event(), "invalid"));
  for (const { name, event } of reservedNameEvents) test(`reserved_name: ${name}`, () => expectRejected(event(), "reserved_name"));
});

describe("per-event validation: accepted", () => {
  for (const { name, event } of acceptedEvents) {
    test(name, async () => {
      const reply = await post(nativeBody(key, [event()]));
      expect([reply.status, reply.body]).toEqual([200, ok(1)]);
    });
  }

  test("every known $ name is accepted", async () => {
    const reply = await post(nativeBody(key, knownReservedNames.map((event) => nativeEvent({ event }))));
    expect([reply.status, reply.body]).toEqual([200, ok(knownReservedNames.length)]);
  });
});

describe("clock skew", () => {
  test("an event stamped more than 60 s after sent_at is rejected clock_skew; 60 s exactly is accepted", async () => {
    const sentAt = Date.now() - 5_000;
    const skewed = nativeEvent({ timestamp: new Date(sentAt + 60_001).toISOString() });
    const farAhead = nativeEvent({ timestamp: new Date(sentAt + 3_600_000).toISOString() });
    const atTolerance = nativeEvent({ timestamp: new Date(sentAt + 60_000).toISOString() });
    const reply = await post(nativeBody(key, [skewed, atTolerance, farAhead], { sent_at: new Date(sentAt).toISOString() }));
    expect([reply.status, reply.body]).toEqual([200, ok(1, [
      { uuid: skewed.uuid, reason: "clock_skew" },
      { uuid: farAhead.uuid, reason: "clock_skew" },
    ])]);
  });

  test("a client clock far behind is corrected, not rejected", async () => {
    const sentAt = Date.now() - 2 * 3_600_000;
    const reply = await post(nativeBody(key, [nativeEvent({ timestamp: new Date(sentAt - 1000).toISOString() })], { sent_at: new Date(sentAt).toISOString() }));
    expect([reply.status, reply.body]).toEqual([200, ok(1)]);
  });

  test("retention is checked on the corrected time: an old stamp from a client clock a year behind is accepted", async () => {
    const sentAt = daysAgo(400);
    const reply = await post(nativeBody(key, [nativeEvent({ timestamp: new Date(sentAt - 1000).toISOString() })], { sent_at: new Date(sentAt).toISOString() }));
    expect([reply.status, reply.body]).toEqual([200, ok(1)]);
  });
});

describe("retention", () => {
  test("the edge is exact: an event 365 days (the default retention) older than its request is accepted, 1 ms more is invalid", async () => {
    // With sent_at the corrected time is the stamp plus (receive time - sent_at), so its age at
    // receipt is sent_at - stamp, whatever the request's transit took.
    const sentAt = Date.now();
    const retentionMs = 365 * 86_400_000;
    const atEdge = nativeEvent({ timestamp: new Date(sentAt - retentionMs).toISOString() });
    const past = nativeEvent({ timestamp: new Date(sentAt - retentionMs - 1).toISOString() });
    const reply = await post(nativeBody(key, [past, atEdge], { sent_at: new Date(sentAt).toISOString() }));
    expect([reply.status, reply.body]).toEqual([200, ok(1, [{ uuid: past.uuid, reason: "invalid" }])]);
  });
});

describe("event size", () => {
  test("an event over 900 KiB is rejected too_large; 900 KiB and under are accepted", async () => {
    const under = eventOfSize(899 * KiB);
    const exactly = eventOfSize(900 * KiB);
    const over = eventOfSize(900 * KiB + 1);
    // 310,000 euro signs: fewer than 900 Ki characters but 930,000 bytes of UTF-8.
    const wide = nativeEvent({ properties: { note: "€".repeat(310_000) } });
    const batch = [under, over, nativeEvent(), exactly, wide];
    const reply = await post(nativeBody(key, batch));
    expect([reply.status, reply.body]).toEqual([200, ok(3, [
      { uuid: over.uuid, reason: "too_large" },
      { uuid: wide.uuid, reason: "too_large" },
    ])]);
  });

  test("a request of 21 events of 899 KiB each (19.3 MB) is accepted whole", async () => {
    const batch = Array.from({ length: 21 }, () => eventOfSize(899 * KiB));
    const raw = bodyText(batch);
    expect(raw.length).toBeLessThan(20_000_000);
    const reply = await post(undefined, { raw });
    expect([reply.status, reply.body]).toEqual([200, ok(21)]);
  });
});

describe("nesting", () => {
  /** `levels` arrays around a 1: "[[1]]" for 2. */
  const nested = (levels: number) => "[".repeat(levels) + "1" + "]".repeat(levels);
  /** An event whose JSON nests `levels` deep: the event, its properties, then arrays. */
  const eventNesting = (levels: number, distinctId: string) => {
    const event = nativeEvent({ distinct_id: distinctId, properties: { value: "@" } });
    return { event, text: JSON.stringify(event).replace('"@"', nested(levels - 2)) };
  };

  test("an event nesting 100 levels deep is stored; 101 and 100,000 levels are invalid, in a body under or over 900 KiB, and storage goes on", async () => {
    const atEdge = eventNesting(100, "nesting-edge");
    const past = eventNesting(101, "nesting-past");
    const far = eventNesting(100_000, "nesting-far");
    const plain = nativeEvent({ distinct_id: "nesting-edge" });
    // Over 900 KiB, the body's events are measured by writing them back as JSON, which a deep one would overflow.
    const large = eventOfSize(899 * KiB);
    const small = await post(undefined, { raw: `{"api_key":"${key}","batch":[${[past.text, atEdge.text, far.text].join(",")}]}` });
    const big = await post(undefined, { raw: `{"api_key":"${key}","batch":[${[far.text, JSON.stringify(large), JSON.stringify(plain)].join(",")}]}` });
    const invalid = (event: NativeEvent) => ({ uuid: event.uuid, reason: "invalid" });
    expect([[small.status, small.body], [big.status, big.body]]).toEqual([
      [200, ok(1, [invalid(past.event), invalid(far.event)])],
      [200, ok(2, [invalid(far.event)])],
    ]);
    // Read back through the storage worker, which writes nested values as JSON text: it took both requests.
    const reader = await regionReader(service, dedicated.owner, dedicated.project.id);
    const events = await reader.eventsOf(await reader.personOf("nesting-edge"));
    expect(events.map((event) => [event.uuid, event.properties])).toEqual([
      [atEdge.event.uuid, { value: JSON.parse(nested(98)) }],
      [plain.uuid, { plan: "pro" }],
    ]);
    const health = await fetch(`${service.url}/ingest/eu/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: "ok", checks: { "region:eu": "ok" } }]);
  });
});

describe("property keys", () => {
  test("a property key of 1,000 characters is stored (astral ones count once); 1,001 characters is invalid, and the rest of the batch is stored", async () => {
    const atEdge = nativeEvent({ distinct_id: "long-keys", properties: { ["k".repeat(1000)]: 1 } });
    const astral = nativeEvent({ distinct_id: "long-keys", properties: { ["😀".repeat(1000)]: "wide" } });
    const past = nativeEvent({ distinct_id: "long-keys", properties: { plan: "pro", ["k".repeat(1001)]: 1 } });
    const astralPast = nativeEvent({ distinct_id: "long-keys", properties: { ["😀".repeat(1001)]: "wide" } });
    const reply = await post(nativeBody(key, [atEdge, past, astral, astralPast]));
    expect([reply.status, reply.body]).toEqual([
      200, ok(2, [{ uuid: past.uuid, reason: "invalid" }, { uuid: astralPast.uuid, reason: "invalid" }]),
    ]);
    const reader = await regionReader(service, dedicated.owner, dedicated.project.id);
    const events = await reader.eventsOf(await reader.personOf("long-keys"));
    expect(events.map((event) => [event.uuid, event.properties])).toEqual([
      [atEdge.uuid, atEdge.properties],
      [astral.uuid, astral.properties],
    ]);
  });
});
