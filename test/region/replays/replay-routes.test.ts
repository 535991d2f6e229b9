// The region's replay API over real HTTP (docs/replay.md): recordings sent through POST /r,
// compacted, then listed with every filter and page, read with their blocks and timeline, and
// the project's replay policy; scopes, bad parameters and other environments' recordings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, createToken, signUp, v1, type SignedUpUser } from "../../helpers/accounts.ts";
import { bearer, call } from "../../helpers/client.ts";
import { nativeEvent, postIngest, sendAccepted } from "../../ingest/helpers.ts";
import { clickEvent, consoleError, inputEvent, moveEvent, pageStart, replayBody, replayOk } from "../../ingest/replay/helpers.ts";
import { sweepReplays } from "../../../storage/replay/replay-sweep.ts";
import { blockCacheControl } from "../../../server/region/replays/replay-routes.ts";

let service: TestService;
let owner: SignedUpUser;
let projectId: string;
let key: string;
let stagingKey: string;
let token: string;
let secret: string;

/** Whole seconds two hours ago: the sessions' clock. */
const t0 = Math.floor(Date.now() / 1000) * 1000 - 2 * 3_600_000;
const [long, short, staged] = [Bun.randomUUIDv7(), Bun.randomUUIDv7(), Bun.randomUUIDv7()];
const hostileUrl = `https://shop.example/search?q=<script>alert("x")</script>&p=100%_off`;

const chunk = (sessionId: string, seq: number, distinctId: string, events: unknown[]) => ({ session_id: sessionId, seq, distinct_id: distinctId, platform: "web", mode: "dom", events });

async function regionToken(scopes: string[], environment = "production"): Promise<string> {
  const issued = await v1(service, secret, "POST", `/v1/projects/${projectId}/region-token`, { scopes, environment });
  expect(issued.status).toBe(200);
  return issued.body.token;
}

const get = (path: string, as = token, headers: Record<string, string> = {}) => call(service.url, "GET", `/region/eu${path}`, { headers: { ...bearer(as), ...headers } });

beforeAll(async () => {
  service = await startTestService({ REPLAY_FLUSH_INTERVAL_MS: "0" });
  owner = await signUp(service, "Replay owner");
  const shop = await createProject(owner, "Shop", "eu");
  projectId = shop.project.id;
  [key, stagingKey] = [shop.public_keys[0].key, shop.public_keys[1].key];
  ({ secret } = await createToken(owner, ["replays:read", "replays:write", "query:read"]));
  token = await regionToken(["replays:read", "replays:write"]);

  // The long session: two pages over 60 s, typing, clicks; its second chunk arrives first.
  const longChunks = [
    chunk(long, 1, "buyer", [...pageStart(t0 + 30_000, "https://shop.example/Checkout"), clickEvent(t0 + 31_000), moveEvent(t0 + 60_000)]),
    chunk(long, 0, "buyer", [...pageStart(t0, "https://shop.example/"), inputEvent(t0 + 2_000, "*****"), inputEvent(t0 + 2_500, "******"), clickEvent(t0 + 3_000)]),
  ];
  const shortChunks = [chunk(short, 0, "browser-2", [...pageStart(t0 + 600_000, hostileUrl), consoleError(t0 + 601_000, "boom"), clickEvent(t0 + 605_000)])];
  for (const [apiKey, chunks] of [[key, [longChunks[0]]], [key, [longChunks[1], ...shortChunks]], [stagingKey, [chunk(staged, 0, "buyer", [...pageStart(t0, "https://staging.example/"), clickEvent(t0 + 20_000)])]]] as const) {
    const reply = await postIngest(service.url, replayBody(apiKey, [...chunks]), { path: "/r" });
    expect([reply.status, reply.body]).toEqual([200, replayOk(chunks.length)]);
  }
  // The analytics side of the long session: what the timeline shows and `event` filters on.
  await sendAccepted(service.url, key, [
    nativeEvent({ event: "$pageview", distinct_id: "buyer", session_id: long, timestamp: new Date(t0 + 1).toISOString(), properties: { $current_url: "https://shop.example/" } }),
    nativeEvent({ event: "purchase", distinct_id: "buyer", session_id: long, timestamp: new Date(t0 + 31_000).toISOString(), properties: { $current_url: "https://shop.example/Checkout" } }),
    nativeEvent({ event: "purchase", distinct_id: "browser-2", timestamp: new Date(t0 + 600_500).toISOString(), properties: {} }),
  ]);
  await service.nodes.get("eu")!.maintainReplays();
});
afterAll(() => service.close());

const personOf = (distinctId: string) => service.nodes.get("eu")!.store.directory.personOf(projectId, distinctId)!.id;

const longDto = () => ({
  id: long, distinct_id: "buyer", person_id: personOf("buyer"), environment: "production",
  platform: "web", mode: "dom", start_time: new Date(t0).toISOString(), end_time: new Date(t0 + 60_000).toISOString(), duration_seconds: 60,
  active_seconds: 4, first_url: "https://shop.example/", urls: ["https://shop.example/", "https://shop.example/Checkout"], page_count: 2,
  click_count: 2, keypress_count: 2, console_error_count: 0, chunk_count: 2, event_count: 9, size_bytes: expect.any(Number),
});
const shortDto = () => ({
  id: short, distinct_id: "browser-2", person_id: personOf("browser-2"), environment: "production",
  platform: "web", mode: "dom", start_time: new Date(t0 + 600_000).toISOString(), end_time: new Date(t0 + 605_000).toISOString(), duration_seconds: 5,
  active_seconds: 1, first_url: hostileUrl, urls: [hostileUrl], page_count: 1, click_count: 1, keypress_count: 0, console_error_count: 1,
  chunk_count: 1, event_count: 4, size_bytes: expect.any(Number),
});

const ids = (reply: { body: any }) => reply.body.results.map((replay: { id: string }) => replay.id);

describe("GET /replays", () => {
  test("lists the environment's recordings newest start first, whole", async () => {
    const reply = await get("/replays");
    expect([reply.status, reply.body]).toEqual([200, { results: [shortDto(), longDto()], next_cursor: null }]);
  });

  test("each filter narrows the list", async () => {
    const cases: [string, string[]][] = [
      ["distinct_id=buyer", [long]],
      [`person_id=${personOf("browser-2")}`, [short]],
      ["distinct_id=nobody", []],
      [`from=${new Date(t0 + 1).toISOString()}`, [short]],
      [`to=${new Date(t0).toISOString()}`, [long]],
      ["duration_min=60", [long]],
      ["duration_max=59.999", [short]],
      ["url=checkout", [long]],
      ["url=100%25_off", [short]],
      ["url=%25", [short]],
      ["url=%3Cscript%3E", [short]],
      ["event=purchase", [long]],
      ["event=$pageview", [long]],
      ["event=never", []],
      ["has_errors=true", [short]],
      ["has_errors=false", [short, long]],
      ["platform=web", [short, long]],
      ["platform=ios", []],
    ];
    for (const [query, expected] of cases) {
      const reply = await get(`/replays?${query}`);
      expect({ query, status: reply.status, ids: ids(reply) }).toEqual({ query, status: 200, ids: expected });
    }
  });

  test("pages with an opaque cursor", async () => {
    const first = await get("/replays?limit=1");
    expect([first.status, ids(first), typeof first.body.next_cursor]).toEqual([200, [short], "string"]);
    const second = await get(`/replays?limit=1&cursor=${first.body.next_cursor}`);
    expect([second.status, ids(second), second.body.next_cursor]).toEqual([200, [long], null]);
  });

  test("bad parameters answer 400 with the reason", async () => {
    const cases: [string, string][] = [
      ["limit=0", "limit must be an integer from 1 to 1000"],
      ["limit=1001", "limit must be an integer from 1 to 1000"],
      ["cursor=abc", "cursor is not one this listing gave"],
      ["from=yesterday", "from must be an RFC 3339 date-time"],
      [`from=${new Date(t0 + 1).toISOString()}&to=${new Date(t0).toISOString()}`, "from must not be after to"],
      ["duration_min=-1", "duration_min must be a number of seconds, 0 or more"],
      ["duration_max=ten", "duration_max must be a number of seconds, 0 or more"],
      ["url=", "url must be 1 to 200 characters"],
      ["has_errors=yes", "has_errors must be true or false"],
      ["platform=windows", "platform must be one of web, ios, android, react-native, tauri"],
    ];
    for (const [query, message] of cases) {
      const reply = await get(`/replays?${query}`);
      expect({ query, status: reply.status, body: reply.body }).toEqual({ query, status: 400, body: { error: { code: "bad_request", message } } });
    }
  });

  test("a token without replays:read is refused; another environment's token sees its own recordings only", async () => {
    const queryOnly = await regionToken(["query:read"]);
    expect(await get("/replays", queryOnly)).toMatchObject({ status: 403 });
    const staging = await regionToken(["replays:read"], "staging");
    const reply = await get("/replays", staging);
    expect([reply.status, ids(reply)]).toEqual([200, [staged]]);
    expect((await get(`/replays/${long}`, staging)).status).toBe(404);
  });
});

describe("GET /replays/{id} and its blocks", () => {
  test("the recording, its blocks oldest first, and the session's analytics events", async () => {
    const reply = await get(`/replays/${long.toUpperCase()}`);
    expect(reply.status).toBe(200);
    const blocks = reply.body.blocks;
    expect(reply.body).toEqual({
      ...longDto(),
      blocks: [{ name: expect.stringMatching(/^\d+-[0-9a-f]{16}$/), start_time: new Date(t0).toISOString(), end_time: new Date(t0 + 60_000).toISOString(), event_count: 9, size_bytes: expect.any(Number) }],
      events: [
        { uuid: expect.any(String), event: "$pageview", timestamp: new Date(t0 + 1).toISOString(), current_url: "https://shop.example/" },
        { uuid: expect.any(String), event: "purchase", timestamp: new Date(t0 + 31_000).toISOString(), current_url: "https://shop.example/Checkout" },
      ],
    });
    expect(blocks[0].size_bytes).toBe(reply.body.size_bytes);
  });

  test("unknown, malformed and other projects' ids are 404", async () => {
    for (const id of [Bun.randomUUIDv7(), "not-a-uuid", "%2E%2E%2Fx"]) {
      const reply = await get(`/replays/${id}`);
      expect([reply.status, reply.body]).toEqual([404, { error: { code: "not_found", message: "replay not found" } }]);
    }
  });

  test("a block is served as JSON events sorted by time, cached for good by its name, 304 when unchanged", async () => {
    const { body } = await get(`/replays/${long}`);
    const name = body.blocks[0].name;
    const reply = await get(`/replays/${long}/blocks/${name}`, token, { "accept-encoding": "identity" });
    expect([reply.status, reply.headers.get("etag"), reply.headers.get("cache-control"), reply.headers.get("content-type"), reply.headers.get("content-encoding")])
      .toEqual([200, `"${name}"`, blockCacheControl, "application/json", null]);
    const timestamps = reply.body.events.map((event: { timestamp: number }) => event.timestamp);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    expect(reply.body.events.length).toBe(9);
    expect(reply.body.events[0]).toEqual({ type: 4, timestamp: t0, data: { href: "https://shop.example/", width: 1280, height: 720 } });

    const zstd = await fetch(`${service.url}/region/eu/replays/${long}/blocks/${name}`, { headers: { ...bearer(token), "accept-encoding": "zstd" }, decompress: false });
    const { dataId } = service.nodes.get("eu")!.store.replays.session(projectId, "production", long)!;
    const stored = await Bun.file(join(service.dataDir, "eu", "replays", "blocks", String(dataId), "production", long, `${name}.json.zst`)).bytes();
    expect([zstd.status, zstd.headers.get("content-encoding"), new Uint8Array(await zstd.arrayBuffer())]).toEqual([200, "zstd", stored]);

    const again = await get(`/replays/${long}/blocks/${name}`, token, { "if-none-match": `"${name}"` });
    expect([again.status, again.body, again.headers.get("etag")]).toEqual([304, undefined, `"${name}"`]);
  });

  test("a block name the recording does not have is 404", async () => {
    for (const name of ["1-0000000000000000", "..%2F..%2Fregion.sqlite", "x"]) {
      const reply = await get(`/replays/${long}/blocks/${name}`);
      expect([reply.status, reply.body]).toEqual([404, { error: { code: "not_found", message: "block not found" } }]);
    }
  });
});

describe("replay policy", () => {
  test("GET answers the default until a PUT sets it; invalid bodies are refused", async () => {
    expect(await get("/replays/policy")).toMatchObject({ status: 200, body: { sample_rate: 1, min_duration_ms: 0, flag_key: null, updated_at: null } });
    const invalid: [unknown, string][] = [
      [{ sample_rate: 1.1, min_duration_ms: 0, flag_key: null }, "body /sample_rate: Expected number to be less or equal to 1"],
      [{ sample_rate: 0.5, min_duration_ms: 3_600_001, flag_key: null }, "body /min_duration_ms: Expected integer to be less or equal to 3600000"],
      [{ sample_rate: 0.5, min_duration_ms: 0, flag_key: "" }, "body /flag_key: Expected string length greater or equal to 1"],
      [{ sample_rate: 0.5, min_duration_ms: 0 }, "body /flag_key: Expected required property"],
    ];
    for (const [body, message] of invalid) {
      const reply = await call(service.url, "PUT", "/region/eu/replays/policy", { headers: bearer(token), body });
      expect([reply.status, reply.body]).toEqual([400, { error: { code: "bad_request", message } }]);
    }
    const readOnly = await regionToken(["replays:read"]);
    expect((await call(service.url, "PUT", "/region/eu/replays/policy", { headers: bearer(readOnly), body: { sample_rate: 1, min_duration_ms: 0, flag_key: null } })).status).toBe(403);
  });

  test("a minimum duration hides shorter recordings, and the sweep deletes them once the session is over", async () => {
    const put = await call(service.url, "PUT", "/region/eu/replays/policy", { headers: bearer(token), body: { sample_rate: 1, min_duration_ms: 10_000, flag_key: null } });
    expect([put.status, put.body]).toEqual([200, { sample_rate: 1, min_duration_ms: 10_000, flag_key: null, updated_at: expect.any(String) }]);
    expect(ids(await get("/replays"))).toEqual([long]);

    const node = service.nodes.get("eu")!;
    const session = node.store.replays.session(projectId, "production", short)!;
    const blockDir = join(service.dataDir, "eu", "replays", "blocks", String(session.dataId), "production", short);
    expect(existsSync(blockDir)).toBe(true);
    // Over once no chunk has arrived for 30 minutes by the server's clock (the events' own times are two hours old).
    expect(await sweepReplays(node.replays, () => 365, session.receivedMs + 30 * 60_000)).toBe(0);
    expect(await sweepReplays(node.replays, () => 365, session.receivedMs + 30 * 60_000 + 1)).toBe(1);
    expect([node.store.replays.session(projectId, "production", short), existsSync(blockDir)]).toEqual([null, false]);

    await call(service.url, "PUT", "/region/eu/replays/policy", { headers: bearer(token), body: { sample_rate: 1, min_duration_ms: 0, flag_key: null } });
    expect(ids(await get("/replays"))).toEqual([long]);
  });

  test("recordings past the project's retention are deleted", async () => {
    const node = service.nodes.get("eu")!;
    const day = 86_400_000;
    expect(await sweepReplays(node.replays, () => 30, t0 + 20_000 + 30 * day)).toBe(0);
    expect(await sweepReplays(node.replays, () => 30, t0 + 60_000 + 30 * day + 1)).toBe(2);
    expect((await get("/replays")).body).toEqual({ results: [], next_cursor: null });
  });
});
