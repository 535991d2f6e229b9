// The product-analytics (PostHog) drop-in format over real HTTP, with literal payloads for each
// mapping rule, body encoding and limit (spec 2, Drop-in endpoints; docs/drop-in.md). What was
// stored is read back from the region's write-ahead log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync, zstdCompressSync } from "node:zlib";
import { compressToBase64 } from "lz-string";
import { isUuidV7 } from "../../storage/uuid-index.ts";
import type { StoredEvent } from "../../storage/event-record.ts";
import {
  duplicate, expectCors, postIngest, readWal, startDedicatedService, storedEvents, walFilesText, type DedicatedService,
} from "../ingest/helpers.ts";
import { createProject } from "../helpers/accounts.ts";
import { call } from "../helpers/client.ts";
import { regionReader } from "./region-reader.ts";
import { lzRepeatedTextPayload } from "../ingest/lz-payloads.ts";

let dedicated: DedicatedService;
let key: string;
let url: string;
const regionSecret = "drop-in-secret";

beforeAll(async () => {
  dedicated = await startDedicatedService({ REGION_SECRET: regionSecret });
  key = dedicated.key;
  url = dedicated.service.url;
});
afterAll(async () => { await dedicated.dispose(); });

const accepted = (count: number, rejected: unknown[] = []) => ({ status: 1, accepted: count, rejected, quota_limited: [] });
const at = (iso: string) => Date.parse(iso);
const recent = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();

/** The stored events whose distinct id starts with `prefix` (each test uses its own ids). */
async function stored(prefix: string): Promise<StoredEvent[]> {
  const events = storedEvents(await readWal(dedicated.service.dataDir), dedicated.project.id);
  return events.filter((event) => event.distinct_id.startsWith(prefix));
}

const send = (payload: unknown, options: Parameters<typeof postIngest>[2] = {}) => postIngest(url, payload, { path: "/batch/", ...options });

describe("bodies and paths", () => {
  test("posthog-node: gzip batch to /batch/ with $lib, a UUIDv7 and sent_at", async () => {
    const uuid = Bun.randomUUIDv7();
    const sentAt = new Date(Date.now() + 60_000).toISOString();
    const body = {
      api_key: key,
      sent_at: sentAt,
      batch: [{
        event: "order_placed", distinct_id: "node-1", uuid, timestamp: new Date(Date.now() + 50_000).toISOString(), type: "capture",
        // Major units, as PostHog's SDKs send money: stored as 4200 cents.
        properties: { amount: 42, currency: "EUR", $lib: "posthog-node", $lib_version: "5.70.0", $geoip_disable: true },
      }],
    };
    const reply = await send(undefined, { raw: gzipSync(JSON.stringify(body)), headers: { "content-type": "application/json", "content-encoding": "gzip" } });
    expect([reply.status, reply.body]).toEqual([200, accepted(1)]);
    const [event] = await stored("node-1");
    expect(event!.uuid).toBe(uuid);
    expect([event!.event, event!.lib_name, event!.lib_version]).toEqual(["order_placed", "posthog-compat", "5.70.0"]);
    expect(event!.properties).toEqual({ amount: 4200, currency: "EUR", $lib: "posthog-node", $lib_version: "5.70.0", $geoip_disable: true });
    // 10 s before it was sent, by the client's clock: 10 s before it arrived.
    expect(Math.abs(Date.now() - 10_000 - event!.timestamp)).toBeLessThan(5_000);
  });

  test("posthog-js: text/plain gzip to /e/ with or without ?compression=gzip-js", async () => {
    for (const [id, query] of [["js-gzip-1", "compression=gzip-js&ver=1.449.2&_=1"], ["js-gzip-2", "ver=1.449.2&_=2"]] as const) {
      const body = { api_key: key, sent_at: new Date().toISOString(), batch: [{ event: "$pageview", properties: { distinct_id: id, $current_url: "https://app.example/pricing" }, timestamp: recent(1), uuid: Bun.randomUUIDv7() }] };
      const reply = await send(undefined, { path: "/e/", query, raw: gzipSync(JSON.stringify(body)), headers: { "content-type": "text/plain" } });
      expect([reply.status, reply.body]).toEqual([200, accepted(1)]);
      expect((await stored(id)).map((event) => [event.event, event.properties.$current_url])).toEqual([["$pageview", "https://app.example/pricing"]]);
    }
  });

  test("one event object to /capture, a bare array to /i/v0/e/, and /track, /engage, /e, /batch without a slash", async () => {
    const one = { api_key: key, event: "signed_up", distinct_id: "paths-capture", properties: { plan: "pro" } };
    expect((await send(one, { path: "/capture" })).body).toEqual(accepted(1));
    const array = [{ event: "clicked", properties: { distinct_id: "paths-array", token: key } }];
    expect((await send(array, { path: "/i/v0/e/" })).body).toEqual(accepted(1));
    for (const path of ["/track", "/track/", "/engage", "/engage/", "/e", "/batch", "/capture/", "/i/v0/e"]) {
      const reply = await send({ api_key: key, batch: [{ event: "path", distinct_id: `paths${path}` }] }, { path });
      expect([path, reply.status, reply.body]).toEqual([path, 200, accepted(1)]);
    }
    expect((await stored("paths")).map((event) => event.distinct_id).sort()).toEqual(
      ["paths-array", "paths-capture", "paths/batch", "paths/capture/", "paths/e", "paths/engage", "paths/engage/", "paths/i/v0/e", "paths/track", "paths/track/"],
    );
  });

  test("sendBeacon and old SDK bodies: base64 body, data= form (base64, JSON, lz-string), GET with data=", async () => {
    const body = (id: string) => JSON.stringify({ api_key: key, batch: [{ event: "beacon", distinct_id: id }] });
    const base64 = (text: string) => Buffer.from(text).toString("base64");
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const cases: [string, Parameters<typeof postIngest>[2]][] = [
      ["beacon-b64-body", { raw: base64(body("beacon-b64-body")), query: "compression=base64", headers: { "content-type": "text/plain" } }],
      ["beacon-b64-unlabelled", { raw: base64(body("beacon-b64-unlabelled")), headers: { "content-type": "text/plain" } }],
      ["beacon-form-b64", { raw: `data=${encodeURIComponent(base64(body("beacon-form-b64")))}`, headers: form }],
      ["beacon-form-json", { raw: `data=${encodeURIComponent(body("beacon-form-json"))}`, headers: form }],
      ["beacon-form-lz", { raw: `data=${encodeURIComponent(compressToBase64(body("beacon-form-lz")))}&compression=lz64`, headers: form }],
      ["beacon-query-lz", { raw: `data=${encodeURIComponent(compressToBase64(body("beacon-query-lz")))}`, query: "compression=lz64", headers: form }],
      ["beacon-form-gzip", { raw: `data=${encodeURIComponent(gzipSync(body("beacon-form-gzip")).toString("base64"))}`, headers: form }],
    ];
    for (const [id, options] of cases) {
      const reply = await send(undefined, { path: "/e/", ...options });
      expect([id, reply.status, reply.body]).toEqual([id, 200, accepted(1)]);
    }
    const get = await fetch(`${url}/ingest/eu/e/?data=${encodeURIComponent(base64(body("beacon-get")))}&ver=1`);
    expectCors(get.headers);
    expect([get.status, await get.json()]).toEqual([200, accepted(1)]);
    expect((await stored("beacon")).map((event) => event.distinct_id).sort()).toEqual([...cases.map(([id]) => id), "beacon-get"].sort());
  });

  test("zstd bodies, and a form whose base64 kept its + unencoded (a space once form-decoded)", async () => {
    const zstd = await send(undefined, { raw: zstdCompressSync(JSON.stringify({ api_key: key, batch: [{ event: "zstd", distinct_id: "codec-zstd" }] })), headers: { "content-type": "application/octet-stream" } });
    expect([zstd.status, zstd.body]).toEqual([200, accepted(1)]);
    // Padding chosen so the base64 of this body contains "+".
    let body = "";
    for (let pad = 0; !Buffer.from(body).toString("base64").includes("+"); pad++) body = JSON.stringify({ api_key: key, batch: [{ event: "plus", distinct_id: "codec-plus", properties: { pad: "~".repeat(pad) } }] });
    const reply = await send(undefined, { path: "/e/", raw: `data=${Buffer.from(body).toString("base64")}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect([reply.status, reply.body]).toEqual([200, accepted(1)]);
    expect((await stored("codec")).map((event) => event.event)).toEqual(["zstd", "plus"]);
  });

  test("a native batch on /batch stays native (its lib is kept); a batch where some event lacks lib is PostHog's", async () => {
    const native = { api_key: key, batch: [{ uuid: Bun.randomUUIDv7(), event: "native", timestamp: recent(1), distinct_id: "format-native", properties: {}, lib: { name: "web", version: "3.0.0" } }] };
    expect((await send(native)).body).toEqual({ accepted: 1, rejected: [], quota_limited: [] });
    const mixed = { api_key: key, batch: [{ ...native.batch[0], uuid: Bun.randomUUIDv7(), distinct_id: "format-mixed" }, { event: "no_lib", distinct_id: "format-mixed" }] };
    expect((await send(mixed)).body).toEqual(accepted(2));
    expect((await stored("format")).map((event) => [event.distinct_id, event.event, event.lib_name])).toEqual([
      ["format-native", "native", "web"], ["format-mixed", "native", "posthog-compat"], ["format-mixed", "no_lib", "posthog-compat"],
    ]);
  });
});

describe("the project key", () => {
  test("from the batch, else the first event carrying one: token, $token, api_key or properties.token", async () => {
    for (const [id, event] of [
      ["key-token", { token: key }], ["key-dollar-token", { $token: key }], ["key-api-key", { api_key: key }], ["key-properties", { properties: { token: key } }],
    ] as const) {
      const reply = await send([{ event: "keyed", distinct_id: id, ...event }]);
      expect([id, reply.status, reply.body]).toEqual([id, 200, accepted(1)]);
    }
    const [stored1] = await stored("key-properties");
    expect(stored1!.properties).toEqual({});
  });

  test("an event addressed with another key than the request's is rejected, the rest stored", async () => {
    const uuid = Bun.randomUUIDv7();
    const reply = await send({ api_key: key, batch: [{ event: "ok", distinct_id: "key-mixed-1" }, { event: "other", distinct_id: "key-mixed-2", uuid, token: "svc_pk_eu_production_elsewhere00000000000" }] });
    expect([reply.status, reply.body]).toEqual([200, accepted(1, [{ uuid, reason: "invalid", message: "event carries another project's key (token) than its request" }])]);
    expect((await stored("key-mixed")).map((event) => event.distinct_id)).toEqual(["key-mixed-1"]);
  });

  test("no key anywhere, or an unknown one: 401 and nothing stored", async () => {
    const missing = await send([{ event: "x", distinct_id: "key-missing" }]);
    expect([missing.status, missing.body]).toEqual([401, { error: "api_key is missing" }]);
    const unknown = await send({ api_key: "phc_not_ours", batch: [{ event: "x", distinct_id: "key-unknown" }] });
    expect([unknown.status, unknown.body]).toEqual([401, { error: "api_key is not a key of region eu" }]);
    expect(await stored("key-missing")).toEqual([]);
    expect(await stored("key-unknown")).toEqual([]);
  });
});

describe("mapping rules", () => {
  test("rule 1: distinct ids (top level, $distinct_id, properties, numbers), $set/$set_once anywhere, $groups, session and window ids, the anonymous id", async () => {
    const session = Bun.randomUUIDv7();
    const window = Bun.randomUUIDv7();
    const reply = await send({
      api_key: key,
      batch: [
        { event: "a", distinct_id: "map1-top", $set: { plan: "pro" }, $set_once: { first: "2026-01-01" }, properties: { $session_id: session, $window_id: window, $device_id: "map1-device" } },
        { event: "b", $distinct_id: "map1-dollar", properties: { $set: { seats: 3 }, $set_once: { source: "ad" }, $groups: { company: "acme", team: 7 } } },
        { event: "c", properties: { distinct_id: "map1-props", $session_id: "legacy-session-1", $window_id: "legacy-window-1" } },
        { event: "d", distinct_id: 1234567, properties: { $session_id: "legacy-session-1" } },
        { event: "$identify", distinct_id: "map1-user", properties: { $anon_distinct_id: "map1-anon", $device_id: "map1-device-2", $set: { name: "Ann" } } },
      ],
    });
    expect([reply.status, reply.body]).toEqual([200, accepted(5)]);
    const events = storedEvents(await readWal(dedicated.service.dataDir), dedicated.project.id).filter((event) => ["a", "b", "c", "d", "$identify"].includes(event.event) && /^(map1|1234567)/.test(event.distinct_id));
    const pick = ({ event, distinct_id, anon_id, session_id, window_id, set, set_once, groups, properties }: StoredEvent) =>
      ({ event, distinct_id, anon_id, session_id, window_id, set, set_once, groups, properties });
    const [a, b, c, d, identify] = events.map(pick);
    expect(a).toEqual({ event: "a", distinct_id: "map1-top", anon_id: "map1-device", session_id: session, window_id: window, set: { plan: "pro" }, set_once: { first: "2026-01-01" }, groups: null, properties: { $device_id: "map1-device" } });
    expect(b).toEqual({ event: "b", distinct_id: "map1-dollar", anon_id: null, session_id: null, window_id: null, set: { seats: 3 }, set_once: { source: "ad" }, groups: { company: "acme", team: "7" }, properties: {} });
    // A session id that is not a UUIDv7 becomes one, the same for the same id.
    expect(isUuidV7(c!.session_id)).toBe(true);
    expect(d!.session_id).toBe(c!.session_id);
    expect(c!.window_id).not.toBe(c!.session_id);
    expect([c!.distinct_id, d!.distinct_id]).toEqual(["map1-props", "1234567"]);
    expect(identify).toEqual({ event: "$identify", distinct_id: "map1-user", anon_id: "map1-anon", session_id: null, window_id: null, set: { name: "Ann" }, set_once: null, groups: null, properties: { $anon_distinct_id: "map1-anon", $device_id: "map1-device-2" } });
  });

  test("an empty id is no id: an empty $device_id gives no anonymous id, an empty distinct_id falls back to properties.distinct_id", async () => {
    const reply = await send({ api_key: key, batch: [
      { event: "blank", distinct_id: "blank-1", properties: { $device_id: "" } },
      { event: "blank", distinct_id: "", properties: { distinct_id: "blank-2" } },
    ] });
    expect([reply.status, reply.body]).toEqual([200, accepted(2)]);
    expect((await stored("blank")).map(({ distinct_id, anon_id }) => ({ distinct_id, anon_id }))).toEqual([
      { distinct_id: "blank-1", anon_id: null }, { distinct_id: "blank-2", anon_id: null },
    ]);
  });

  test("rule 2: the $ events with a meaning are kept; unknown $ events get the posthog: prefix; plain names stay", async () => {
    const names = ["$identify", "$create_alias", "$groupidentify", "$set", "$pageview", "$screen", "$pageleave", "$autocapture", "$web_vitals", "$dead_click", "purchase"];
    const reply = await send({ api_key: key, batch: names.map((event) => ({ event, distinct_id: "rule2", properties: { alias: "rule2-alias", $group_type: "company", $group_key: "acme" } })) });
    expect([reply.status, reply.body]).toEqual([200, accepted(names.length)]);
    expect((await stored("rule2")).map((event) => event.event)).toEqual([
      "$identify", "$create_alias", "$groupidentify", "$set", "$pageview", "$screen", "$pageleave", "$autocapture", "posthog:$web_vitals", "posthog:$dead_click", "purchase",
    ]);
  });

  test("rule 3: UUIDv7s kept; other uuids and missing ones become deterministic UUIDv7s, so a retry is a duplicate", async () => {
    const v4 = "3f2b8c1e-9d4a-4b7e-8f21-0c5d6e7f8a9b";
    const first = await send({ api_key: key, batch: [
      { event: "retry", distinct_id: "rule3-v4", uuid: v4, timestamp: "2026-11-20T10:00:00Z" },
      { event: "retry", distinct_id: "rule3-none", timestamp: "2026-11-20T10:00:00Z", properties: { n: 1 } },
    ] });
    expect(first.body).toEqual(accepted(2));
    const [withV4, withNone] = [(await stored("rule3-v4"))[0]!, (await stored("rule3-none"))[0]!];
    expect([isUuidV7(withV4.uuid), isUuidV7(withNone.uuid), withV4.uuid === v4]).toEqual([true, true, false]);
    // The time field of a derived id is the event's time.
    expect(parseInt(withV4.uuid.replace(/-/g, "").slice(0, 12), 16)).toBe(at("2026-11-20T10:00:00Z"));
    const retry = await send({ api_key: key, batch: [
      { event: "retry", distinct_id: "rule3-v4", uuid: v4, timestamp: "2026-11-20T10:00:00Z" },
      { event: "retry", distinct_id: "rule3-none", timestamp: "2026-11-20T10:00:00Z", properties: { n: 1 } },
    ] });
    expect(retry.body).toEqual(accepted(0, [duplicate(withV4.uuid), duplicate(withNone.uuid)]));
  });

  test("rule 4: $ip locates the event (a server library forwarding its user's address) and is never stored", async () => {
    await send({ api_key: key, batch: [{ event: "ip", distinct_id: "rule4", properties: { $ip: "81.2.69.160", kept: true } }] });
    const [event] = await stored("rule4");
    expect([event!.properties, event!.geo_country, event!.geo_region, event!.geo_city, event!.geo_timezone]).toEqual([
      { kept: true }, "GB", "ENG", "St Albans", "Europe/London",
    ]);
  });

  test("rule 4: $ip in $set or $set_once, at the top level or in properties, is stored nowhere; both places' writes apply", async () => {
    const reply = await send({ api_key: key, batch: [{
      event: "ip-set", distinct_id: "rule4-set", $set: { plan: "pro", $ip: "81.2.69.161" }, $set_once: { $ip: "81.2.69.162" },
      properties: { $set: { plan: "free", seats: 3, $ip: "81.2.69.163" }, $set_once: { source: "ad", $ip: "81.2.69.164" } },
    }] });
    expect([reply.status, reply.body]).toEqual([200, accepted(1)]);
    const walText = walFilesText(dedicated.service.dataDir);
    expect(["81.2.69.161", "81.2.69.162", "81.2.69.163", "81.2.69.164"].filter((address) => walText.includes(address))).toEqual([]);
    const [event] = await stored("rule4-set");
    expect([event!.set, event!.set_once, event!.properties]).toEqual([{ plan: "pro", seats: 3 }, { source: "ad" }, {}]);
    const person = await (await regionReader(dedicated.service, dedicated.owner, dedicated.project.id)).personOf("rule4-set");
    expect(person.properties).toEqual({ plan: "pro", seats: 3, source: "ad" });
  });

  test("rule 5: snapshots, heatmaps and performance events are dropped silently, even a whole batch of them", async () => {
    const dropped = ["$snapshot", "$snapshot_items", "$$heatmap", "$performance_event"].map((event) => ({ event, distinct_id: "rule5" }));
    const mixed = await send({ api_key: key, batch: [...dropped, { event: "kept", distinct_id: "rule5" }] });
    expect([mixed.status, mixed.body]).toEqual([200, accepted(1)]);
    const only = await send({ api_key: key, batch: dropped });
    expect([only.status, only.body]).toEqual([200, accepted(0)]);
    expect((await stored("rule5")).map((event) => event.event)).toEqual(["kept"]);
  });

  test("rule 8: lib.name posthog-compat; the SDK's name stays in $lib; a missing version is unknown", async () => {
    await send({ api_key: key, batch: [{ event: "lib", distinct_id: "rule8", properties: { $lib: "posthog-ios" } }] });
    const [event] = await stored("rule8");
    expect([event!.lib_name, event!.lib_version, event!.properties.$lib]).toEqual(["posthog-compat", "unknown", "posthog-ios"]);
  });

  test("rule 7: an alias that would join two identified persons is refused; both stay apart", async () => {
    const reply = await send({ api_key: key, batch: [
      { event: "$identify", distinct_id: "rule7-ann", timestamp: recent(30) },
      { event: "$identify", distinct_id: "rule7-bob", timestamp: recent(20) },
      { event: "$create_alias", distinct_id: "rule7-ann", timestamp: recent(10), properties: { alias: "rule7-bob" } },
    ] });
    expect(reply.body).toEqual(accepted(3));
    const reader = await regionReader(dedicated.service, dedicated.owner, dedicated.project.id);
    const [ann, bob] = [await reader.personOf("rule7-ann"), await reader.personOf("rule7-bob")];
    expect([ann.distinct_ids, bob.distinct_ids, ann.id === bob.id]).toEqual([["rule7-ann"], ["rule7-bob"], false]);
  });

  test("past the spend cap, quota_limited lists events (posthog-js pauses on it)", async () => {
    const { project, public_keys } = await createProject(dedicated.owner, "Capped", "eu");
    const set = await call(url, "PUT", `/region/eu/internal/ingest-policy/${project.id}`, { body: { keep_ratio: 0.5 }, headers: { "x-region-secret": regionSecret } });
    expect(set.status).toBe(200);
    const reply = await send({ api_key: public_keys[0].key, batch: [{ event: "capped", distinct_id: "capped-1" }] });
    expect([reply.status, reply.body]).toEqual([200, { status: 1, accepted: 1, rejected: [], quota_limited: ["events"] }]);
  });

  test("timestamps: offset wins; sent_at corrects the client's clock; without either, as sent; over 23 h ahead or missing: now", async () => {
    const now = Date.now();
    const sentAt = new Date(now + 3_600_000).toISOString();
    await send({ api_key: key, sent_at: sentAt, batch: [
      { event: "t", distinct_id: "time-offset", offset: 5000, timestamp: "2020-01-01T00:00:00Z" },
      { event: "t", distinct_id: "time-skew", timestamp: new Date(now + 3_600_000 - 60_000).toISOString() },
      { event: "t", distinct_id: "time-missing" },
    ] });
    await send({ api_key: key, batch: [
      { event: "t", distinct_id: "time-plain", timestamp: "2026-11-20T08:30:00.250Z" },
      { event: "t", distinct_id: "time-naive", timestamp: "2026-11-20T08:30:00" },
      { event: "t", distinct_id: "time-future", timestamp: new Date(now + 24 * 3_600_000).toISOString() },
    ] });
    const times = Object.fromEntries((await stored("time-")).map((event) => [event.distinct_id, event.timestamp]));
    const near = (value: number, expected: number) => Math.abs(value - expected) < 5000;
    expect({
      offset: near(times["time-offset"]!, now - 5000),
      skew: near(times["time-skew"]!, now - 60_000),
      missing: near(times["time-missing"]!, now),
      future: near(times["time-future"]!, now),
      plain: times["time-plain"],
      naive: times["time-naive"],
    }).toEqual({ offset: true, skew: true, missing: true, future: true, plain: at("2026-11-20T08:30:00.250Z"), naive: at("2026-11-20T08:30:00Z") });
  });

  test("posthog-js's send time in the query (_ in ms, no sent_at in the body) corrects a wrong browser clock, on every capture path, POST and GET", async () => {
    const now = Date.now();
    const behind = now - 2 * 3_600_000;
    // A batch stamped by a clock two hours behind, sent (by that clock) 10 s after its events.
    const batch = (id: string) => [{ event: "query-time", distinct_id: id, timestamp: new Date(behind - 10_000).toISOString(), properties: { token: key } }];
    const paths = ["/i/v0/e/", "/e/", "/batch/", "/capture/", "/track/", "/engage/"];
    for (const path of paths) {
      const reply = await send(batch(`qtime${path}`), { path, query: `ver=1.449.2&_=${behind}` });
      expect([path, reply.status, reply.body]).toEqual([path, 200, accepted(1)]);
    }
    const data = encodeURIComponent(Buffer.from(JSON.stringify(batch("qtime-get"))).toString("base64"));
    const get = await fetch(`${url}/ingest/eu/i/v0/e/?data=${data}&_=${behind}`);
    expect([get.status, await get.json()]).toEqual([200, accepted(1)]);
    const times = (await stored("qtime")).map((event) => [event.distinct_id, Math.abs(event.timestamp - (now - 10_000)) < 5_000]);
    expect(times).toEqual([...paths.map((path) => [`qtime${path}`, true]), ["qtime-get", true]]);
  });

  test("the query's send time: replayed old traffic is corrected rather than past retention; the body's sent_at wins; seconds, words and dates before 2021 are ignored", async () => {
    const now = Date.now();
    const yearAgo = now - 400 * 86_400_000;
    const event = (id: string, at: number) => ({ event: "query-time", distinct_id: id, timestamp: new Date(at - 60_000).toISOString() });
    const cases: [string, number, string, Record<string, unknown>][] = [
      // Recorded 400 days ago and replayed now: without the correction it is older than the retention.
      ["qsent-replayed", yearAgo, `_=${yearAgo}`, {}],
      ["qsent-named", yearAgo, `sent_at=${yearAgo}`, {}],
      ["qsent-body-wins", now - 3_600_000, `_=${yearAgo}`, { sent_at: new Date(now - 3_600_000).toISOString() }],
      ["qsent-seconds", now - 3_600_000, `_=${Math.floor(yearAgo / 1000)}`, {}],
      ["qsent-word", now - 3_600_000, "_=yesterday", {}],
      ["qsent-2020", now - 3_600_000, `_=${Date.UTC(2020, 11, 31, 23, 59, 59)}`, {}],
    ];
    for (const [id, at, query, extra] of cases) {
      const reply = await send({ api_key: key, ...extra, batch: [event(id, at)] }, { path: "/i/v0/e/", query });
      expect([id, reply.status, reply.body]).toEqual([id, 200, accepted(1)]);
    }
    const times = Object.fromEntries((await stored("qsent-")).map((stored) => [stored.distinct_id, stored.timestamp]));
    const near = (value: number | undefined, expected: number) => value !== undefined && Math.abs(value - expected) < 5_000;
    expect({
      replayed: near(times["qsent-replayed"], now - 60_000),
      named: near(times["qsent-named"], now - 60_000),
      bodyWins: near(times["qsent-body-wins"], now - 60_000),
      // Ignored: the stamp is taken as sent.
      seconds: times["qsent-seconds"] === now - 3_600_000 - 60_000,
      word: times["qsent-word"] === now - 3_600_000 - 60_000,
      before2021: times["qsent-2020"] === now - 3_600_000 - 60_000,
    }).toEqual({ replayed: true, named: true, bodyWins: true, seconds: true, word: true, before2021: true });
  });

  test("money in major units with a currency becomes integer minor units by the currency's exponent; without a currency it stays as sent", async () => {
    const money: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ["money-usd", { revenue: 49.99, currency: "USD" }, { revenue: 4999, currency: "USD" }],
      ["money-jpy", { $revenue: 1200, currency: "jpy" }, { $revenue: 1200, currency: "JPY" }],
      ["money-kwd", { price: 1.234, amount: 2, currency: "KWD" }, { price: 1234, amount: 2000, currency: "KWD" }],
      ["money-eur", { amount: 42, price: 0.1, currency: "eur", items: 3 }, { amount: 4200, price: 10, currency: "EUR", items: 3 }],
      ["money-none", { revenue: 9.99 }, { revenue: 9.99 }],
    ];
    const reply = await send({ api_key: key, batch: money.map(([id, properties]) => ({ event: "paid", distinct_id: id, properties })) });
    expect([reply.status, reply.body]).toEqual([200, accepted(money.length)]);
    expect((await stored("money-")).map((event) => [event.distinct_id, event.properties])).toEqual(money.map(([id, , stored]) => [id, stored]));
  });

  test("events the native rules refuse are reported, the rest stored", async () => {
    const reply = await send({ api_key: key, batch: [
      { event: "no_distinct_id", uuid: "0199aaaa-0000-7000-8000-000000000001" },
      { event: "text_money", distinct_id: "refused-money", uuid: "0199aaaa-0000-7000-8000-000000000002", properties: { revenue: "49.99", currency: "USD" } },
      "not an event",
      { distinct_id: "no-name" },
      { event: "fine", distinct_id: "refused-fine" },
    ] });
    expect([reply.status, reply.body]).toEqual([200, accepted(1, [
      { uuid: null, reason: "invalid", message: "event must be a JSON object with an event name" },
      { uuid: null, reason: "invalid", message: "event must be a JSON object with an event name" },
      { uuid: "0199aaaa-0000-7000-8000-000000000001", reason: "invalid", message: "distinct_id must be a string of 1 to 200 characters, not only white space" },
      { uuid: "0199aaaa-0000-7000-8000-000000000002", reason: "invalid", message: "properties.revenue must be an integer amount in minor units of properties.currency (4999 for 49.99 USD)" },
    ])]);
  });
  test("a property key with a control character is invalid as on the native path: in properties, $set (anywhere) and $groups types", async () => {
    const control = (where: string) => `${where} contains a control character (U+0000 to U+001F, U+007F to U+009F)`;
    const uuid = (n: number) => `0199aaaa-0000-7000-8000-0000000000c${n}`;
    const reply = await send({ api_key: key, batch: [
      { event: "keys", distinct_id: "keys-nul", uuid: uuid(1), properties: { "a\u0000b": 1 } },
      { event: "keys", distinct_id: "keys-set", uuid: uuid(2), properties: { $set: { "line\nbreak": "x" } } },
      { event: "keys", distinct_id: "keys-set-once", uuid: uuid(3), $set_once: { "tab\there": "x" } },
      { event: "keys", distinct_id: "keys-group", uuid: uuid(4), properties: { $groups: { "com\u0000pany": "acme" } } },
      { event: "keys", distinct_id: "keys-fine", properties: { 'quote"and\\backslash': 1 } },
    ] });
    expect([reply.status, reply.body]).toEqual([200, accepted(1, [
      { uuid: uuid(1), reason: "invalid", message: control("a key of properties") },
      { uuid: uuid(2), reason: "invalid", message: control("a key of $set") },
      { uuid: uuid(3), reason: "invalid", message: control("a key of $set_once") },
      { uuid: uuid(4), reason: "invalid", message: control("a group type of groups") },
    ])]);
    expect((await stored("keys-")).map((event) => [event.distinct_id, event.properties])).toEqual([["keys-fine", { 'quote"and\\backslash': 1 }]]);
  });

  test("an event nested past 100 levels, or with an offset further back than a date reaches, is invalid; the rest stored", async () => {
    const nested = (levels: number) => "[".repeat(levels) + "1" + "]".repeat(levels);
    // Event, properties, then arrays: 99 levels of arrays make 101.
    const deep = (uuid: string, levels: number) => `{"event":"deep","distinct_id":"nest-deep","uuid":"${uuid}","properties":{"value":${nested(levels)}}}`;
    const raw = `{"api_key":"${key}","batch":[${[
      deep("nest-101", 99),
      deep("nest-100000", 100_000),
      JSON.stringify({ event: "far", distinct_id: "nest-far", uuid: "nest-offset", offset: 1e16 }),
      deep("0199aaaa-0000-7000-8000-00000000aaaa", 98),
    ].join(",")}]}`;
    const reply = await send(undefined, { raw, headers: { "content-type": "application/json" } });
    expect([reply.status, reply.body]).toEqual([200, accepted(1, [
      { uuid: "nest-101", reason: "invalid", message: "event nests objects and arrays deeper than 100 levels" },
      { uuid: "nest-100000", reason: "invalid", message: "event nests objects and arrays deeper than 100 levels" },
      { uuid: "nest-offset", reason: "invalid", message: "offset reaches back further than a date can (about 270,000 years)" },
    ])]);
    expect((await stored("nest-")).map((event) => [event.uuid, JSON.stringify(event.properties.value)])).toEqual([
      ["0199aaaa-0000-7000-8000-00000000aaaa", nested(98)],
    ]);
  });

});

describe("malformed requests and limits", () => {
  test("a body that is not JSON, an empty batch and 1,001 events answer 4xx; nothing is stored", async () => {
    for (const raw of ["{not json", "\u0000\u0001binary"]) {
      const reply = await send(undefined, { raw, headers: { "content-type": "text/plain" } });
      expect([reply.status, typeof reply.body.error]).toEqual([400, "string"]);
    }
    const empty = await send([], { path: "/capture/" });
    expect([empty.status, empty.body]).toEqual([400, { error: "body holds no events (expected an event, {batch: [...]} or an array of events)" }]);
    // {api_key, batch: []} is an empty native batch.
    const emptyBatch = await send({ api_key: key, batch: [] });
    expect([emptyBatch.status, emptyBatch.body]).toEqual([400, { error: "batch must contain 1 to 1000 events" }]);
    const many = Array.from({ length: 1001 }, () => ({ event: "many", distinct_id: "limit-many" }));
    const tooMany = await send({ api_key: key, batch: many });
    expect([tooMany.status, tooMany.body]).toEqual([413, { error: "batch has 1001 events; at most 1000" }]);
    const most = await send({ api_key: key, batch: many.slice(1) });
    expect([most.status, most.body]).toEqual([200, accepted(1000)]);
    expect(await stored("limit-many")).toHaveLength(1000);
  });

  test("an lz-string body that would decode past 20 MB answers 413 without being decoded whole, in a body or a form", async () => {
    const bomb = lzRepeatedTextPayload("a", 25_000_000);
    const tooLarge = { error: "request body exceeds 20000000 bytes after decompression" };
    const whole = await send(undefined, { path: "/e/", raw: bomb, query: "compression=lz64", headers: { "content-type": "text/plain" } });
    const form = await send(undefined, { path: "/e/", raw: `compression=lz64&data=${encodeURIComponent(bomb)}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect([[whole.status, whole.body], [form.status, form.body]]).toEqual([[413, tooLarge], [413, tooLarge]]);
  });

  test("a GET without data answers 400", async () => {
    const reply = await fetch(`${url}/ingest/eu/e/?ver=1`);
    expect([reply.status, await reply.json()]).toEqual([400, { error: "a GET request needs its events in the data query parameter" }]);
  });
});

describe("remote config", () => {
  const config = (token: string) => ({
    token,
    supportedCompression: ["gzip", "gzip-js"],
    hasFeatureFlags: false,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    analytics: { endpoint: "/i/v0/e/" },
    elementsChainAsString: true,
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
  });

  test("/array/{key}/config as JSON and config.js as a script that registers it", async () => {
    const json = await fetch(`${url}/ingest/eu/array/${key}/config`);
    expectCors(json.headers);
    expect([json.status, await json.json()]).toEqual([200, config(key)]);
    const script = await fetch(`${url}/ingest/eu/array/${key}/config.js`);
    expect([script.status, script.headers.get("content-type")]).toEqual([200, "application/javascript"]);
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, unknown> } = {};
    new Function("window", await script.text())(window);
    expect(window._POSTHOG_REMOTE_CONFIG).toEqual({ [key]: { config: config(key), siteApps: [] } });
  });

  test("an unknown key answers 401", async () => {
    const reply = await fetch(`${url}/ingest/eu/array/phc_unknown/config`);
    expect([reply.status, await reply.json()]).toEqual([401, { error: "api_key is not a key of region eu" }]);
  });
});
