// Replay ingest over real HTTP: POST /ingest/{region}/r as a whole request (docs/replay.md:
// chunks per request, body shape, sent_at, keys, origins, CORS, compression and the size bound),
// with the same rules and answers as event ingest (test/ingest/capture.test.ts). Each chunk's
// checks: replay-chunks.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { zstdCompressSync } from "node:zlib";
import type { TestService } from "../../helpers/service.ts";
import { createProject, type SignedUpUser } from "../../helpers/accounts.ts";
import { requestBytesMax } from "../../../server/ingest/limits.ts";
import { expectCors, nonexistentDay, type PostOptions } from "../helpers.ts";
import { moveEvent, postReplay, replayBody, replayChunk, replayOk, startReplayService } from "./helpers.ts";

const tooLargeMessage = "request body exceeds 20000000 bytes after decompression";
const chunksNotArray = { error: "chunks must be an array of 1 to 50 replay chunks" };

let service: TestService;
let owner: SignedUpUser;
let key: string;
let dispose: () => Promise<void>;

beforeAll(async () => ({ service, owner, key, dispose } = await startReplayService()));
afterAll(() => dispose());

const post = (payload: unknown, options?: PostOptions) => postReplay(service.url, payload, options);
const chunks = (count: number) => Array.from({ length: count }, () => replayChunk());
const bodyText = (count = 1, extra: Record<string, unknown> = {}) => JSON.stringify(replayBody(key, chunks(count), extra));
const bytes = (text: string) => new TextEncoder().encode(text);

describe("chunks per request", () => {
  test("no chunks answer 400", async () => {
    const reply = await post(replayBody(key, []));
    expect([reply.status, reply.body]).toEqual([400, { error: "chunks must contain 1 to 50 chunks" }]);
  });

  test("1 chunk and 50 chunks are accepted", async () => {
    const one = await post(replayBody(key, chunks(1)));
    const fifty = await post(replayBody(key, chunks(50)));
    expect([one.status, one.body, fifty.status, fifty.body]).toEqual([200, replayOk(1), 200, replayOk(50)]);
  });

  test("51 chunks answer 413 and none of them is stored: the first 50 sent again are accepted", async () => {
    const sent = chunks(51);
    const reply = await post(replayBody(key, sent));
    expect([reply.status, reply.body]).toEqual([413, { error: "chunks has 51 chunks; at most 50" }]);
    const retried = await post(replayBody(key, sent.slice(0, 50)));
    expect([retried.status, retried.body]).toEqual([200, replayOk(50)]);
  });

  test("chunks missing or not an array answer 400", async () => {
    for (const body of [{ api_key: key }, ...[null, {}, "chunks", 3, replayChunk()].map((value) => ({ api_key: key, chunks: value }))]) {
      const reply = await post(body);
      expect([JSON.stringify(body).slice(0, 60), reply.status, reply.body]).toEqual([JSON.stringify(body).slice(0, 60), 400, chunksNotArray]);
    }
  });
});

describe("request body", () => {
  test("a body that is not a JSON object answers 400", async () => {
    for (const raw of ["[]", JSON.stringify([replayChunk()])]) {
      const reply = await post(undefined, { raw });
      expect([raw.slice(0, 20), reply.status, reply.body]).toEqual([raw.slice(0, 20), 400, { error: "the body must be a JSON object with api_key and chunks" }]);
    }
    // A scalar is not read as JSON at all (ingest takes a body starting like an object or an array as JSON).
    for (const raw of ["42", "null", '"text"', "true"]) {
      const reply = await post(undefined, { raw });
      expect([raw, reply.status, reply.body]).toEqual([raw, 400, { error: "body is neither JSON nor a form with a data field" }]);
    }
  });

  test("a body that is not JSON answers 400", async () => {
    for (const raw of ['{"api_key": ', '{"api_key": "k", "chunks": [}', "{not json}"]) {
      const reply = await post(undefined, { raw });
      expect([raw, reply.status, reply.body]).toEqual([raw, 400, { error: "body is not valid JSON" }]);
    }
  });

  test("an empty body answers 400", async () => {
    const reply = await post(undefined, { raw: "" });
    expect([reply.status, reply.body]).toEqual([400, { error: "request body is empty" }]);
  });

  test("sent_at that is not an RFC 3339 date-time answers 400", async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const sentAt of ["yesterday", today, `${today}T10:00:00`, Date.now(), "", {}, nonexistentDay()]) {
      const reply = await post(replayBody(key, chunks(1), { sent_at: sentAt }));
      expect([sentAt, reply.status, reply.body]).toEqual([sentAt, 400, { error: "sent_at must be an RFC 3339 date-time" }]);
    }
  });

  test("sent_at absent or null is accepted", async () => {
    const absent = await post(replayBody(key, chunks(1), { sent_at: undefined }));
    const nulled = await post(replayBody(key, chunks(1), { sent_at: null }));
    expect([absent.status, absent.body, nulled.status, nulled.body]).toEqual([200, replayOk(1), 200, replayOk(1)]);
  });

  test("POST /r/ (trailing slash) is the same route", async () => {
    const reply = await post(replayBody(key, chunks(2)), { path: "/r/" });
    expect([reply.status, reply.body]).toEqual([200, replayOk(2)]);
  });

  test("OPTIONS /r preflight answers 204 with CORS headers and no credentials", async () => {
    for (const path of ["/r", "/r/"]) {
      const response = await fetch(`${service.url}/ingest/eu${path}`, {
        method: "OPTIONS",
        headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, content-encoding" },
      });
      expect([path, response.status, await response.text()]).toEqual([path, 204, ""]);
      expectCors(response.headers);
      expect(response.headers.get("access-control-allow-methods")?.split(/,\s*/)).toContain("POST");
      expect(response.headers.get("access-control-allow-headers")).toBe("content-type, content-encoding");
    }
  });

  /** A replay body of exactly `size` bytes (its padding member makes up the rest). */
  const bodyOfSize = (size: number) => {
    const sent = chunks(1);
    const padding = size - JSON.stringify(replayBody(key, sent, { padding: "" })).length;
    return JSON.stringify(replayBody(key, sent, { padding: "x".repeat(padding) }));
  };

  test("a body of 20 MB (20,000,000 bytes) after decompression is accepted; one byte more answers 413", async () => {
    expect(requestBytesMax).toBe(20_000_000);
    // gzip keeps the upload small; the bound is on the inflated JSON.
    const gzip = (size: number) => Bun.gzipSync(bytes(bodyOfSize(size)));
    const atLimit = await post(undefined, { raw: gzip(requestBytesMax), headers: { "content-encoding": "gzip" } });
    expect([atLimit.status, atLimit.body]).toEqual([200, replayOk(1)]);
    const past = await post(undefined, { raw: gzip(requestBytesMax + 1), headers: { "content-encoding": "gzip" } });
    expect([past.status, past.body]).toEqual([413, { error: tooLargeMessage }]);
    const plainPast = await post(undefined, { raw: bodyOfSize(requestBytesMax + 1) });
    expect([plainPast.status, plainPast.body]).toEqual([413, { error: tooLargeMessage }]);
  });
});

describe("compression and form bodies", () => {
  const expectAccepted = async (options: PostOptions) => {
    const reply = await post(undefined, options);
    expect([reply.status, reply.body]).toEqual([200, replayOk(2)]);
  };
  const gzip = (text: string) => Bun.gzipSync(bytes(text));
  const zstd = (text: string) => new Uint8Array(zstdCompressSync(bytes(text)));
  const base64 = (data: string | Uint8Array) => Buffer.from(data).toString("base64");
  const form = { "content-type": "application/x-www-form-urlencoded" };
  const text = { "content-type": "text/plain" };

  test("Content-Encoding: gzip", () => expectAccepted({ raw: gzip(bodyText(2)), headers: { "content-encoding": "gzip" } }));
  test("Content-Encoding: zstd", () => expectAccepted({ raw: zstd(bodyText(2)), headers: { "content-encoding": "zstd" } }));
  test("gzip detected from its magic bytes without any declaration", () => expectAccepted({ raw: gzip(bodyText(2)), headers: text }));
  test("zstd detected from its magic bytes without any declaration", () => expectAccepted({ raw: zstd(bodyText(2)), headers: { "content-type": "application/octet-stream" } }));
  test("query compression=gzip-js", () => expectAccepted({ raw: gzip(bodyText(2)), query: "compression=gzip-js", headers: text }));
  test("query compression=base64 (base64 of the JSON)", () => expectAccepted({ raw: base64(bodyText(2)), query: "compression=base64", headers: text }));
  test("query compression=base64 of a gzip body", () => expectAccepted({ raw: base64(gzip(bodyText(2))), query: "compression=base64", headers: text }));
  test("form body data=<base64 JSON>", () => expectAccepted({ raw: `data=${encodeURIComponent(base64(bodyText(2)))}`, headers: form }));
  test("form body data=<urlencoded JSON>", () => expectAccepted({ raw: `data=${encodeURIComponent(bodyText(2))}`, headers: form }));
  test("form body data=<base64 gzip>", () => expectAccepted({ raw: `data=${encodeURIComponent(base64(gzip(bodyText(2))))}`, headers: form }));

  test("a body declared gzip that is not gzip, and corrupt zstd, answer 400", async () => {
    const notGzip = await post(undefined, { raw: "definitely not gzip", headers: { "content-encoding": "gzip" } });
    expect([notGzip.status, notGzip.body]).toEqual([400, { error: "body is not valid gzip data" }]);
    const flipped = zstd(bodyText(3));
    flipped[flipped.byteLength - 3]! ^= 0xff;
    const corrupt = await post(undefined, { raw: flipped, headers: { "content-encoding": "zstd" } });
    expect([corrupt.status, corrupt.body]).toEqual([400, { error: "body is not valid zstd data" }]);
  });
});

describe("authentication and origins", () => {
  const unknownKey = "svc_pk_eu_production_AAAAAAAAAAAAAAAAAAAAAA";

  test("a missing, empty or non-string api_key answers 401", async () => {
    for (const apiKey of [undefined, "", 42, null, { key }]) {
      const reply = await post({ api_key: apiKey, chunks: chunks(1) });
      expect([apiKey, reply.status, reply.body]).toEqual([apiKey, 401, { error: "api_key is missing" }]);
    }
  });

  test("an unknown key answers 401, before the chunks are read", async () => {
    for (const sent of [chunks(1), [], chunks(51)]) {
      const reply = await post(replayBody(unknownKey, sent));
      expect([reply.status, reply.body]).toEqual([401, { error: "api_key is not a key of region eu" }]);
    }
  });

  test("a revoked key answers 401; the project's other keys still work", async () => {
    const { project, public_keys } = await createProject(owner, "Revoked replays", "eu");
    const [production, staging] = public_keys;
    const revoked = await owner.client.post(`/app/projects/${project.id}/keys/${production.id}/revoke`);
    expect(revoked.status).toBe(200);
    const reply = await post(replayBody(production.key, chunks(1)));
    expect([reply.status, reply.body]).toEqual([401, { error: "api_key has been revoked" }]);
    const other = await post(replayBody(staging.key, chunks(1)));
    expect([other.status, other.body]).toEqual([200, replayOk(1)]);
  });

  test("a key of another region answers 401 at this region and 200 at its own", async () => {
    const { public_keys } = await createProject(owner, "Replays across the sea", "us");
    const usKey = public_keys[0].key;
    const wrong = await post(replayBody(usKey, chunks(1)));
    expect([wrong.status, wrong.body]).toEqual([401, { error: "api_key is not a key of region eu" }]);
    const right = await post(replayBody(usKey, chunks(1)), { region: "us" });
    expect([right.status, right.body]).toEqual([200, replayOk(1)]);
  });

  test("with an origin allowlist: a listed origin or none is accepted, another answers 403", async () => {
    const { project, public_keys } = await createProject(owner, "Allowlisted replays", "eu");
    const patched = await owner.client.patch(`/app/projects/${project.id}/keys/${public_keys[0].id}`, { allowed_origins: ["https://app.example.com"] });
    expect([patched.status, patched.body]).toEqual([200, { ...public_keys[0], allowed_origins: ["https://app.example.com"] }]);
    const listedKey = public_keys[0].key;
    const listed = await post(replayBody(listedKey, chunks(1)), { headers: { origin: "https://app.example.com" } });
    const serverSide = await post(replayBody(listedKey, chunks(1)));
    expect([listed.status, listed.body, serverSide.status, serverSide.body]).toEqual([200, replayOk(1), 200, replayOk(1)]);
    for (const origin of ["https://evil.example", "https://app.example.com.evil.example", "http://app.example.com"]) {
      const reply = await post(replayBody(listedKey, chunks(1)), { headers: { origin } });
      expect([reply.status, reply.body]).toEqual([403, { error: `origin ${origin} is not allowed for this key` }]);
    }
    const open = await post(replayBody(key, chunks(1)), { headers: { origin: "https://evil.example" } });
    expect([open.status, open.body]).toEqual([200, replayOk(1)]);
  });
});

describe("rate limit", () => {
  test("each chunk counts as one event against the project's rate, whatever its events: 3 chunks of 20,000 events pass a burst of 50,000", async () => {
    const { public_keys } = await createProject(owner, "Long recordings", "eu");
    const start = Date.now() - 60_000;
    const long = () => replayChunk({ events: Array.from({ length: 20_000 }, (_, index) => moveEvent(start + index)) });
    for (let request = 0; request < 3; request++) {
      const reply = await post(replayBody(public_keys[0].key, [long()]));
      expect([request, reply.status, reply.body]).toEqual([request, 200, replayOk(1)]);
    }
  });

  test("past the project's rate: 429 with Retry-After; other projects are not affected", async () => {
    const { project, public_keys } = await createProject(owner, "Busy recordings", "eu");
    // The bucket emptied as of one second from now, so what refills while the request travels (5 events/ms) cannot let it pass.
    service.nodes.get("eu")!.rates.take(project.id, 50_000, performance.now() + 1000);
    const limited = await post(replayBody(public_keys[0].key, chunks(1)));
    expect([limited.status, limited.body]).toEqual([429, { error: "ingest rate limit of the project exceeded" }]);
    expect(["1", "2"]).toContain(limited.headers.get("retry-after")!);
    const other = await post(replayBody(key, chunks(1)));
    expect([other.status, other.body]).toEqual([200, replayOk(1)]);
  });
});
