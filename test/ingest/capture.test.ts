// Native ingest over real HTTP: POST /ingest/{region}/batch and /e (spec 2: Ingest request,
// Authentication, Errors, Limits): the request as a whole (keys, origins, bodies, compression,
// the rate limit). Each event's checks: event-validation.test.ts; what is stored: stored-events.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { zstdCompressSync } from "node:zlib";
import { compressToBase64 } from "lz-string";
import type { TestService } from "../helpers/service.ts";
import { createProject, type SignedUpUser } from "../helpers/accounts.ts";
import { isoPattern } from "../helpers/client.ts";
import { encodedRequestBytesMax, requestBytesMax } from "../../server/ingest/limits.ts";
import {
  expectCors, nativeBody, nativeEvent, nativeEvents, nonexistentDay, ok, postIngest, startDedicatedService,
} from "./helpers.ts";

const MiB = 1024 * 1024;
const tooLargeMessage = "request body exceeds 20000000 bytes after decompression";

let service: TestService;
let owner: SignedUpUser;
let key: string;
let dispose: () => Promise<void>;

beforeAll(async () => ({ service, owner, key, dispose } = await startDedicatedService()));
afterAll(() => dispose());

const post = (payload: unknown, options?: Parameters<typeof postIngest>[2]) => postIngest(service.url, payload, options);
const bodyText = (batch: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify(nativeBody(key, batch, extra));
const bytes = (text: string) => new TextEncoder().encode(text);

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
      { uuid: badName.uuid, reason: "invalid", message: "event must be a name of 1 to 200 characters, not only white space" },
      { uuid: reserved.uuid, reason: "reserved_name", message: "event names starting with $ are reserved and this one is not a name the service knows; use a name without $" },
      { uuid: email.uuid, reason: "invalid", message: "distinct_id looks like an email address; use a user id" },
    ])]);
  });

  test("a batch in which every event is rejected still answers 200", async () => {
    const bad = nativeEvent({ event: "" });
    const reply = await post(nativeBody(key, [bad]));
    expect([reply.status, reply.body]).toEqual([200, ok(0, [{ uuid: bad.uuid, reason: "invalid", message: "event must be a name of 1 to 200 characters, not only white space" }])]);
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
      expect(response.headers.get("access-control-allow-headers")).toBe("content-type, content-encoding");
    });
  }

  test("a preflight is allowed the headers it asks for (an SDK's own, such as RudderStack's AnonymousId); without any, the usual ones", async () => {
    const preflight = (headers: Record<string, string>) =>
      fetch(`${service.url}/ingest/eu/v1/batch`, { method: "OPTIONS", headers: { origin: "https://shop.example", "access-control-request-method": "POST", ...headers } });
    const asking = await preflight({ "access-control-request-headers": "authorization, anonymousid, content-type" });
    const plain = await preflight({});
    expectCors(asking.headers);
    expectCors(plain.headers);
    expect([asking.status, asking.headers.get("access-control-allow-headers"), plain.status, plain.headers.get("access-control-allow-headers")]).toEqual([
      204, "authorization, anonymousid, content-type", 204, "Content-Type, Content-Encoding, Authorization, X-Requested-With",
    ]);
  });

  test("an unknown ingest route answers 404 in the ingest error shape, with CORS", async () => {
    const reply = await post(nativeBody(key, nativeEvents(1)), { path: "/nope" });
    expect([reply.status, reply.body]).toEqual([404, { error: "no such route" }]);
  });

  test("a region this server does not run answers 404 in the ingest shape, with CORS, preflight included", async () => {
    // zz is no region at all; EU is eu's code miswritten (codes are lowercase).
    for (const region of ["zz", "EU"]) {
      const reply = await post(nativeBody(key, nativeEvents(1)), { region });
      expect([reply.status, reply.body]).toEqual([404, { error: `region ${region} is not served here` }]);
    }
    const bare = await fetch(`${service.url}/ingest`, { method: "POST" });
    expect([bare.status, await bare.json()]).toEqual([404, { error: "no such route" }]);
    expectCors(bare.headers);
    const preflight = await fetch(`${service.url}/ingest/zz/batch`, { method: "OPTIONS", headers: { origin: "https://shop.example", "access-control-request-method": "POST" } });
    expect([preflight.status, await preflight.text()]).toEqual([204, ""]);
    expectCors(preflight.headers);
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
    expect([alone.status, alone.body]).toEqual([200, { status: 1, ...ok(0, [{ uuid: null, reason: "invalid", message: "event must be a JSON object with an event name" }]) }]);
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
      [[nativeEvent(), 42], ok(1, [{ uuid: null, reason: "invalid", message: "event must be a JSON object with an event name" }])],
      [[null], ok(0, [{ uuid: null, reason: "invalid", message: "event must be a JSON object with an event name" }])],
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

  test("a base64 body that decodes to 20 MB is accepted; one that decodes one byte past it answers 413", async () => {
    const encoded = (size: number) => Buffer.from(bodyOfSize(size)).toString("base64");
    expect(encoded(requestBytesMax).length).toBeGreaterThan(26_000_000);
    const accepted = await post(undefined, { raw: encoded(requestBytesMax), query: "compression=base64", headers: { "content-type": "text/plain" } });
    expect([accepted.status, accepted.body]).toEqual([200, ok(1)]);
    const past = await post(undefined, { raw: encoded(requestBytesMax + 1), query: "compression=base64", headers: { "content-type": "text/plain" } });
    expect([past.status, past.body]).toEqual([413, { error: tooLargeMessage }]);
  });

  test("a form body whose data field decodes to 20 MB is accepted; one byte past it answers 413", async () => {
    const form = (size: number) => `data=${encodeURIComponent(Buffer.from(bodyOfSize(size)).toString("base64"))}`;
    const headers = { "content-type": "application/x-www-form-urlencoded" };
    const accepted = await post(undefined, { raw: form(requestBytesMax), headers });
    expect([accepted.status, accepted.body]).toEqual([200, ok(1)]);
    const past = await post(undefined, { raw: form(requestBytesMax + 1), headers });
    expect([past.status, past.body]).toEqual([413, { error: tooLargeMessage }]);
  });

  test("a body longer than any encoding of 20 MB (60,000,000 bytes) answers 413 in the ingest shape, with CORS", async () => {
    expect(encodedRequestBytesMax).toBe(60_000_000);
    const raw = bodyOfSize(encodedRequestBytesMax + 1);
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
  test("JSON after a UTF-8 byte-order mark (as .NET clients write it), plain and gzip", async () => {
    const withMark = (text: string) => new Uint8Array([0xef, 0xbb, 0xbf, ...bytes(text)]);
    await expectAccepted({ raw: withMark(bodyText(nativeEvents(1))) });
    await expectAccepted({ raw: Bun.gzipSync(withMark(bodyText(nativeEvents(1)))), headers: { "content-encoding": "gzip" } });
  });
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

  describe("what the bytes are wins over the labels, in a fixed order", () => {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const text = { "content-type": "text/plain" };
    const json = () => bodyText(nativeEvents(1));
    const cases: [string, () => Parameters<typeof postIngest>[2]][] = [
      ["a form of base64 JSON sent with ?compression=gzip-js (posthog-js's sendBeacon)", () => ({ raw: `data=${encodeURIComponent(base64(json()))}`, query: "compression=gzip-js", headers: form })],
      ["a form of JSON sent with ?compression=gzip-js", () => ({ raw: `data=${encodeURIComponent(json())}`, query: "compression=gzip-js", headers: form })],
      ["a form of base64 JSON sent with Content-Encoding: zstd", () => ({ raw: `data=${encodeURIComponent(base64(json()))}`, headers: { ...form, "content-encoding": "zstd" } })],
      ["JSON sent with Content-Encoding: gzip", () => ({ raw: json(), headers: { "content-encoding": "gzip" } })],
      ["JSON sent with ?compression=zstd", () => ({ raw: json(), query: "compression=zstd" })],
      ["JSON sent with ?compression=base64", () => ({ raw: json(), query: "compression=base64" })],
      ["base64 JSON sent with ?compression=gzip-js", () => ({ raw: base64(json()), query: "compression=gzip-js", headers: text })],
      ["gzip sent with ?compression=base64", () => ({ raw: gzip(json()), query: "compression=base64", headers: text })],
      ["base64 JSON sent with ?compression=lz64", () => ({ raw: base64(json()), query: "compression=lz64", headers: text })],
      ["lz-string sent with ?compression=base64", () => ({ raw: compressToBase64(json()), query: "compression=base64", headers: text })],
      ["lz-string without a label", () => ({ raw: compressToBase64(json()), headers: text })],
      ["a form of lz-string without a label", () => ({ raw: `data=${encodeURIComponent(compressToBase64(json()))}`, headers: form })],
    ];
    for (const [name, options] of cases) test(name, () => expectAccepted(options()));

    test("when nothing fits, the error names the declared encoding, else what was expected", async () => {
      const refused: [Parameters<typeof postIngest>[2], string][] = [
        [{ raw: "definitely not gzip", query: "compression=gzip-js", headers: text }, "body is not valid gzip data"],
        [{ raw: "not*lz*text", query: "compression=lz64", headers: text }, "body is not valid lz-string data"],
        [{ raw: "not*base64!", headers: text }, "body is neither JSON nor a form with a data field"],
        [{ raw: "data=not*base64!", headers: form }, "data is neither JSON, base64 nor lz-string"],
        [{ raw: "data=not*base64!&compression=base64", headers: form }, "data is not valid base64"],
        // base64 of text that is not JSON: base64, but not of an event body.
        [{ raw: `data=${base64("hello, world")}`, query: "compression=gzip-js", headers: form }, "data is not valid gzip data"],
      ];
      for (const [options, error] of refused) {
        const reply = await post(undefined, options);
        expect([options!.raw, reply.status, reply.body]).toEqual([options!.raw, 400, { error }]);
      }
    });
  });

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

describe("long URLs", () => {
  const urlTooLong = { error: "request URL is longer than 65536 bytes; send the events in a POST body" };
  /** A GET of one native event in `data` (base64), padded with an unread parameter to exactly `length` characters of URL. */
  const getUrl = (length: number) => {
    const base = `${service.url}/ingest/eu/e/?data=${encodeURIComponent(Buffer.from(bodyText(nativeEvents(1))).toString("base64"))}&pad=`;
    return base + "x".repeat(length - base.length);
  };
  const get = async (url: string) => {
    const response = await fetch(url, { headers: { origin: "https://shop.example" } });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
  };

  test("a GET whose URL is 65,536 bytes is read (past the HTTP server's default 16 KiB); one byte more answers 414 in the ingest shape, with CORS", async () => {
    const atLimit = await get(getUrl(65_536));
    expect([atLimit.status, atLimit.body]).toEqual([200, ok(1)]);
    for (const length of [65_537, 200_000]) {
      const reply = await get(getUrl(length));
      expectCors(reply.headers);
      expect([length, reply.status, reply.body]).toEqual([length, 414, urlTooLong]);
    }
  });

  test("a POST with an over-long query string answers 414 too, and its preflight is allowed so the browser can read that", async () => {
    const query = `pad=${"x".repeat(70_000)}`;
    const reply = await post(nativeBody(key, nativeEvents(1)), { query });
    expect([reply.status, reply.body]).toEqual([414, urlTooLong]);
    const preflight = await fetch(`${service.url}/ingest/eu/batch?${query}`, {
      method: "OPTIONS",
      headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expectCors(preflight.headers);
    expect(preflight.status).toBe(204);
  });

  test("past the HTTP server's bound on a request's head (256 KiB), the server itself refuses with 431 before ingest sees the request", async () => {
    const reply = await fetch(getUrl(300_000));
    expect([reply.status, await reply.text()]).toEqual([431, ""]);
  });
});

describe("rate limit", () => {
  test("5,000 events/s sustained with a burst of 50,000: 50 full batches pass, then at most what refilled, then 429 with Retry-After 1; other projects are not affected", async () => {
    const { public_keys: busyKeys } = await createProject(owner, "Busy", "eu");
    const { public_keys: quietKeys } = await createProject(owner, "Quiet", "eu");
    const busy = busyKeys[0].key;
    const send = () => post(undefined, { raw: JSON.stringify(nativeBody(busy, nativeEvents(1000))) });

    const started = performance.now();
    // The bucket starts full: the first 50,000 events pass whatever the timing.
    const burst = await Promise.all(Array.from({ length: 50 }, send));
    expect(burst.map((reply) => [reply.status, reply.body])).toEqual(Array.from({ length: 50 }, () => [200, ok(1000)]));

    let limited: Awaited<ReturnType<typeof send>> | undefined;
    let acceptedEvents = 50 * 1000;
    for (let sent = burst.length; sent < 150 && !limited; sent += 5) {
      const wave = await Promise.all(Array.from({ length: 5 }, send));
      for (const reply of wave) {
        if (reply.status === 429) limited ??= reply;
        else {
          expect([reply.status, reply.body]).toEqual([200, ok(1000)]);
          acceptedEvents += 1000;
        }
      }
    }
    // Past the burst only what refilled meanwhile passes: 5,000 events per second since the first request.
    const elapsedSeconds = (performance.now() - started) / 1000;
    expect(acceptedEvents).toBeLessThanOrEqual(50_000 + 5000 * elapsedSeconds);
    expect(limited).toBeDefined();
    expect([limited!.status, limited!.body]).toEqual([429, { error: "ingest rate limit of the project exceeded" }]);
    // A refused batch of 1,000 lacks fewer than 1,000 tokens: one second refills them.
    expect(limited!.headers.get("retry-after")).toBe("1");

    const quiet = await post(nativeBody(quietKeys[0].key, nativeEvents(1000)));
    expect([quiet.status, quiet.body]).toEqual([200, ok(1000)]);
  });
});
