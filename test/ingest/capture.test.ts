// Native ingest over real HTTP: POST /ingest/{region}/batch and /e (spec 2: Ingest request,
// Authentication, Events, Errors, Limits). Tests that check what was stored run a service of
// their own and read the region's write-ahead log (what ingest wrote) or, after a restart,
// everything the region has stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { truncateSync } from "node:fs";
import { join } from "node:path";
import { zstdCompressSync } from "node:zlib";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { call, isoPattern } from "../helpers/client.ts";
import { canMountTinyFs, fillDisk, tinyFsSkipReason, withTinyFs } from "../helpers/tiny-fs.ts";
import { compactStored, readStored } from "../helpers/stored-events.ts";
import { requestBytesMax } from "../../server/ingest/limits.ts";
import {
  daysAgo, eventOfSize, expectCors, nativeBody, nativeEvent, nativeEvents, ok, postIngest, rfc3339, startDedicatedService,
  storedEvents, type NativeEvent,
} from "./helpers.ts";

const KiB = 1024;
const MiB = 1024 * 1024;
const browserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const headlessAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36";
const crawlerAgents = [
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.0; +https://openai.com/gptbot",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
];
/** Names with a defined meaning (spec 2, Events) plus the other `$` names the service knows. */
const knownReservedNames = [
  "$identify", "$create_alias", "$groupidentify", "$set", "$pageview", "$screen",
  "$pageleave", "$autocapture", "$exception", "$feature_flag_called", "$rageclick", "$opt_in",
];
const tooLargeMessage = "request body exceeds 20000000 bytes after decompression";

let service: TestService;
let owner: SignedUpUser;
let project: any;
let key: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Ingest owner");
  const created = await createProject(owner, "Main", "eu");
  project = created.project;
  key = created.public_keys[0].key;
});
afterAll(async () => { await service.close(); });

const post = (payload: unknown, options?: Parameters<typeof postIngest>[2]) => postIngest(service.url, payload, options);
const bodyText = (batch: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify(nativeBody(key, batch, extra));
const bytes = (text: string) => new TextEncoder().encode(text);

/** The 31st of the latest past month that has 30 days: fits the RFC 3339 grammar but names no day. */
function nonexistentDay(): string {
  const now = new Date();
  for (let back = 1; ; back++) {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    const days = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 0)).getUTCDate();
    if (days === 30) return `${month.getUTCFullYear()}-${String(month.getUTCMonth() + 1).padStart(2, "0")}-31T12:00:00Z`;
  }
}

describe("request and response", () => {
  for (const path of ["/batch", "/e", "/batch/", "/e/"]) {
    test(`POST ${path} accepts a native batch and answers {accepted, rejected, quota_limited}`, async () => {
      const reply = await post(nativeBody(key, nativeEvents(3)), { path });
      expect([reply.status, reply.body]).toEqual([200, ok(3)]);
    });
  }

  test("a rejected event is reported with its uuid and reason while the rest of the batch is accepted, in batch order", async () => {
    const badName = nativeEvent({ event: "" });
    const reserved = nativeEvent({ event: "$something_unknown" });
    const email = nativeEvent({ distinct_id: "jane@example.com" });
    const batch = [nativeEvent(), badName, nativeEvent(), reserved, email, nativeEvent()];
    const reply = await post(nativeBody(key, batch));
    expect([reply.status, reply.body]).toEqual([200, ok(3, [
      { uuid: badName.uuid, reason: "invalid" },
      { uuid: reserved.uuid, reason: "reserved_name" },
      { uuid: email.uuid, reason: "invalid" },
    ])]);
  });

  test("a batch in which every event is rejected still answers 200", async () => {
    const bad = nativeEvent({ event: "" });
    const reply = await post(nativeBody(key, [bad]));
    expect([reply.status, reply.body]).toEqual([200, ok(0, [{ uuid: bad.uuid, reason: "invalid" }])]);
  });

  for (const path of ["/batch", "/e"]) {
    test(`OPTIONS ${path} preflight answers 204 with CORS headers and no credentials`, async () => {
      const response = await fetch(`${service.url}/ingest/eu${path}`, {
        method: "OPTIONS",
        headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, content-encoding" },
      });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe("");
      expectCors(response.headers);
      expect(response.headers.get("access-control-allow-methods")?.split(/,\s*/)).toContain("POST");
      expect(response.headers.get("access-control-allow-headers")?.toLowerCase().split(/,\s*/)).toEqual(
        expect.arrayContaining(["content-type", "content-encoding"]),
      );
    });
  }

  test("an unknown ingest route answers 404 in the ingest error shape, with CORS", async () => {
    const reply = await post(nativeBody(key, nativeEvents(1)), { path: "/nope" });
    expect([reply.status, reply.body]).toEqual([404, { error: "no such route" }]);
  });
});

describe("authentication", () => {
  test("a missing api_key answers 401", async () => {
    const reply = await post({ batch: nativeEvents(1) });
    expect([reply.status, reply.body]).toEqual([401, { error: "api_key is missing" }]);
  });

  test("an empty or non-string api_key answers 401", async () => {
    for (const apiKey of ["", 42, null, { key }]) {
      const reply = await post({ api_key: apiKey, batch: nativeEvents(1) });
      expect([reply.status, reply.body]).toEqual([401, { error: "api_key is missing" }]);
    }
  });

  test("an unknown key answers 401", async () => {
    const reply = await post(nativeBody("svc_pk_eu_production_AAAAAAAAAAAAAAAAAAAAAA", nativeEvents(1)));
    expect([reply.status, reply.body]).toEqual([401, { error: "api_key is not a key of region eu" }]);
  });

  test("a revoked key answers 401; the project's other keys still work", async () => {
    const { project: revokedProject, public_keys } = await createProject(owner, "Revoked", "eu");
    const [production, staging] = public_keys;
    const revoked = await owner.client.post(`/app/projects/${revokedProject.id}/keys/${production.id}/revoke`);
    expect([revoked.status, revoked.body]).toEqual([200, { ...production, revoked_at: expect.stringMatching(isoPattern) }]);
    const reply = await post(nativeBody(production.key, nativeEvents(1)));
    expect([reply.status, reply.body]).toEqual([401, { error: "api_key has been revoked" }]);
    const other = await post(nativeBody(staging.key, nativeEvents(1)));
    expect([other.status, other.body]).toEqual([200, ok(1)]);
  });

  test("a key of another region answers 401 at this region and 200 at its own", async () => {
    const { public_keys } = await createProject(owner, "Across the sea", "us");
    const usKey = public_keys[0].key;
    const wrong = await post(nativeBody(usKey, nativeEvents(1)));
    expect([wrong.status, wrong.body]).toEqual([401, { error: "api_key is not a key of region eu" }]);
    const right = await post(nativeBody(usKey, nativeEvents(1)), { region: "us" });
    expect([right.status, right.body]).toEqual([200, ok(1)]);
  });

  test("authentication comes before the batch is read: a bad key with an empty batch is 401", async () => {
    const reply = await post(nativeBody("svc_pk_eu_production_AAAAAAAAAAAAAAAAAAAAAA", []));
    expect([reply.status, reply.body]).toEqual([401, { error: "api_key is not a key of region eu" }]);
  });
});

describe("origin allowlist", () => {
  let allowlisted: string;

  beforeAll(async () => {
    const { project: listed, public_keys } = await createProject(owner, "Allowlisted", "eu");
    const patched = await owner.client.patch(`/app/projects/${listed.id}/keys/${public_keys[0].id}`, { allowed_origins: ["https://app.example.com"] });
    expect([patched.status, patched.body]).toEqual([200, { ...public_keys[0], allowed_origins: ["https://app.example.com"] }]);
    allowlisted = public_keys[0].key;
  });

  test("a listed origin is accepted", async () => {
    const reply = await post(nativeBody(allowlisted, nativeEvents(1)), { headers: { origin: "https://app.example.com" } });
    expect([reply.status, reply.body]).toEqual([200, ok(1)]);
  });

  test("an origin not on the list answers 403", async () => {
    for (const origin of ["https://evil.example", "https://app.example.com.evil.example", "http://app.example.com"]) {
      const reply = await post(nativeBody(allowlisted, nativeEvents(1)), { headers: { origin } });
      expect([reply.status, reply.body]).toEqual([403, { error: `origin ${origin} is not allowed for this key` }]);
    }
  });

  test("a request without an Origin header (a server SDK) is accepted", async () => {
    const reply = await post(nativeBody(allowlisted, nativeEvents(1)));
    expect([reply.status, reply.body]).toEqual([200, ok(1)]);
  });

  test("a key without an allowlist accepts any origin", async () => {
    const reply = await post(nativeBody(key, nativeEvents(1)), { headers: { origin: "https://evil.example" } });
    expect([reply.status, reply.body]).toEqual([200, ok(1)]);
  });
});

describe("request body", () => {
  test("malformed JSON answers 400", async () => {
    for (const raw of ['{"api_key": ', '{"api_key": "k", "batch": [}', "{not json}"]) {
      const reply = await post(undefined, { raw });
      expect([reply.status, reply.body]).toEqual([400, { error: "body is not valid JSON" }]);
    }
  });

  test("an empty body answers 400", async () => {
    const reply = await post(undefined, { raw: "" });
    expect([reply.status, reply.body]).toEqual([400, { error: "request body is empty" }]);
  });

  test("a bare JSON array is the drop-in format (docs/drop-in.md): events without a key in them answer 401", async () => {
    const reply = await post(nativeEvents(1));
    expect([reply.status, reply.body]).toEqual([401, { error: "api_key is missing" }]);
  });

  test("a JSON scalar as the body answers 400", async () => {
    for (const raw of ["42", "null", '"text"', "true"]) {
      const reply = await post(undefined, { raw });
      expect([reply.status, reply.body]).toEqual([400, { error: expect.any(String) }]);
    }
  });

  test("a batch that is not an array answers 400; a body without one is a single drop-in event", async () => {
    for (const batch of [null, {}, "events", 3, nativeEvent()]) {
      const reply = await post({ api_key: key, batch });
      expect([reply.status, reply.body]).toEqual([400, { error: "batch must be an array of events" }]);
    }
    const alone = await post({ api_key: key });
    expect([alone.status, alone.body]).toEqual([200, { status: 1, ...ok(0, [{ uuid: null, reason: "invalid" }]) }]);
  });

  test("an empty batch answers 400", async () => {
    const reply = await post(nativeBody(key, []));
    expect([reply.status, reply.body]).toEqual([400, { error: "batch must contain 1 to 1000 events" }]);
  });

  test("1,000 events are accepted; 1,001 answer 413 and nothing of them is accepted", async () => {
    const thousand = await post(nativeBody(key, nativeEvents(1000)));
    expect([thousand.status, thousand.body]).toEqual([200, ok(1000)]);
    const tooMany = nativeEvents(1001);
    const reply = await post(nativeBody(key, tooMany));
    expect([reply.status, reply.body]).toEqual([413, { error: "batch has 1001 events; at most 1000" }]);
    const retried = await post(nativeBody(key, tooMany.slice(0, 1000)));
    expect([retried.status, retried.body]).toEqual([200, ok(1000)]);
  });

  test("a batch in which some event has no lib object is the drop-in format: every event is read that way", async () => {
    const withLib = nativeEvent();
    const cases: [unknown[], unknown][] = [
      [[withLib, nativeEvent({ lib: undefined })], ok(2)],
      [[nativeEvent({ lib: "test-sdk/1.0" })], ok(1)],
      [[nativeEvent({ lib: null })], ok(1)],
      [[nativeEvent(), 42], ok(1, [{ uuid: null, reason: "invalid" }])],
      [[null], ok(0, [{ uuid: null, reason: "invalid" }])],
    ];
    for (const [batch, reply] of cases) {
      const answer = await post(nativeBody(key, batch));
      expect([answer.status, answer.body]).toEqual([200, { status: 1, ...(reply as object) }]);
    }
  });

  test("sent_at that is not an RFC 3339 date-time answers 400", async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const sentAt of ["yesterday", today, `${today}T10:00:00`, Date.now(), "", {}]) {
      const reply = await post(nativeBody(key, nativeEvents(1), { sent_at: sentAt }));
      expect([reply.status, reply.body]).toEqual([400, { error: "sent_at must be an RFC 3339 date-time" }]);
    }
  });

  test("sent_at naming a day that does not exist answers 400", async () => {
    const reply = await post(nativeBody(key, nativeEvents(1), { sent_at: nonexistentDay() }));
    expect([reply.status, reply.body]).toEqual([400, { error: "sent_at must be an RFC 3339 date-time" }]);
  });

  test("sent_at null or absent is accepted", async () => {
    const withNull = await post(nativeBody(key, nativeEvents(1), { sent_at: null }));
    expect([withNull.status, withNull.body]).toEqual([200, ok(1)]);
    const withValue = await post(nativeBody(key, nativeEvents(1), { sent_at: new Date().toISOString() }));
    expect([withValue.status, withValue.body]).toEqual([200, ok(1)]);
  });

  /** A native body of exactly `size` bytes (its padding member makes up the rest). */
  const bodyOfSize = (size: number) => {
    const events = nativeEvents(1);
    const padding = size - bodyText(events, { padding: "" }).length;
    return bodyText(events, { padding: "x".repeat(padding) });
  };

  test("a body of 20 MB (20,000,000 bytes) is accepted; one byte more answers 413", async () => {
    expect(requestBytesMax).toBe(20_000_000);
    const atLimit = await post(undefined, { raw: bodyOfSize(requestBytesMax) });
    expect([atLimit.status, atLimit.body]).toEqual([200, ok(1)]);
    const past = await post(undefined, { raw: bodyOfSize(requestBytesMax + 1) });
    expect([past.status, past.body]).toEqual([413, { error: tooLargeMessage }]);
  });

  test("a gzip body that inflates to 20 MB is accepted; one that inflates one byte past it answers 413", async () => {
    const atLimit = Bun.gzipSync(bytes(bodyOfSize(requestBytesMax)));
    expect(atLimit.byteLength).toBeLessThan(MiB);
    const accepted = await post(undefined, { raw: atLimit, headers: { "content-encoding": "gzip" } });
    expect([accepted.status, accepted.body]).toEqual([200, ok(1)]);
    const past = await post(undefined, { raw: Bun.gzipSync(bytes(bodyOfSize(requestBytesMax + 1))), headers: { "content-encoding": "gzip" } });
    expect([past.status, past.body]).toEqual([413, { error: tooLargeMessage }]);
  });

  test("a zstd body that inflates to 20 MB is accepted; one that inflates one byte past it answers 413", async () => {
    const compress = (size: number) => new Uint8Array(zstdCompressSync(bytes(bodyOfSize(size))));
    const accepted = await post(undefined, { raw: compress(requestBytesMax), headers: { "content-encoding": "zstd" } });
    expect([accepted.status, accepted.body]).toEqual([200, ok(1)]);
    const past = await post(undefined, { raw: compress(requestBytesMax + 1), headers: { "content-encoding": "zstd" } });
    expect([past.status, past.body]).toEqual([413, { error: tooLargeMessage }]);
  });

  test("a body past the HTTP server's own cap (33 MB) also answers 413 in the ingest shape, with CORS", async () => {
    const raw = bodyText(nativeEvents(1), { padding: "x".repeat(33 * MiB) });
    const reply = await post(undefined, { raw });
    expect([reply.status, reply.body]).toEqual([413, { error: tooLargeMessage }]);
  });
});

describe("compression and form bodies", () => {
  const expectAccepted = async (options: Parameters<typeof postIngest>[2]) => {
    const reply = await post(undefined, options);
    expect([reply.status, reply.body]).toEqual([200, ok(1)]);
  };
  const gzip = (text: string) => Bun.gzipSync(bytes(text));
  const zstd = (text: string) => new Uint8Array(zstdCompressSync(bytes(text)));
  const base64 = (data: string | Uint8Array) => Buffer.from(data).toString("base64");

  test("Content-Encoding: gzip", () => expectAccepted({ raw: gzip(bodyText(nativeEvents(1))), headers: { "content-encoding": "gzip" } }));
  test("Content-Encoding: zstd", () => expectAccepted({ raw: zstd(bodyText(nativeEvents(1))), headers: { "content-encoding": "zstd" } }));
  test("query compression=gzip-js", () =>
    expectAccepted({ raw: gzip(bodyText(nativeEvents(1))), query: "compression=gzip-js", headers: { "content-type": "text/plain" } }));
  test("query compression=gzip", () =>
    expectAccepted({ raw: gzip(bodyText(nativeEvents(1))), query: "compression=gzip", headers: { "content-type": "text/plain" } }));
  test("query compression=zstd", () =>
    expectAccepted({ raw: zstd(bodyText(nativeEvents(1))), query: "compression=zstd", headers: { "content-type": "text/plain" } }));
  test("query compression=base64 (base64 of the JSON)", () =>
    expectAccepted({ raw: base64(bodyText(nativeEvents(1))), query: "compression=base64", headers: { "content-type": "text/plain" } }));
  test("query compression=base64 of a gzip body", () =>
    expectAccepted({ raw: base64(gzip(bodyText(nativeEvents(1)))), query: "compression=base64", headers: { "content-type": "text/plain" } }));
  test("gzip detected from its magic bytes without any declaration", () =>
    expectAccepted({ raw: gzip(bodyText(nativeEvents(1))), headers: { "content-type": "text/plain" } }));
  test("zstd detected from its magic bytes without any declaration", () =>
    expectAccepted({ raw: zstd(bodyText(nativeEvents(1))), headers: { "content-type": "application/octet-stream" } }));
  test("sendBeacon form body data=<base64 JSON>", () =>
    expectAccepted({
      raw: `data=${encodeURIComponent(base64(bodyText(nativeEvents(1))))}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }));
  test("sendBeacon form body data=<urlencoded JSON>", () =>
    expectAccepted({ raw: `data=${encodeURIComponent(bodyText(nativeEvents(1)))}`, headers: { "content-type": "application/x-www-form-urlencoded" } }));
  test("sendBeacon form body data=<base64 gzip>", () =>
    expectAccepted({
      raw: `data=${encodeURIComponent(base64(gzip(bodyText(nativeEvents(1)))))}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }));

  test("corrupt gzip answers 400", async () => {
    const valid = gzip(bodyText(nativeEvents(3)));
    const garbage = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05]);
    for (const raw of [garbage, valid.subarray(0, Math.floor(valid.byteLength / 2))]) {
      const reply = await post(undefined, { raw, headers: { "content-encoding": "gzip" } });
      expect([reply.status, reply.body]).toEqual([400, { error: "body is not valid gzip data" }]);
    }
  });

  test("corrupt zstd answers 400", async () => {
    const valid = zstd(bodyText(nativeEvents(3)));
    const flipped = valid.slice();
    flipped[flipped.byteLength - 3]! ^= 0xff;
    const flippedReply = await post(undefined, { raw: flipped, headers: { "content-encoding": "zstd" } });
    expect([flippedReply.status, flippedReply.body]).toEqual([400, { error: "body is not valid zstd data" }]);
    // Garbage after the magic bytes and a truncated frame: still 400 (the decoder reports them as empty output).
    const garbage = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03]);
    for (const raw of [garbage, valid.subarray(0, Math.floor(valid.byteLength / 2))]) {
      const reply = await post(undefined, { raw, headers: { "content-encoding": "zstd" } });
      expect([reply.status, reply.body]).toEqual([400, { error: expect.any(String) }]);
    }
  });

  test("a body declared gzip that is not gzip answers 400", async () => {
    const reply = await post(undefined, { raw: "definitely not gzip", headers: { "content-encoding": "gzip" } });
    expect([reply.status, reply.body]).toEqual([400, { error: "body is not valid gzip data" }]);
  });

  test("invalid base64 answers 400", async () => {
    const reply = await post(undefined, { raw: "not*base64!", query: "compression=base64", headers: { "content-type": "text/plain" } });
    expect([reply.status, reply.body]).toEqual([400, { error: "body is not valid base64" }]);
  });

  test("a form body without a data field answers 400", async () => {
    const reply = await post(undefined, { raw: `payload=${encodeURIComponent(bodyText(nativeEvents(1)))}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect([reply.status, reply.body]).toEqual([400, { error: "body is neither JSON nor a form with a data field" }]);
  });

  test("a form body whose data is neither JSON nor base64 answers 400", async () => {
    const reply = await post(undefined, { raw: "data=%7Bnot%20json", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: expect.any(String) });
  });
});

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

describe("rate limit", () => {
  test("5,000 events/s sustained with a burst of 50,000: at least 50 full batches pass, then 429 with Retry-After; other projects are not affected", async () => {
    const { public_keys: busyKeys } = await createProject(owner, "Busy", "eu");
    const { public_keys: quietKeys } = await createProject(owner, "Quiet", "eu");
    const busy = busyKeys[0].key;
    const send = () => post(undefined, { raw: JSON.stringify(nativeBody(busy, nativeEvents(1000))) });

    // The bucket starts full: the first 50,000 events pass whatever the timing.
    const burst = await Promise.all(Array.from({ length: 50 }, send));
    expect(burst.map((reply) => [reply.status, reply.body])).toEqual(Array.from({ length: 50 }, () => [200, ok(1000)]));

    let limited: Awaited<ReturnType<typeof send>> | undefined;
    let accepted = burst.length;
    for (let sent = burst.length; sent < 150 && !limited; sent += 5) {
      const wave = await Promise.all(Array.from({ length: 5 }, send));
      for (const reply of wave) {
        if (reply.status === 429) limited ??= reply;
        else {
          expect([reply.status, reply.body]).toEqual([200, ok(1000)]);
          accepted++;
        }
      }
    }
    expect(accepted).toBeGreaterThanOrEqual(50);
    expect(limited).toBeDefined();
    expect([limited!.status, limited!.body]).toEqual([429, { error: "ingest rate limit of the project exceeded" }]);
    expect(limited!.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    const quiet = await post(nativeBody(quietKeys[0].key, nativeEvents(1000)));
    expect([quiet.status, quiet.body]).toEqual([200, ok(1000)]);
  });
});

describe("stored events (write-ahead log of a stopped service)", () => {
  test("an accepted event is stored normalised: $ip dropped, no location for loopback, consent granted by default, sample_rate 1", async () => {
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
              ...noLocation,
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

  test("behind a trusted proxy the location comes from the first X-Forwarded-For hop, unless $geoip_disable", async () => {
    const dedicated = await startDedicatedService({ TRUST_PROXY: "true" });
    try {
      const cases = [
        { forwardedFor: "81.2.69.142", properties: { $ip: "10.1.2.3" } },
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
      await send(behindEvents, behind, ok(3, [{ uuid: behindEvents[3]!.uuid, reason: "clock_skew" }]));
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
      expect([resent.status, resent.body]).toEqual([200, ok(1, [{ uuid: a.uuid, reason: "duplicate" }])]);
      // A resent uuid twice in one batch: rejected once, the second copy dropped like any repeat in a batch.
      const resentTwice = await postIngest(url, nativeBody(dedicated.key, [a, { ...a, event: "third" }]));
      expect([resentTwice.status, resentTwice.body]).toEqual([200, ok(0, [{ uuid: a.uuid, reason: "duplicate" }])]);
      const upper = await postIngest(url, nativeBody(dedicated.key, [{ ...b, uuid: b.uuid.toUpperCase() }]));
      expect([upper.status, upper.body]).toEqual([200, ok(0, [{ uuid: expect.stringMatching(new RegExp(`^${b.uuid}$`, "i")), reason: "duplicate" }])]);
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
        { uuid: a.uuid, reason: "duplicate" },
        { uuid: b.uuid, reason: "duplicate" },
      ])]);
      await restarted.stop();
      restarted = undefined;
      expect(storedEvents(await readStored(dedicated.service.dataDir), dedicated.project.id).map((event) => event.uuid)).toEqual([a.uuid, b.uuid, c.uuid, d.uuid]);

      // Once the events are compacted into Parquet parts, a restart still refuses their retries.
      await compactStored(dedicated.service.dataDir);
      restarted = await startTestService({}, { dataDir: dedicated.service.dataDir });
      const afterCompaction = await postIngest(restarted.url, nativeBody(dedicated.key, [a, c, d]));
      expect([afterCompaction.status, afterCompaction.body]).toEqual([200, ok(0, [
        { uuid: a.uuid, reason: "duplicate" },
        { uuid: c.uuid, reason: "duplicate" },
        { uuid: d.uuid, reason: "duplicate" },
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
      expect([resent.status, resent.body]).toEqual([200, ok(0, [{ uuid: sampledOut.uuid, reason: "duplicate" }], ["events"])]);

      const other = nativeEvent();
      const otherReply = await postIngest(url, nativeBody(unlimitedKeys[0].key, [other]));
      expect([otherReply.status, otherReply.body]).toEqual([200, ok(1)]);

      const reset = await call(url, "PUT", policyPath, { body: { keep_ratio: 1 }, headers: { "x-region-secret": "s" } });
      expect([reset.status, reset.body]).toEqual([200, { project_id: dedicated.project.id, keep_ratio: 1, updated_at: expect.stringMatching(isoPattern) }]);
      const afterReset = nativeEvent();
      const resetReply = await postIngest(url, nativeBody(dedicated.key, [afterReset]));
      expect([resetReply.status, resetReply.body]).toEqual([200, ok(1)]);

      const records = await dedicated.stopAndReadWal();
      const kept = batch.filter((event) => Bun.hash.crc32(event.uuid) / 2 ** 32 < 0.5);
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
