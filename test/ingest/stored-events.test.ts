// What native ingest stores (spec 2: Events, ingest effects): each test runs a service of its
// own and reads the region's write-ahead log (what ingest wrote) or, after a restart, everything
// the region has stored; also sampling past the spend cap and the disk-full 503.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, signUp } from "../helpers/accounts.ts";
import { call, isoPattern } from "../helpers/client.ts";
import { canMountTinyFs, fillDisk, tinyFsSkipReason, withTinyFs } from "../helpers/tiny-fs.ts";
import { compactStored, readStored } from "../helpers/stored-events.ts";
import {
  duplicate, nativeBody, nativeEvent, nativeEvents, ok, postIngest, rfc3339, startDedicatedService,
  storedEvents, walFilesText, type NativeEvent,
} from "./helpers.ts";

const browserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const headlessAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36";
const crawlerAgents = [
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.0; +https://openai.com/gptbot",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
];

let service: TestService;
let project: any;
let dispose: () => Promise<void>;

beforeAll(async () => ({ service, project, dispose } = await startDedicatedService()));
afterAll(() => dispose());

describe("stored events (write-ahead log of a stopped service)", () => {
  test("an accepted event is stored normalised: located by its own $ip and $ip dropped, no location for loopback, consent granted by default, sample_rate 1", async () => {
    const dedicated = await startDedicatedService({ TRUST_PROXY: "true" });
    try {
      const sessionId = Bun.randomUUIDv7();
      const windowId = Bun.randomUUIDv7();
      const full = nativeEvent({
        event: "$pageview",
        timestamp: rfc3339(Date.now() - 60_000),
        distinct_id: "user-42",
        anon_id: "device-9",
        session_id: sessionId,
        window_id: windowId,
        properties: { $ip: "81.2.69.142", $current_url: "https://shop.example/cart", revenue: 1999, currency: "EUR" },
        lib: { name: "web", version: "2.0.0" },
        $set: { plan: "pro" },
        $set_once: { first_seen: "2024-01-01" },
        groups: { company: "acme", team: "growth" },
        consent: "pending",
      });
      const minimal = nativeEvent({ timestamp: rfc3339(Date.now() - 30_000), distinct_id: "1234567890", properties: {} });
      const staging = nativeEvent({ distinct_id: "user-7", consent: "cookieless" });
      const before = Date.now();
      const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [full, minimal]));
      const after = Date.now();
      expect([reply.status, reply.body]).toEqual([200, ok(2)]);
      const stagingReply = await postIngest(dedicated.service.url, nativeBody(dedicated.publicKeys[1].key, [staging]));
      expect([stagingReply.status, stagingReply.body]).toEqual([200, ok(1)]);

      const records = await dedicated.stopAndReadWal();
      const noLocation = { geo_country: null, geo_region: null, geo_city: null, geo_timezone: null };
      expect(records).toEqual([
        {
          project_id: dedicated.project.id,
          data_id: dedicated.project.data_id,
          environment: "production",
          received_at: expect.any(Number),
          events: [
            {
              uuid: full.uuid,
              event: "$pageview",
              timestamp: Date.parse(full.timestamp),
              distinct_id: "user-42",
              anon_id: "device-9",
              session_id: sessionId,
              window_id: windowId,
              lib_name: "web",
              lib_version: "2.0.0",
              consent: "pending",
              sample_rate: 1,
              // Where its $ip is, not the (loopback) peer.
              geo_country: "GB",
              geo_region: "ENG",
              geo_city: "St Albans",
              geo_timezone: "Europe/London",
              is_suspect: false,
              // The project's first person; its group types take slots in the order they were first seen.
              person_index: 0,
              groups: { company: "acme", team: "growth" },
              group_keys: ["acme", "growth", null, null, null],
              set: { plan: "pro" },
              set_once: { first_seen: "2024-01-01" },
              properties: { $current_url: "https://shop.example/cart", revenue: 1999, currency: "EUR" },
            },
            {
              uuid: minimal.uuid,
              event: "signed_up",
              timestamp: Date.parse(minimal.timestamp),
              distinct_id: "1234567890",
              anon_id: null,
              session_id: null,
              window_id: null,
              lib_name: "test-sdk",
              lib_version: "1.2.3",
              consent: "granted",
              sample_rate: 1,
              ...noLocation,
              is_suspect: false,
              person_index: 1,
              groups: null,
              group_keys: [null, null, null, null, null],
              set: null,
              set_once: null,
              properties: {},
            },
          ],
        },
        {
          project_id: dedicated.project.id,
          data_id: dedicated.project.data_id,
          environment: "staging",
          received_at: expect.any(Number),
          // Persons belong to the project, shared by its environments.
          events: [expect.objectContaining({ uuid: staging.uuid, distinct_id: "user-7", person_index: 2, consent: "cookieless", properties: { plan: "pro" } })],
        },
      ]);
      expect(records[0]!.received_at).toBeGreaterThanOrEqual(before);
      expect(records[0]!.received_at).toBeLessThanOrEqual(after);
    } finally {
      await dedicated.dispose();
    }
  });

  test("the log on disk holds only the stored events, without $ip: nothing rejected, dropped as a crawler or a duplicate", async () => {
    const dedicated = await startDedicatedService();
    try {
      const stored = nativeEvent({ properties: { $ip: "203.0.113.77", note: "stored-marker" } });
      const rejected = nativeEvent({ distinct_id: "leak@example.com", properties: { note: "rejected-marker" } });
      const crawler = nativeEvent({ properties: { $raw_user_agent: crawlerAgents[0], note: "crawler-marker" } });
      const repeated = nativeEvent({ uuid: stored.uuid, properties: { note: "repeat-marker" } });
      const plain = nativeEvent({ properties: { note: "plain-marker" } });
      const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [rejected, stored, crawler, repeated, plain]));
      expect([reply.status, reply.body]).toEqual([200, ok(2, [{ uuid: rejected.uuid, reason: "invalid", message: "distinct_id looks like an email address; use a user id" }])]);
      // A request whose events are all stored and carry no $ip is logged as it came.
      const asSent = nativeEvent({ properties: { note: "as-sent-marker" } });
      const asSentReply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [asSent], { padding: "as-sent-padding" }));
      expect([asSentReply.status, asSentReply.body]).toEqual([200, ok(1)]);

      const onDisk = walFilesText(dedicated.service.dataDir);
      for (const present of ["stored-marker", "plain-marker", "as-sent-marker", "as-sent-padding"]) expect(onDisk).toContain(present);
      for (const absent of ["203.0.113.77", "$ip", "leak@example.com", "rejected-marker", "crawler-marker", "repeat-marker"]) {
        expect(onDisk).not.toContain(absent);
      }
      const records = await dedicated.stopAndReadWal();
      expect(storedEvents(records, dedicated.project.id).map((event) => [event.uuid, event.properties])).toEqual([
        [stored.uuid, { note: "stored-marker" }],
        [plain.uuid, { note: "plain-marker" }],
        [asSent.uuid, { note: "as-sent-marker" }],
      ]);
    } finally {
      await dedicated.dispose();
    }
  });

  test("behind a trusted proxy the location comes from the first X-Forwarded-For hop, unless $geoip_disable", async () => {
    const dedicated = await startDedicatedService({ TRUST_PROXY: "true" });
    try {
      const cases = [
        { forwardedFor: "81.2.69.142", properties: {} },
        { forwardedFor: "81.2.69.142, 10.0.0.1", properties: {} },
        { forwardedFor: "81.2.69.142", properties: { $geoip_disable: true } },
        { forwardedFor: null, properties: {} },
      ];
      const events: NativeEvent[] = [];
      for (const { forwardedFor, properties } of cases) {
        const event = nativeEvent({ properties });
        events.push(event);
        const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [event]), {
          headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
        });
        expect([reply.status, reply.body]).toEqual([200, ok(1)]);
      }
      const stored = storedEvents(await dedicated.stopAndReadWal(), dedicated.project.id);
      const location = (event: { geo_country: unknown; geo_region: unknown; geo_city: unknown; geo_timezone: unknown; properties: unknown; uuid: string }) =>
        [event.uuid, event.geo_country, event.geo_region, event.geo_city, event.geo_timezone, event.properties];
      expect(stored.map(location)).toEqual([
        [events[0]!.uuid, "GB", "ENG", "St Albans", "Europe/London", {}],
        [events[1]!.uuid, "GB", "ENG", "St Albans", "Europe/London", {}],
        [events[2]!.uuid, null, null, null, null, { $geoip_disable: true }],
        [events[3]!.uuid, null, null, null, null, {}],
      ]);
    } finally {
      await dedicated.dispose();
    }
  });

  test("an event's own $ip locates it (a server library forwarding its users' addresses); one that is not an address is ignored; $ip is stored nowhere", async () => {
    const dedicated = await startDedicatedService({ TRUST_PROXY: "true" });
    try {
      const paris = ["FR", "IDF", "Paris", "Europe/Paris"];
      const syracuse = ["US", "NY", "Syracuse", "America/New_York"];
      const stAlbans = ["GB", "ENG", "St Albans", "Europe/London"];
      const none = [null, null, null, null];
      const groupIdentify = { $group_type: "company", $group_key: "acme", $group_set: { $ip: "24.24.24.24", seats: 5 } };
      const cases: [NativeEvent, unknown[], unknown][] = [
        [nativeEvent({ properties: { $ip: "77.136.1.1" } }), paris, {}],
        [nativeEvent({ properties: {} }), stAlbans, {}],
        [nativeEvent({ properties: { $ip: "24.24.24.24", plan: "pro" } }), syracuse, { plan: "pro" }],
        [nativeEvent({ properties: { $ip: "77.136.1.1" } }), paris, {}],
        [nativeEvent({ properties: { $ip: "not-an-address" } }), stAlbans, {}],
        [nativeEvent({ properties: { $ip: 42 } }), stAlbans, {}],
        // Private addresses are addresses: the event came from there, and it has no location.
        [nativeEvent({ properties: { $ip: "10.1.2.3" } }), none, {}],
        [nativeEvent({ properties: { $ip: "77.136.1.1", $geoip_disable: true } }), none, { $geoip_disable: true }],
        [nativeEvent({ properties: {}, $set: { $ip: "77.136.1.1", plan: "pro" }, $set_once: { $ip: "24.24.24.24", source: "ad" } }), stAlbans, {}],
        [nativeEvent({ event: "$groupidentify", properties: groupIdentify }), stAlbans, { ...groupIdentify, $group_set: { seats: 5 } }],
        // Person properties sent inside properties, as PostHog's SDKs place them: stored as event properties, without $ip.
        [nativeEvent({ properties: { $set: { $ip: "77.136.1.1", plan: "pro" }, $set_once: { $ip: "24.24.24.24", source: "ad" } } }), stAlbans,
          { $set: { plan: "pro" }, $set_once: { source: "ad" } }],
        // Deeper: in objects and arrays inside properties and inside the person properties set.
        [nativeEvent({ properties: { meta: { $ip: "77.136.1.1", ok: 1 }, items: [{ $ip: "24.24.24.24", sku: "a" }, "x"], $set: { device: { $ip: "10.1.2.3" } } } }), stAlbans,
          { meta: { ok: 1 }, items: [{ sku: "a" }, "x"], $set: { device: {} } }],
        [nativeEvent({ properties: {}, $set: { device: { $ip: "77.136.1.1", os: "ios" } }, $set_once: { first: [{ $ip: "24.24.24.24" }] } }), stAlbans, {}],
      ];
      const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, cases.map(([event]) => event)), { headers: { "x-forwarded-for": "81.2.69.142" } });
      expect([reply.status, reply.body]).toEqual([200, ok(cases.length)]);
      const walText = walFilesText(dedicated.service.dataDir);
      const logged = storedEvents(await dedicated.stopAndReadWal(), dedicated.project.id);
      // The stop sealed the log into a segment: what it holds is the same.
      const sealed = storedEvents(await readStored(dedicated.service.dataDir), dedicated.project.id);
      for (const stored of [logged, sealed]) {
        expect(stored.map((event) => [event.uuid, [event.geo_country, event.geo_region, event.geo_city, event.geo_timezone], event.properties])).toEqual(
          cases.map(([event, location, properties]) => [event.uuid, location, properties]),
        );
        expect(stored.map((event) => [event.set, event.set_once])).toEqual([
          ...cases.slice(0, 8).map(() => [null, null]), [{ plan: "pro" }, { source: "ad" }], [null, null], [null, null], [null, null],
          [{ device: { os: "ios" } }, { first: [{}] }],
        ]);
      }
      // Nor is it on disk in the log, not even until the next seal, nor in the person store.
      expect(["$ip", "77.136.1.1", "24.24.24.24", "not-an-address", "10.1.2.3"].filter((text) => walText.includes(text))).toEqual([]);
      const personStore = ["region.sqlite", "region.sqlite-wal"].map((name) => join(dedicated.service.dataDir, "eu", name)).filter(existsSync).map((path) => readFileSync(path, "latin1")).join("");
      expect(["77.136.1.1", "24.24.24.24", "10.1.2.3"].filter((text) => personStore.includes(text))).toEqual([]);
    } finally {
      await dedicated.dispose();
    }
  });

  test("without TRUST_PROXY, X-Forwarded-For is ignored (the loopback peer has no location)", async () => {
    const dedicated = await startDedicatedService();
    try {
      const event = nativeEvent();
      const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [event]), { headers: { "x-forwarded-for": "81.2.69.142" } });
      expect([reply.status, reply.body]).toEqual([200, ok(1)]);
      const [stored] = storedEvents(await dedicated.stopAndReadWal(), dedicated.project.id);
      expect([stored!.uuid, stored!.geo_country, stored!.geo_region, stored!.geo_city, stored!.geo_timezone]).toEqual([event.uuid, null, null, null, null]);
    } finally {
      await dedicated.dispose();
    }
  });

  test("timestamps are corrected by (receive time - sent_at) and clamped to now; future stamps without sent_at are clamped", async () => {
    const dedicated = await startDedicatedService();
    try {
      const send = async (batch: NativeEvent[], sentAt: number | null, expected: unknown) => {
        const extra = sentAt === null ? {} : { sent_at: new Date(sentAt).toISOString() };
        const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, batch, extra));
        expect([reply.status, reply.body]).toEqual([200, expected]);
      };
      const stampedAt = (offsetMs: number, base: number) => nativeEvent({ timestamp: new Date(base + offsetMs).toISOString() });

      // Client clock 10 minutes behind the server.
      const behind = Date.now() - 600_000;
      const behindEvents = [stampedAt(-5_000, behind), stampedAt(30_000, behind), stampedAt(60_000, behind), stampedAt(61_000, behind)];
      await send(behindEvents, behind, ok(3, [{ uuid: behindEvents[3]!.uuid, reason: "clock_skew", message: "timestamp is more than 60 s after sent_at; the client's clock or sent_at is wrong" }]));
      // Client clock 10 minutes ahead of the server.
      const ahead = Date.now() + 600_000;
      const aheadEvents = [stampedAt(-2_000, ahead), stampedAt(-3_600_000, ahead)];
      await send(aheadEvents, ahead, ok(2));
      // No sent_at: stamps are taken as they are, except that the future is clamped.
      const plain = [stampedAt(3_600_000, Date.now()), stampedAt(-86_400_000, Date.now())];
      await send(plain, null, ok(2));

      const records = await dedicated.stopAndReadWal();
      expect(records).toHaveLength(3);
      const [first, second, third] = records;
      const stampOf = (event: NativeEvent) => Date.parse(event.timestamp);
      expect(first!.events.map((event) => [event.uuid, event.timestamp])).toEqual([
        [behindEvents[0]!.uuid, stampOf(behindEvents[0]!) + (first!.received_at - behind)],
        [behindEvents[1]!.uuid, first!.received_at],
        [behindEvents[2]!.uuid, first!.received_at],
      ]);
      expect(second!.events.map((event) => [event.uuid, event.timestamp])).toEqual([
        [aheadEvents[0]!.uuid, stampOf(aheadEvents[0]!) + (second!.received_at - ahead)],
        [aheadEvents[1]!.uuid, stampOf(aheadEvents[1]!) + (second!.received_at - ahead)],
      ]);
      expect(third!.events.map((event) => [event.uuid, event.timestamp])).toEqual([
        [plain[0]!.uuid, third!.received_at],
        [plain[1]!.uuid, stampOf(plain[1]!)],
      ]);
    } finally {
      await dedicated.dispose();
    }
  });

  test("headless browsers are stored but marked suspect (request User-Agent or $raw_user_agent)", async () => {
    const dedicated = await startDedicatedService();
    try {
      const byRequest = nativeEvent();
      const byProperty = nativeEvent({ properties: { $raw_user_agent: headlessAgent } });
      const normal = nativeEvent();
      for (const [event, agent] of [[byRequest, headlessAgent], [byProperty, browserAgent], [normal, browserAgent]] as const) {
        const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [event]), { headers: { "user-agent": agent } });
        expect([reply.status, reply.body]).toEqual([200, ok(1)]);
      }
      const stored = storedEvents(await dedicated.stopAndReadWal(), dedicated.project.id);
      expect(stored.map((event) => [event.uuid, event.is_suspect])).toEqual([
        [byRequest.uuid, true],
        [byProperty.uuid, true],
        [normal.uuid, false],
      ]);
    } finally {
      await dedicated.dispose();
    }
  });

  test("self-declared crawlers are dropped (not accepted, not rejected, not stored); server SDKs and curl are not", async () => {
    const dedicated = await startDedicatedService();
    try {
      const kept: NativeEvent[] = [];
      for (const agent of crawlerAgents) {
        const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, nativeEvents(2)), { headers: { "user-agent": agent } });
        expect([reply.status, reply.body]).toEqual([200, ok(0)]);
      }
      const crawlerByProperty = nativeEvent({ properties: { $raw_user_agent: crawlerAgents[0] } });
      const browserEvent = nativeEvent();
      kept.push(browserEvent);
      // A later event of the batch with the crawler's uuid counts as the same event: dropped too.
      const sameUuid = nativeEvent({ uuid: crawlerByProperty.uuid });
      const mixed = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [crawlerByProperty, sameUuid, browserEvent]), { headers: { "user-agent": browserAgent } });
      expect([mixed.status, mixed.body]).toEqual([200, ok(1)]);
      for (const agent of ["posthog-node/5.1.0", "curl/8.5.0"]) {
        const event = nativeEvent();
        kept.push(event);
        const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [event]), { headers: { "user-agent": agent } });
        expect([reply.status, reply.body]).toEqual([200, ok(1)]);
      }
      const stored = storedEvents(await dedicated.stopAndReadWal(), dedicated.project.id);
      expect(stored.map((event) => [event.uuid, event.is_suspect])).toEqual(kept.map((event) => [event.uuid, false]));
    } finally {
      await dedicated.dispose();
    }
  });

  test("duplicates: once per batch, rejected on resend (also after a restart), per project", async () => {
    const dedicated = await startDedicatedService();
    let restarted: TestService | undefined;
    try {
      const { url } = dedicated.service;
      const { project: otherProject, public_keys: otherKeys } = await createProject(dedicated.owner, "Other", "eu");
      const a = nativeEvent({ event: "first" });
      const b = nativeEvent();
      const c = nativeEvent();

      const first = await postIngest(url, nativeBody(dedicated.key, [a, { ...a, event: "second" }, b]));
      expect([first.status, first.body]).toEqual([200, ok(2)]);
      const resent = await postIngest(url, nativeBody(dedicated.key, [a, c]));
      expect([resent.status, resent.body]).toEqual([200, ok(1, [duplicate(a.uuid)])]);
      // A resent uuid twice in one batch: rejected once, the second copy dropped like any repeat in a batch.
      const resentTwice = await postIngest(url, nativeBody(dedicated.key, [a, { ...a, event: "third" }]));
      expect([resentTwice.status, resentTwice.body]).toEqual([200, ok(0, [duplicate(a.uuid)])]);
      const upper = await postIngest(url, nativeBody(dedicated.key, [{ ...b, uuid: b.uuid.toUpperCase() }]));
      expect([upper.status, upper.body]).toEqual([200, ok(0, [duplicate(b.uuid.toUpperCase())])]);
      const elsewhere = await postIngest(url, nativeBody(otherKeys[0].key, [a]));
      expect([elsewhere.status, elsewhere.body]).toEqual([200, ok(1)]);

      const records = await dedicated.stopAndReadWal();
      expect(storedEvents(records, dedicated.project.id).map((event) => [event.uuid, event.event])).toEqual([
        [a.uuid, "first"],
        [b.uuid, "signed_up"],
        [c.uuid, "signed_up"],
      ]);
      expect(storedEvents(records, otherProject.id).map((event) => event.uuid)).toEqual([a.uuid]);

      restarted = await startTestService({}, { dataDir: dedicated.service.dataDir });
      const d = nativeEvent();
      const afterRestart = await postIngest(restarted.url, nativeBody(dedicated.key, [a, b, d]));
      expect([afterRestart.status, afterRestart.body]).toEqual([200, ok(1, [
        duplicate(a.uuid),
        duplicate(b.uuid),
      ])]);
      await restarted.stop();
      restarted = undefined;
      expect(storedEvents(await readStored(dedicated.service.dataDir), dedicated.project.id).map((event) => event.uuid)).toEqual([a.uuid, b.uuid, c.uuid, d.uuid]);

      // Once the events are compacted into Parquet parts, a restart still refuses their retries.
      await compactStored(dedicated.service.dataDir);
      restarted = await startTestService({}, { dataDir: dedicated.service.dataDir });
      const afterCompaction = await postIngest(restarted.url, nativeBody(dedicated.key, [a, c, d]));
      expect([afterCompaction.status, afterCompaction.body]).toEqual([200, ok(0, [
        duplicate(a.uuid),
        duplicate(c.uuid),
        duplicate(d.uuid),
      ])]);
      await restarted.stop();
      restarted = undefined;
      const compacted = await readStored(dedicated.service.dataDir);
      expect(compacted.map((record) => record.events.length)).toEqual([4, 1]);
      expect(storedEvents(compacted, dedicated.project.id).map((event) => event.uuid).sort()).toEqual([a.uuid, b.uuid, c.uuid, d.uuid].sort());
    } finally {
      await restarted?.stop();
      await dedicated.dispose();
    }
  });
});

describe("sampling past the spend cap", () => {
  test("the ingest-policy route needs the region secret", async () => {
    const path = `/region/eu/internal/ingest-policy/${project.id}`;
    const unauthorized = { error: { code: "unauthorized", message: "internal API needs the region secret" } };
    const noSecretConfigured = await call(service.url, "PUT", path, { body: { keep_ratio: 0.5 }, headers: { "x-region-secret": "s" } });
    expect([noSecretConfigured.status, noSecretConfigured.body]).toEqual([401, unauthorized]);

    const dedicated = await startDedicatedService({ REGION_SECRET: "s" });
    try {
      const dedicatedPath = `/region/eu/internal/ingest-policy/${dedicated.project.id}`;
      const missing = await call(dedicated.service.url, "PUT", dedicatedPath, { body: { keep_ratio: 0.5 } });
      expect([missing.status, missing.body]).toEqual([401, unauthorized]);
      const wrong = await call(dedicated.service.url, "PUT", dedicatedPath, { body: { keep_ratio: 0.5 }, headers: { "x-region-secret": "not-s" } });
      expect([wrong.status, wrong.body]).toEqual([401, unauthorized]);
      for (const keepRatio of [0, -0.5, 1.5, "0.5"]) {
        const invalid = await call(dedicated.service.url, "PUT", dedicatedPath, { body: { keep_ratio: keepRatio }, headers: { "x-region-secret": "s" } });
        expect([invalid.status, invalid.body]).toEqual([400, { error: { code: "bad_request", message: expect.any(String) } }]);
      }
      // Nothing was changed by the refused calls.
      const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, nativeEvents(2)));
      expect([reply.status, reply.body]).toEqual([200, ok(2)]);
    } finally {
      await dedicated.dispose();
    }
  });

  test("with keep_ratio 0.5 every event is accepted, quota_limited lists events, and only the kept ones are stored with sample_rate 0.5", async () => {
    const dedicated = await startDedicatedService({ REGION_SECRET: "s" });
    try {
      const { url } = dedicated.service;
      const { project: unlimited, public_keys: unlimitedKeys } = await createProject(dedicated.owner, "Under the cap", "eu");
      const policyPath = `/region/eu/internal/ingest-policy/${dedicated.project.id}`;
      const set = await call(url, "PUT", policyPath, { body: { keep_ratio: 0.5 }, headers: { "x-region-secret": "s" } });
      expect([set.status, set.body]).toEqual([200, { project_id: dedicated.project.id, keep_ratio: 0.5, updated_at: expect.stringMatching(isoPattern) }]);

      const batch = nativeEvents(200, { properties: { plan: "pro" } });
      const reply = await postIngest(url, nativeBody(dedicated.key, batch));
      expect([reply.status, reply.body]).toEqual([200, ok(200, [], ["events"])]);
      const sampledOut = batch.find((event) => Bun.hash.crc32(event.uuid) / 2 ** 32 >= 0.5)!;
      const resent = await postIngest(url, nativeBody(dedicated.key, [sampledOut]));
      expect([resent.status, resent.body]).toEqual([200, ok(0, [duplicate(sampledOut.uuid)], ["events"])]);

      const other = nativeEvent();
      const otherReply = await postIngest(url, nativeBody(unlimitedKeys[0].key, [other]));
      expect([otherReply.status, otherReply.body]).toEqual([200, ok(1)]);

      const reset = await call(url, "PUT", policyPath, { body: { keep_ratio: 1 }, headers: { "x-region-secret": "s" } });
      expect([reset.status, reset.body]).toEqual([200, { project_id: dedicated.project.id, keep_ratio: 1, updated_at: expect.stringMatching(isoPattern) }]);
      const afterReset = nativeEvent();
      const resetReply = await postIngest(url, nativeBody(dedicated.key, [afterReset]));
      expect([resetReply.status, resetReply.body]).toEqual([200, ok(1)]);

      const kept = batch.filter((event) => Bun.hash.crc32(event.uuid) / 2 ** 32 < 0.5);
      // Sampled-out events are not written to the log on disk either.
      const onDisk = walFilesText(dedicated.service.dataDir);
      expect(batch.filter((event) => !onDisk.includes(event.uuid))).toEqual(batch.filter((event) => !kept.includes(event)));
      const records = await dedicated.stopAndReadWal();
      expect(kept.length).toBeGreaterThan(60);
      expect(kept.length).toBeLessThan(140);
      expect(storedEvents(records, dedicated.project.id).map((event) => [event.uuid, event.sample_rate, event.properties])).toEqual([
        ...kept.map((event) => [event.uuid, 0.5, { plan: "pro", $sample_rate: 0.5 }]),
        [afterReset.uuid, 1, { plan: "pro" }],
      ]);
      expect(storedEvents(records, unlimited.id).map((event) => [event.uuid, event.sample_rate, event.properties])).toEqual([[other.uuid, 1, { plan: "pro" }]]);
    } finally {
      await dedicated.dispose();
    }
  });
});

describe("disk full", () => {
  test.skipIf(!canMountTinyFs)(`a full disk answers 503 with Retry-After, acknowledges nothing, and the same batch is accepted once space returns (${tinyFsSkipReason})`, async () => {
    await withTinyFs(16 * 1024, async (dir) => {
      const dataDir = join(dir, "data");
      const tiny = await startTestService({ REGIONS: "eu" }, { dataDir });
      let running = true;
      try {
        const tinyOwner = await signUp(tiny, "Tiny owner");
        const { project: tinyProject, public_keys } = await createProject(tinyOwner, "Tiny", "eu");
        const batch = nativeEvents(3);
        expect(fillDisk(join(dir, "ballast"))).toBeGreaterThan(0);

        const full = await postIngest(tiny.url, nativeBody(public_keys[0].key, batch));
        expect([full.status, full.body, full.headers.get("retry-after")]).toEqual([503, { error: "storage cannot accept writes right now" }, "5"]);

        truncateSync(join(dir, "ballast"), 0);
        const retried = await postIngest(tiny.url, nativeBody(public_keys[0].key, batch));
        expect([retried.status, retried.body]).toEqual([200, ok(3)]);

        await tiny.stop();
        running = false;
        const records = await readStored(dataDir);
        expect(storedEvents(records, tinyProject.id).map((event) => event.uuid)).toEqual(batch.map((event) => event.uuid));
      } finally {
        if (running) await tiny.stop();
      }
    });
  });
});
