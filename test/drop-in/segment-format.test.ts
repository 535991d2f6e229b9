// The customer-data-platform (Segment HTTP Tracking API) drop-in format over real HTTP, with
// literal payloads for each call, the authentication forms and the limits (spec 2, Drop-in
// endpoints; docs/drop-in.md). What was stored is read back from the region's write-ahead log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { isUuidV7 } from "../../storage/uuid-index.ts";
import type { StoredEvent } from "../../storage/event-record.ts";
import { duplicate, postIngest, readWal, startDedicatedService, storedEvents, type DedicatedService } from "../ingest/helpers.ts";

let dedicated: DedicatedService;
let key: string;

beforeAll(async () => {
  dedicated = await startDedicatedService();
  key = dedicated.key;
});
afterAll(async () => { await dedicated.dispose(); });

const success = (accepted: number, rejected: unknown[] = []) => ({ success: true, accepted, rejected, quota_limited: [] });
const basic = (user: string) => ({ authorization: `Basic ${Buffer.from(user).toString("base64")}` });
const send = (path: string, payload: unknown, options: Parameters<typeof postIngest>[2] = {}) =>
  postIngest(dedicated.service.url, payload, { ...options, path: `/v1/${path}` });

async function stored(prefix: string): Promise<StoredEvent[]> {
  const events = storedEvents(await readWal(dedicated.service.dataDir), dedicated.project.id);
  return events.filter((event) => event.distinct_id.startsWith(prefix));
}

describe("calls", () => {
  test("track: event name, properties, money in minor units, context as properties, located by context.ip (not stored), lib segment-compat", async () => {
    const reply = await send("track", {
      writeKey: key,
      userId: "seg-track",
      event: "Order Completed",
      messageId: "node-next-1732000000000-3f2b8c1e-9d4a-4b7e-8f21-0c5d6e7f8a9b",
      properties: { revenue: 42.5, currency: "eur", items: 2 },
      context: {
        ip: "81.2.69.160",
        library: { name: "@segment/analytics-node", version: "3.1.0" },
        os: { name: "iOS", version: "18.1" },
        app: { name: "Shop", version: "2.4.0", build: "240" },
        locale: "en-GB",
        timezone: "Europe/London",
        userAgent: "Shop/2.4.0 CFNetwork",
      },
    });
    expect([reply.status, reply.body]).toEqual([200, success(1)]);
    const [event] = await stored("seg-track");
    expect([event!.event, event!.lib_name, event!.lib_version, isUuidV7(event!.uuid)]).toEqual(["Order Completed", "segment-compat", "3.1.0", true]);
    expect([event!.geo_country, event!.geo_region, event!.geo_city, event!.geo_timezone]).toEqual(["GB", "ENG", "St Albans", "Europe/London"]);
    expect(event!.properties).toEqual({
      revenue: 4250, currency: "EUR", items: 2,
      $os: "iOS", $os_version: "18.1", $app_name: "Shop", $app_version: "2.4.0", $app_build: "240", $locale: "en-GB", $timezone: "Europe/London",
      $lib: "@segment/analytics-node", $lib_version: "3.1.0", $raw_user_agent: "Shop/2.4.0 CFNetwork",
    });
  });

  test("track: revenue without a currency is US dollars; yen has no minor unit", async () => {
    await send("t", { writeKey: key, userId: "seg-money-usd", event: "Paid", properties: { revenue: 9.99 } });
    await send("t", { writeKey: key, userId: "seg-money-jpy", event: "Paid", properties: { revenue: 1200, currency: "JPY" } });
    expect((await stored("seg-money")).map((event) => event.properties)).toEqual([{ revenue: 999, currency: "USD" }, { revenue: 1200, currency: "JPY" }]);
  });

  test("identify: $identify with traits as person properties; with only anonymousId, $set", async () => {
    await send("identify", { writeKey: key, userId: "seg-ident-user", anonymousId: "seg-ident-anon", traits: { plan: "pro", name: "Ann" } });
    await send("i", { writeKey: key, anonymousId: "seg-ident-only-anon", traits: { theme: "dark" } });
    const events = await stored("seg-ident");
    expect(events.map(({ event, distinct_id, anon_id, set }) => ({ event, distinct_id, anon_id, set }))).toEqual([
      { event: "$identify", distinct_id: "seg-ident-user", anon_id: "seg-ident-anon", set: { plan: "pro", name: "Ann" } },
      { event: "$set", distinct_id: "seg-ident-only-anon", anon_id: null, set: { theme: "dark" } },
    ]);
  });

  test("page: $pageview with URL, path, referrer, title and search from the properties or context.page, name and category", async () => {
    await send("page", {
      writeKey: key, anonymousId: "seg-page", name: "Pricing", category: "Marketing",
      properties: { url: "https://shop.example/pricing?x=1", path: "/pricing" },
      context: { page: { url: "https://ignored.example", referrer: "https://news.example/", title: "Pricing - Shop", search: "?x=1" } },
    });
    const [event] = await stored("seg-page");
    expect([event!.event, event!.properties]).toEqual(["$pageview", {
      url: "https://shop.example/pricing?x=1", path: "/pricing",
      $current_url: "https://shop.example/pricing?x=1", $pathname: "/pricing", $referrer: "https://news.example/", $title: "Pricing - Shop",
      $search: "?x=1", $page_name: "Pricing", $page_category: "Marketing",
    }]);
  });

  test("screen: $screen with $screen_name; group: $groupidentify for company; alias: $create_alias", async () => {
    await send("screen", { writeKey: key, userId: "seg-other", name: "Settings", properties: { tab: "privacy" } });
    await send("group", { writeKey: key, userId: "seg-other", groupId: "acme", traits: { seats: 40 } });
    await send("alias", { writeKey: key, userId: "seg-other", previousId: "seg-other-before" });
    const events = await stored("seg-other");
    expect(events.map(({ event, groups, properties }) => ({ event, groups, properties }))).toEqual([
      { event: "$screen", groups: null, properties: { tab: "privacy", $screen_name: "Settings" } },
      { event: "$groupidentify", groups: { company: "acme" }, properties: { $group_type: "company", $group_key: "acme", $group_set: { seats: 40 } } },
      { event: "$create_alias", groups: null, properties: { alias: "seg-other-before" } },
    ]);
  });

  test("the one-letter paths take the same calls: /v1/p, /v1/s, /v1/g, /v1/a", async () => {
    for (const [path, call] of [
      ["p", { name: "Home" }], ["s", { name: "Feed" }], ["g", { groupId: "short-co" }], ["a", { previousId: "seg-short-old" }],
    ] as const) {
      const reply = await send(path, { writeKey: key, userId: "seg-short", ...call });
      expect([path, reply.status, reply.body]).toEqual([path, 200, success(1)]);
    }
    expect((await stored("seg-short")).map((event) => event.event)).toEqual(["$pageview", "$screen", "$groupidentify", "$create_alias"]);
  });

  test("unknown $ event names get the segment: prefix", async () => {
    await send("track", { writeKey: key, userId: "seg-dollar", event: "$custom" });
    await send("track", { writeKey: key, userId: "seg-dollar", event: "$pageview" });
    expect((await stored("seg-dollar")).map((event) => event.event)).toEqual(["segment:$custom", "$pageview"]);
  });
});

describe("batches", () => {
  test("/v1/batch, /v1/b and /v1/import: items name their type; the batch's context and integrations apply to each; sentAt corrects the clock", async () => {
    const now = Date.now();
    for (const [path, prefix] of [["batch", "seg-batch-a"], ["b", "seg-batch-b"], ["import", "seg-batch-c"]] as const) {
      const reply = await send(path, {
        writeKey: key,
        sentAt: new Date(now + 3_600_000).toISOString(),
        context: { library: { name: "analytics-python", version: "2.3.0" }, locale: "fr-FR" },
        integrations: { All: true },
        batch: [
          { type: "track", userId: `${prefix}-1`, event: "one", originalTimestamp: new Date(now + 3_600_000 - 30_000).toISOString(), context: { locale: "de-DE" } },
          { type: "identify", userId: `${prefix}-2`, traits: { a: 1 }, timestamp: "2026-11-20T09:00:00Z" },
          { type: "bogus", userId: `${prefix}-3` },
          { type: "track", event: "nobody" },
        ],
      });
      expect([path, reply.status, reply.body]).toEqual([path, 200, success(2, [
        { uuid: null, reason: "invalid", message: "type must be one of track, identify, page, screen, group, alias" },
        { uuid: null, reason: "invalid", message: "call needs a userId or an anonymousId" },
      ])]);
      const [one, two] = await stored(prefix);
      expect([one!.properties, one!.lib_version, Math.abs(one!.timestamp - (now - 30_000)) < 5000]).toEqual([{ $locale: "de-DE", $lib: "analytics-python", $lib_version: "2.3.0" }, "2.3.0", true]);
      // timestamp (not originalTimestamp) with a batch sentAt: corrected by the same skew.
      expect(Math.abs(two!.timestamp - (Date.parse("2026-11-20T09:00:00Z") - 3_600_000 + (Date.now() - now)))).toBeLessThan(10_000);
    }
  });

  test("a property or trait key with a control character is invalid as on the native path, the rest stored", async () => {
    const control = (where: string) => `${where} contains a control character (U+0000 to U+001F, U+007F to U+009F)`;
    const reply = await send("batch", { writeKey: key, batch: [
      { type: "track", userId: "seg-keys-1", event: "keyed", messageId: "seg-keys-1", properties: { "a\u0000b": 1 } },
      { type: "identify", userId: "seg-keys-2", messageId: "seg-keys-2", traits: { "line\nbreak": "x" } },
      { type: "track", userId: "seg-keys-3", event: "keyed", properties: { "Plan": 1, "plan": 2 } },
    ] });
    const [first, second] = [reply.body.rejected[0]?.uuid, reply.body.rejected[1]?.uuid];
    expect([reply.status, reply.body]).toEqual([200, success(1, [
      { uuid: first, reason: "invalid", message: control("a key of properties") },
      { uuid: second, reason: "invalid", message: control("a key of $set") },
    ])]);
    expect([isUuidV7(first), isUuidV7(second)]).toEqual([true, true]);
    expect((await stored("seg-keys")).map((event) => [event.distinct_id, event.properties])).toEqual([["seg-keys-3", { Plan: 1, plan: 2 }]]);
  });

  test("messageId makes a retry a duplicate", async () => {
    const call = { type: "track", userId: "seg-retry", event: "once", messageId: "msg-0001" };
    expect((await send("batch", { writeKey: key, batch: [call] })).body).toEqual(success(1));
    const [event] = await stored("seg-retry");
    expect((await send("batch", { writeKey: key, batch: [call] })).body).toEqual(success(0, [duplicate(event!.uuid)]));
  });

  test("gzip bodies and any content type are read as JSON", async () => {
    const body = gzipSync(JSON.stringify({ batch: [{ type: "track", userId: "seg-gzip", event: "zipped" }] }));
    const reply = await send("batch", undefined, { raw: body, headers: { ...basic(`${key}:`), "content-encoding": "gzip", "content-type": "text/plain" } });
    expect([reply.status, reply.body]).toEqual([200, success(1)]);
    expect((await stored("seg-gzip")).map((event) => event.event)).toEqual(["zipped"]);
  });
});

describe("authentication", () => {
  test("HTTP Basic with or without the colon, or writeKey in the body", async () => {
    for (const [id, options, payload] of [
      ["seg-auth-colon", { headers: basic(`${key}:`) }, {}],
      ["seg-auth-nocolon", { headers: basic(key) }, {}],
      ["seg-auth-body", {}, { writeKey: key }],
    ] as const) {
      const reply = await send("track", { userId: id, event: "auth", ...payload }, options);
      expect([id, reply.status, reply.body]).toEqual([id, 200, success(1)]);
    }
  });

  test("no key or an unknown one: 401", async () => {
    const missing = await send("track", { userId: "seg-noauth", event: "x" });
    expect([missing.status, missing.body]).toEqual([401, { error: "api_key is missing" }]);
    const unknown = await send("track", { userId: "seg-noauth", event: "x" }, { headers: basic("wk_unknown:") });
    expect([unknown.status, unknown.body]).toEqual([401, { error: "api_key is not a key of region eu" }]);
    expect(await stored("seg-noauth")).toEqual([]);
  });
});

describe("limits and malformed bodies", () => {
  const padded = (bytes: number, extra: Record<string, unknown>) => {
    const call: Record<string, unknown> = { ...extra, properties: { pad: "" } };
    const pad = bytes - JSON.stringify(call).length;
    call.properties = { pad: "x".repeat(pad) };
    expect(JSON.stringify(call).length).toBe(bytes);
    return call;
  };

  test("one call: 32 KB accepted, 32 KB + 1 answers 400", async () => {
    const fits = padded(32 * 1024, { writeKey: key, userId: "seg-size-fits", event: "big" });
    expect((await send("track", fits)).body).toEqual(success(1));
    const over = padded(32 * 1024 + 1, { writeKey: key, userId: "seg-size-over", event: "big" });
    const reply = await send("track", over);
    expect([reply.status, reply.body]).toEqual([400, { error: "a call is larger than 32768 bytes" }]);
    expect(await stored("seg-size-over")).toEqual([]);
  });

  test("in a batch, a call over 32 KB alone is rejected; a 4 MB body is accepted and one byte more answers 400", async () => {
    const over = padded(32 * 1024 + 1, { type: "track", userId: "seg-batch-over", event: "big" });
    const reply = await send("batch", { writeKey: key, batch: [over, { type: "track", userId: "seg-batch-fine", event: "small" }] });
    expect(reply.body).toEqual(success(1, [{ uuid: expect.any(String), reason: "too_large", message: "call is larger than 32768 bytes" }]));
    const calls = (count: number, id: string) => Array.from({ length: count }, () => padded(30 * 1024, { type: "track", userId: id, event: "bulk" }));
    const body = (batch: unknown[], pad: number) => JSON.stringify({ writeKey: key, padding: "y".repeat(pad), batch });
    const batch = calls(130, "seg-4mb");
    const exact = body(batch, 4 * 1024 * 1024 - body(batch, 0).length);
    expect(exact.length).toBe(4 * 1024 * 1024);
    expect((await send("batch", undefined, { raw: exact })).body).toEqual(success(130));
    const tooBig = await send("batch", undefined, { raw: `${exact} ` });
    expect([tooBig.status, tooBig.body]).toEqual([400, { error: "request body is larger than 4194304 bytes" }]);
  });

  test("2,500 calls accepted; 2,501 answer 400", async () => {
    const many = (count: number) => Array.from({ length: count }, (_, index) => ({ type: "track", userId: "seg-count", event: "n", messageId: `count-${count}-${index}` }));
    expect((await send("batch", { writeKey: key, batch: many(2500) })).body).toEqual(success(2500));
    const reply = await send("batch", { writeKey: key, batch: many(2501) });
    expect([reply.status, reply.body]).toEqual([400, { error: "a batch holds at most 2500 calls; this one has 2501" }]);
  });

  test("JSON that does not parse, or is not an object, answers 400", async () => {
    for (const raw of ["{\"writeKey\": ", "[1, 2]", "42"]) {
      const reply = await send("batch", undefined, { raw, headers: { "content-type": "text/plain" } });
      expect([raw, reply.status]).toEqual([raw, 400]);
    }
  });
});
