// GET /region/{code}/events/live over real HTTP: events go in through /ingest/eu, a real SSE
// client (test/helpers/sse.ts over fetch) reads the stream; without Accept: text/event-stream
// the route answers JSON. Backlog, live order, filters, resuming, a slow reader's losses, the
// stream cap, access and hostile data.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern, uuidPattern } from "../helpers/client.ts";
import { openEventStream, sseWaitMs, SseReader, type SseEvent } from "../helpers/sse.ts";
import { nativeBody, nativeEvent, ok, postIngest, sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import type { LiveHub } from "../../server/region/live/live-hub.ts";
import { liveStreamsPerProjectMax, reconnectDelayMs } from "../../server/region/live/live-hub.ts";
import { recentEventsMax } from "../../server/region/live/recent-events.ts";
import { liveFilterValuesMax, livePropertyFiltersMax, livePropertyValueLengthMax } from "../../server/region/live/live-query.ts";
import { streamQueueBytesMax } from "../../server/region/live/live-stream.ts";
import { distinctIdLengthMax, eventNameLengthMax, propertyKeyLengthMax } from "../../server/ingest/limits.ts";

let service: TestService;
let owner: SignedUpUser;
let patSecret: string;
let hub: LiveHub;

interface TestProject {
  id: string;
  keys: Record<string, string>;
  /** Region tokens of its production environment: query:read, and query:read with persons.pii. */
  query: string;
  pii: string;
}

async function newProject(name: string): Promise<TestProject> {
  const created = await createProject(owner, name, "eu");
  const id = created.project.id;
  return {
    id,
    keys: Object.fromEntries(created.public_keys.map((key: { environment: string; key: string }) => [key.environment, key.key])),
    query: await regionTokenFor(service, patSecret, id, ["query:read"]),
    pii: await regionTokenFor(service, patSecret, id, ["query:read", "persons.pii"]),
  };
}

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Live owner");
  patSecret = (await createToken(owner, ["query:read", "persons:read", "persons.pii"])).secret;
  hub = service.nodes.get("eu")!.live;
});
afterAll(() => service.close());

const livePath = (query = "") => `/region/eu/events/live${query}`;
const liveJson = (token: string | null, query = "", headers: Record<string, string> = {}) =>
  call(service.url, "GET", livePath(query), { headers: { ...(token === null ? {} : bearer(token)), ...headers } });
const openLive = (token: string, query = "", headers: Record<string, string> = {}) =>
  openEventStream(service.url + livePath(query), { ...bearer(token), ...headers });

let clock = Date.now() - 3_600_000;
/** An event a second after the previous one, with the properties given. */
const at = (overrides: NativeEvent = {}) => nativeEvent({ timestamp: new Date((clock += 1000)).toISOString(), ...overrides });

const id = (seq: number) => `${hub.epoch}-${seq}`;

/** What the route shows of a native event sent from the test (no location: the test's address is loopback). */
function shown(sent: NativeEvent, personId: unknown = expect.stringMatching(uuidPattern)) {
  return {
    uuid: sent.uuid,
    event: sent.event,
    timestamp: new Date(sent.timestamp).toISOString(),
    received_at: expect.stringMatching(isoPattern),
    distinct_id: sent.distinct_id,
    person_id: personId,
    anon_id: sent.anon_id ?? null,
    session_id: sent.session_id ?? null,
    window_id: sent.window_id ?? null,
    lib: sent.lib,
    consent: sent.consent ?? "granted",
    groups: sent.groups ?? null,
    $set: sent.$set ?? null,
    $set_once: sent.$set_once ?? null,
    properties: sent.properties,
    location: { country: null, region: null, city: null, timezone: null },
    is_suspect: false,
    sample_rate: 1,
  };
}

/** An SSE event of the stream: its type, id and parsed data. */
const parsed = (event: SseEvent) => ({ type: event.type, id: event.lastEventId, data: JSON.parse(event.data) });

async function nextEvents(stream: SseReader, count: number) {
  const events = [];
  for (let i = 0; i < count; i++) events.push(parsed(await stream.next()));
  return events;
}

describe("the event stream", () => {
  test("starts with the recent events newest first, then sends events as they are accepted, in acceptance order, whole", async () => {
    const project = await newProject("Stream");
    const first = [at({ distinct_id: "ann" }), at({ distinct_id: "bob", event: "clicked", properties: { button: "buy", price: 100, currency: "EUR" } }), at({ distinct_id: "ann", event: "$pageview" })];
    await sendAccepted(service.url, project.keys.production!, first);
    const { response, stream } = await openLive(project.pii);
    expect([response.headers.get("cache-control"), response.headers.get("x-accel-buffering")]).toEqual(["no-cache", "no"]);

    expect(await nextEvents(stream, 3)).toEqual([
      { type: "backlog", id: id(3), data: shown(first[2]!) },
      { type: "backlog", id: id(2), data: shown(first[1]!) },
      { type: "backlog", id: id(1), data: shown(first[0]!) },
    ]);
    expect(stream.retry).toBe(reconnectDelayMs);

    const later = [at({ distinct_id: "bob" }), at({ distinct_id: "cat", anon_id: "device-1", session_id: Bun.randomUUIDv7(), $set: { plan: "pro" } })];
    const last = at({ distinct_id: "ann", event: "signed_out" });
    await sendAccepted(service.url, project.keys.production!, later);
    await sendAccepted(service.url, project.keys.production!, [last]);
    expect(await nextEvents(stream, 3)).toEqual([
      { type: "event", id: id(4), data: shown(later[0]!) },
      { type: "event", id: id(5), data: shown(later[1]!) },
      { type: "event", id: id(6), data: shown(last) },
    ]);
    await stream.close();
  });
});

/** `promise`, or a failure naming `what` when it has not settled within sseWaitMs. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${sseWaitMs} ms`)), sseWaitMs)));
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

async function stagingToken(projectId: string, scopes: string[]): Promise<string> {
  const reply = await v1(service, patSecret, "POST", `/v1/projects/${projectId}/region-token`, { scopes, environment: "staging" });
  expect(reply.status).toBe(200);
  return reply.body.token;
}

describe("the event stream, continued", () => {
  test("filters: only events that pass reach the stream, the backlog included", async () => {
    const project = await newProject("Filtered");
    const backlog = [
      at({ event: "clicked", properties: { plan: "pro" } }),
      at({ event: "clicked", properties: { plan: "free" } }),
      at({ event: "viewed", properties: { plan: "pro" } }),
    ];
    await sendAccepted(service.url, project.keys.production!, backlog);
    const { stream } = await openLive(project.pii, `?event=clicked&event=bought&properties=${encodeURIComponent('{"plan":"pro"}')}`);
    expect(await nextEvents(stream, 1)).toEqual([{ type: "backlog", id: id(1), data: shown(backlog[0]!) }]);

    const live = [
      at({ event: "bought", properties: { plan: "pro", seats: 2 } }),
      at({ event: "bought", properties: { plan: "Pro" } }),
      at({ event: "viewed", properties: { plan: "pro" } }),
      at({ event: "clicked", properties: {} }),
      at({ event: "clicked", properties: { plan: "pro" } }),
    ];
    await sendAccepted(service.url, project.keys.production!, live);
    expect(await nextEvents(stream, 2)).toEqual([
      { type: "event", id: id(4), data: shown(live[0]!) },
      { type: "event", id: id(8), data: shown(live[4]!) },
    ]);
    await stream.close();

    const { stream: byPerson } = await openLive(project.pii, `?distinct_id=${encodeURIComponent(live[2]!.distinct_id)}&distinct_id=nobody&limit=1`);
    expect(await nextEvents(byPerson, 1)).toEqual([{ type: "backlog", id: id(6), data: shown(live[2]!) }]);
    const mine = at({ distinct_id: live[2]!.distinct_id, event: "left" });
    await sendAccepted(service.url, project.keys.production!, [at(), mine]);
    expect(await nextEvents(byPerson, 1)).toEqual([{ type: "event", id: id(10), data: shown(mine) }]);
    await byPerson.close();
  });

  test("each stream sees its token's project environment only", async () => {
    const project = await newProject("Environments");
    const other = await newProject("Neighbour");
    const { stream } = await openLive(project.pii);
    await sendAccepted(service.url, project.keys.staging!, [at()]);
    await sendAccepted(service.url, other.keys.production!, [at()]);
    const own = at();
    await sendAccepted(service.url, project.keys.production!, [own]);
    expect(await nextEvents(stream, 1)).toEqual([{ type: "event", id: id(1), data: shown(own) }]);
    await stream.close();
    const staging = await liveJson(await stagingToken(project.id, ["query:read"]));
    expect([staging.status, staging.body.events.length, staging.body.last_event_id]).toEqual([200, 1, id(1)]);
  });

  test("rejected, duplicate, crawler and sampled-out events are not shown", async () => {
    const project = await newProject("Refusals");
    const { stream } = await openLive(project.pii, "?limit=0");
    const kept = at();
    const invalid = at({ distinct_id: "someone@example.com" });
    const reserved = at({ event: "$made_up" });
    const reply = await postIngest(service.url, nativeBody(project.keys.production!, [kept, invalid, reserved, { ...kept }]));
    expect([reply.status, reply.body.accepted, reply.body.rejected.map((rejection: { reason: string }) => rejection.reason)]).toEqual([200, 1, ["invalid", "reserved_name"]]);
    const again = await postIngest(service.url, nativeBody(project.keys.production!, [kept]));
    expect(again.body.rejected.map((rejection: { reason: string }) => rejection.reason)).toEqual(["duplicate"]);
    const crawler = await postIngest(service.url, nativeBody(project.keys.production!, [at({ properties: { $user_agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" } })]));
    expect([crawler.status, crawler.body]).toEqual([200, ok(0)]);
    // Sampling keeps an event when its uuid hashes below the ratio (event-effects.ts, keptBySampling).
    service.nodes.get("eu")!.setKeepRatio(project.id, 0.5);
    const sampled = Array.from({ length: 40 }, () => at());
    const keptBySampling = sampled.filter((event) => Bun.hash.crc32(event.uuid) / 0x1_0000_0000 < 0.5);
    expect(keptBySampling.length > 0 && keptBySampling.length < sampled.length).toBe(true);
    await postIngest(service.url, nativeBody(project.keys.production!, sampled));
    service.nodes.get("eu")!.setKeepRatio(project.id, 1);
    const marker = at({ event: "marker" });
    await sendAccepted(service.url, project.keys.production!, [marker]);

    const expected = [[kept.uuid, 1], ...keptBySampling.map((event) => [event.uuid, 0.5]), [marker.uuid, 1]];
    const received = await nextEvents(stream, expected.length);
    expect(received.map((event) => [event.data.uuid, event.data.sample_rate])).toEqual(expected);
    expect(received.every((event) => event.type === "event")).toBe(true);
    await stream.close();
  });

  test("a client that reconnects with Last-Event-ID gets what it missed, in acceptance order, and no backlog", async () => {
    const project = await newProject("Resumed");
    const before = [at(), at(), at()];
    await sendAccepted(service.url, project.keys.production!, before);
    const { stream } = await openLive(project.pii);
    const backlog = await nextEvents(stream, 3);
    expect(backlog.map((event) => event.id)).toEqual([id(3), id(2), id(1)]);
    await stream.close();

    const missed = [at(), at()];
    await sendAccepted(service.url, project.keys.production!, missed);
    const { stream: resumed } = await openLive(project.pii, "", { "last-event-id": id(3) });
    expect(await nextEvents(resumed, 2)).toEqual([
      { type: "event", id: id(4), data: shown(missed[0]!) },
      { type: "event", id: id(5), data: shown(missed[1]!) },
    ]);
    const next = at();
    await sendAccepted(service.url, project.keys.production!, [next]);
    expect(await nextEvents(resumed, 1)).toEqual([{ type: "event", id: id(6), data: shown(next) }]);
    await resumed.close();

    // An id from before a restart (another epoch) starts a new stream: the backlog.
    const otherEpoch = hub.epoch === "00000000" ? "11111111" : "00000000";
    const { stream: fresh } = await openLive(project.pii, "?limit=2", { "last-event-id": `${otherEpoch}-3` });
    expect(await nextEvents(fresh, 2)).toEqual([
      { type: "backlog", id: id(6), data: shown(next) },
      { type: "backlog", id: id(5), data: shown(missed[1]!) },
    ]);
    await fresh.close();

    for (const malformed of ["3", "abc-3", `${hub.epoch}-`, `${hub.epoch}-1-2`, `${hub.epoch}-1234567890123456`]) {
      const reply = await liveJson(project.pii, "", { accept: "text/event-stream", "last-event-id": malformed });
      expect([malformed, reply.status, reply.body]).toEqual([malformed, 400, { error: { code: "bad_request", message: "Last-Event-ID must be the id of an event this stream sent" } }]);
    }
  });

  test("reconnecting after more events than are kept: a dropped notice counts those no longer kept, then the kept ones follow", async () => {
    const project = await newProject("Gap");
    const events = Array.from({ length: 150 }, () => at());
    await sendAccepted(service.url, project.keys.production!, events);
    const { stream } = await openLive(project.pii, "", { "last-event-id": id(10) });
    expect(parsed(await stream.next())).toEqual({ type: "dropped", id: "", data: { dropped: 150 - recentEventsMax - 10, reason: "not_kept" } });
    const kept = await nextEvents(stream, recentEventsMax);
    expect(kept.map((event) => [event.type, event.id, event.data.uuid])).toEqual(events.slice(-recentEventsMax).map((event, index) => ["event", id(51 + index), event.uuid]));
    await stream.close();
  });

  test("a slow reader loses events past its queue and is told how many, then receives events again", async () => {
    const project = await newProject("Slow");
    const { stream } = await openLive(project.query, "?limit=0");
    // The reader reads nothing while 18 MB of events are accepted. Each request's 6 MB pass the
    // stream's queue at once, so events are lost whatever the socket's buffers take in.
    const bulk = Array.from({ length: 1500 }, () => at({ event: "bulk", properties: { padding: "x".repeat(12_000) } }));
    expect(500 * 12_000).toBeGreaterThan(streamQueueBytesMax);
    for (let start = 0; start < bulk.length; start += 500) await sendAccepted(service.url, project.keys.production!, bulk.slice(start, start + 500));

    // Reading again: events in acceptance order, whole, and before each gap a notice counting
    // exactly the events missing there, until every event is delivered or counted.
    const position = new Map(bulk.map((event, index) => [event.uuid, index]));
    let next = 0;
    let told = 0;
    let notices = 0;
    let delivered = 0;
    while (next + told < bulk.length) {
      const event = await stream.next();
      if (event.type === "dropped") {
        expect([told, event.lastEventId, JSON.parse(event.data)]).toEqual([0, id(next), { dropped: expect.any(Number), reason: "slow_reader" }]);
        told = JSON.parse(event.data).dropped;
        notices++;
        continue;
      }
      const data = JSON.parse(event.data);
      const index = position.get(data.uuid)!;
      expect([event.type, index - next, event.lastEventId, data]).toEqual(["event", told, id(index + 1), shown(bulk[index]!)]);
      told = 0;
      next = index + 1;
      delivered++;
    }
    expect([next + told, notices > 0, delivered > 0]).toEqual([bulk.length, true, true]);
    // Events flow again once the reader has caught up.
    const after = at({ event: "after" });
    await sendAccepted(service.url, project.keys.production!, [after]);
    expect(await nextEvents(stream, 1)).toEqual([{ type: "event", id: id(bulk.length + 1), data: shown(after) }]);
    await stream.close();
  });

  test(`a project has at most ${liveStreamsPerProjectMax} streams open; one its client closes frees its slot`, async () => {
    const project = await newProject("Capped");
    const streams: SseReader[] = [];
    for (let i = 0; i < liveStreamsPerProjectMax - 1; i++) streams.push((await openLive(project.query)).stream);
    // The last slot, taken from another environment of the project: the cap is the project's.
    const staging = await stagingToken(project.id, ["query:read"]);
    streams.push((await openLive(staging)).stream);
    const tooMany = { error: { code: "too_many_concurrent_queries", message: `a project has at most ${liveStreamsPerProjectMax} live event streams open at once; close one to open another` } };
    for (const token of [project.query, staging]) {
      const refused = await liveJson(token, "", { accept: "text/event-stream" });
      expect([refused.status, refused.body]).toEqual([429, tooMany]);
    }
    // JSON answers hold no stream, and other projects have slots of their own.
    expect((await liveJson(project.query)).status).toBe(200);
    const other = await newProject("Uncapped");
    await (await openLive(other.query)).stream.close();

    const oneClosed = Promise.race(hub.streams(project.id).map((stream) => stream.closed));
    await streams.shift()!.close();
    await within(oneClosed, "a closed stream's slot freed");
    expect(hub.streams(project.id)).toHaveLength(liveStreamsPerProjectMax - 1);
    streams.push((await openLive(project.query)).stream);
    expect((await liveJson(project.query, "", { accept: "text/event-stream" })).status).toBe(429);
    const allClosed = Promise.all(hub.streams(project.id).map((stream) => stream.closed));
    for (const stream of streams) await stream.close();
    await within(allClosed, "every stream's slot freed");
    expect(hub.streams(project.id)).toEqual([]);
  });

  test("a stream ends with event: end when a revocation takes its token's access", async () => {
    const project = await newProject("Revoked");
    const { stream } = await openLive(project.query, "?limit=0");
    const deleted = await owner.client.delete(`/app/projects/${project.id}`);
    expect(deleted.status).toBe(204);
    // The revocation is noticed at the next heartbeat (every 5 s).
    expect((await stream.end()).map(parsed)).toEqual([{ type: "end", id: id(0), data: { reason: "token_revoked" } }]);
  });
});

describe("JSON answers (without Accept: text/event-stream)", () => {
  let project: TestProject;
  let events: NativeEvent[];

  beforeAll(async () => {
    project = await newProject("Json");
    events = [
      at({ distinct_id: "ann", event: "signed_up", properties: { plan: "pro", seats: 1 } }),
      at({ distinct_id: "bob", event: "clicked", properties: { plan: "free", seats: "1" } }),
      at({ distinct_id: "bob", event: "signed_up", properties: { plan: "pro", seats: 1, trial: null } }),
    ];
    await sendAccepted(service.url, project.keys.production!, events);
  });

  test("the last events, newest first, with the id to resume a stream from", async () => {
    for (const headers of [{}, { accept: "application/json" }, { accept: "*/*" }] as Record<string, string>[]) {
      const reply = await liveJson(project.pii, "", headers);
      expect([reply.status, reply.headers.get("content-type"), reply.body]).toEqual([
        200, "application/json", { events: [shown(events[2]!), shown(events[1]!), shown(events[0]!)], last_event_id: id(3) },
      ]);
    }
    const quiet = await newProject("Quiet");
    const empty = await liveJson(quiet.query);
    expect([empty.status, empty.body]).toEqual([200, { events: [], last_event_id: id(0) }]);
  });

  test("limit and filters", async () => {
    const cases: [string, NativeEvent[]][] = [
      ["?limit=2", [events[2]!, events[1]!]],
      ["?limit=0", []],
      [`?limit=${recentEventsMax}`, [events[2]!, events[1]!, events[0]!]],
      ["?event=signed_up", [events[2]!, events[0]!]],
      ["?event=clicked&event=signed_up&limit=2", [events[2]!, events[1]!]],
      ["?distinct_id=bob", [events[2]!, events[1]!]],
      [`?properties=${encodeURIComponent('{"seats":1}')}`, [events[2]!, events[0]!]],
      [`?properties=${encodeURIComponent('{"seats":"1"}')}`, [events[1]!]],
      [`?properties=${encodeURIComponent('{"trial":null}')}`, [events[2]!]],
      [`?properties=${encodeURIComponent('{"plan":"pro","seats":1}')}&distinct_id=bob`, [events[2]!]],
      [`?properties=${encodeURIComponent('{"missing":"x"}')}`, []],
      ["?event=nothing", []],
    ];
    for (const [query, expected] of cases) {
      const reply = await liveJson(project.pii, query);
      expect([query, reply.status, reply.body]).toEqual([query, 200, { events: expected.map((event) => shown(event)), last_event_id: id(3) }]);
    }
  });

  test(`each project environment keeps its last ${recentEventsMax} events`, async () => {
    const full = await newProject("Full");
    const sent = Array.from({ length: recentEventsMax }, () => at());
    await sendAccepted(service.url, full.keys.production!, sent);
    const all = await liveJson(full.query);
    expect(all.body.events.map((event: { uuid: string }) => event.uuid)).toEqual([...sent].reverse().map((event) => event.uuid));
    const next = at();
    await sendAccepted(service.url, full.keys.production!, [next]);
    const after = await liveJson(full.query);
    expect([after.body.events.length, after.body.events[0].uuid, after.body.events.at(-1).uuid, after.body.last_event_id]).toEqual([
      recentEventsMax, next.uuid, sent[1]!.uuid, id(recentEventsMax + 1),
    ]);
  });

  test("the person is the person now, after merges", async () => {
    const merged = await newProject("Merged");
    const browsing = at({ distinct_id: "anon-1" });
    await sendAccepted(service.url, merged.keys.production!, [browsing]);
    await sendAccepted(service.url, merged.keys.production!, [at({ distinct_id: "user-1", event: "$identify", properties: { $anon_distinct_id: "anon-1" } })]);
    const persons = await regionTokenFor(service, patSecret, merged.id, ["persons:read"]);
    const person = await call(service.url, "GET", "/region/eu/persons?search=anon-1", { headers: bearer(persons) });
    const reply = await liveJson(merged.pii);
    expect(reply.body.events.map((event: { person_id: string }) => event.person_id)).toEqual([person.body.results[0].id, person.body.results[0].id]);
  });
});

describe("personal data", () => {
  test("is masked unless the token holds persons.pii, and filtering by it needs persons.pii", async () => {
    const project = await newProject("Personal");
    const event = at({ properties: { email: "ann@example.com", plan: "pro", contact: { phone: "+44 20 7946 0958", note: "hi" }, seen_from: "81.2.69.160" }, $set: { name: "Ann", plan: "pro" } });
    await sendAccepted(service.url, project.keys.production!, [event]);
    const masked = { ...event, properties: { email: "[masked]", plan: "pro", contact: { phone: "[masked]", note: "hi" }, seen_from: "[masked]" }, $set: { name: "[masked]", plan: "pro" } };
    const plain = await liveJson(project.query);
    expect(plain.body.events).toEqual([shown(masked)]);
    const { stream } = await openLive(project.query);
    expect(await nextEvents(stream, 1)).toEqual([{ type: "backlog", id: id(1), data: shown(masked) }]);
    await stream.close();
    expect((await liveJson(project.pii)).body.events).toEqual([shown(event)]);

    const forbidden = { error: { code: "forbidden", message: "filtering by personal-data properties needs persons.pii" } };
    for (const properties of ['{"email":"ann@example.com"}', '{"plan":"pro","where":"81.2.69.160"}']) {
      const query = `?properties=${encodeURIComponent(properties)}`;
      const refused = await liveJson(project.query, query);
      expect([properties, refused.status, refused.body]).toEqual([properties, 403, forbidden]);
      expect((await liveJson(project.pii, query)).status).toBe(200);
    }
  });
});

describe("hostile data", () => {
  test("event names, distinct ids, keys and values arrive intact as JSON, on the stream and in JSON answers", async () => {
    const project = await newProject("Hostile");
    const { stream } = await openLive(project.pii, "?limit=0");
    const properties = JSON.parse(JSON.stringify({
      text: "line\n\nevent: end\ndata: {\"reason\":\"forged\"}\r\n\r\nid: 9\r",
      separators: "\u2028\u2029\u0000\u001b[31m",
      markup: "</script><script>alert(1)</script><img src=x onerror=alert(1)>",
      sql: "'; DROP TABLE events; --",
      "quote\"key'": "\\\"",
      constructor: "constructor",
      toString: 1,
    }).replace("{", '{"__proto__":{"polluted":true},'));
    const hostile = at({
      event: "evil\n\nevent: end\ndata: x\r\n<b>bold</b>",
      distinct_id: "id\r\nid: 1\n\n:comment",
      properties,
    });
    await sendAccepted(service.url, project.keys.production!, [hostile]);
    const marker = at({ event: "marker" });
    await sendAccepted(service.url, project.keys.production!, [marker]);
    const received = await nextEvents(stream, 2);
    expect(received).toEqual([{ type: "event", id: id(1), data: shown(hostile) }, { type: "event", id: id(2), data: shown(marker) }]);
    expect(Object.hasOwn(received[0]!.data.properties, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await stream.close();

    const reply = await liveJson(project.pii, `?event=${encodeURIComponent(hostile.event)}&properties=${encodeURIComponent(JSON.stringify({ text: properties.text }))}`);
    expect([reply.status, reply.body]).toEqual([200, { events: [shown(hostile)], last_event_id: id(2) }]);
  });
});

describe("access and parameters", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await newProject("Access");
  });

  test("needs a region token with query:read (401 without one, 403 without the scope), as a stream or JSON", async () => {
    const personsOnly = await regionTokenFor(service, patSecret, project.id, ["persons:read"]);
    for (const headers of [{}, { accept: "text/event-stream" }] as Record<string, string>[]) {
      const missing = await liveJson(null, "", headers);
      expect([missing.status, missing.body]).toEqual([401, { error: { code: "unauthorized", message: "region token required (Authorization: Bearer <token>)" } }]);
      const invalid = await liveJson("not-a-token", "", headers);
      expect([invalid.status, invalid.body]).toEqual([401, { error: { code: "unauthorized", message: "invalid region token" } }]);
      const forbidden = await liveJson(personsOnly, "", headers);
      expect([forbidden.status, forbidden.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope query:read" } }]);
    }
  });

  test("bad parameters answer 400 bad_request; each limit's last allowed value passes", async () => {
    const json = (value: unknown) => `properties=${encodeURIComponent(JSON.stringify(value))}`;
    const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, index]));
    const repeated = (name: string, count: number) => Array.from({ length: count }, (_, index) => `${name}=v${index}`).join("&");
    const propertiesMessage = `properties must be a JSON object of 1 to ${livePropertyFiltersMax} keys, each mapped to a string, number, boolean or null`;
    const refused: [string, string][] = [
      ["since=yesterday", 'unknown query parameter "since"; known: event, distinct_id, properties, limit'],
      ["events=clicked", 'unknown query parameter "events"; known: event, distinct_id, properties, limit'],
      ["event=", `each event must be 1 to ${eventNameLengthMax} characters`],
      [`event=${"e".repeat(eventNameLengthMax + 1)}`, `each event must be 1 to ${eventNameLengthMax} characters`],
      [repeated("event", liveFilterValuesMax + 1), `event may be given at most ${liveFilterValuesMax} times`],
      [`distinct_id=${"d".repeat(distinctIdLengthMax + 1)}`, `each distinct_id must be 1 to ${distinctIdLengthMax} characters`],
      [repeated("distinct_id", liveFilterValuesMax + 1), `distinct_id may be given at most ${liveFilterValuesMax} times`],
      ["properties=plan:pro", propertiesMessage],
      [json(["plan", "pro"]), propertiesMessage],
      [json("plan"), propertiesMessage],
      [json({}), propertiesMessage],
      [json(keys(livePropertyFiltersMax + 1)), propertiesMessage],
      [json({ plan: { name: "pro" } }), propertiesMessage],
      [json({ plan: ["pro"] }), propertiesMessage],
      [`${json({ plan: "pro" })}&${json({ seats: 1 })}`, "properties may be given once (one JSON object holds every key)"],
      [json({ "": 1 }), `each key of properties must be 1 to ${propertyKeyLengthMax} characters`],
      [json({ ["k".repeat(propertyKeyLengthMax + 1)]: 1 }), `each key of properties must be 1 to ${propertyKeyLengthMax} characters`],
      [json({ plan: "p".repeat(livePropertyValueLengthMax + 1) }), `each string value of properties must be at most ${livePropertyValueLengthMax} characters`],
      ["limit=-1", `limit must be an integer from 0 to ${recentEventsMax}`],
      [`limit=${recentEventsMax + 1}`, `limit must be an integer from 0 to ${recentEventsMax}`],
      ["limit=1.5", `limit must be an integer from 0 to ${recentEventsMax}`],
      ["limit=ten", `limit must be an integer from 0 to ${recentEventsMax}`],
      ["limit=", `limit must be an integer from 0 to ${recentEventsMax}`],
      ["limit=1&limit=2", `limit must be an integer from 0 to ${recentEventsMax}`],
    ];
    for (const [query, message] of refused) {
      for (const headers of [{}, { accept: "text/event-stream" }] as Record<string, string>[]) {
        const reply = await liveJson(project.pii, `?${query}`, headers);
        expect([query.slice(0, 80), reply.status, reply.body]).toEqual([query.slice(0, 80), 400, { error: { code: "bad_request", message } }]);
      }
    }
    // Characters are Unicode code points, as ingest counts them: 200 emoji are a 200-character id.
    const allowed = [
      `event=${"e".repeat(eventNameLengthMax)}`,
      repeated("event", liveFilterValuesMax),
      `distinct_id=${encodeURIComponent("😀".repeat(distinctIdLengthMax))}`,
      repeated("distinct_id", liveFilterValuesMax),
      json(keys(livePropertyFiltersMax)),
      json({ ["k".repeat(propertyKeyLengthMax)]: true, plan: "p".repeat(livePropertyValueLengthMax), none: null }),
      "limit=0",
      `limit=${recentEventsMax}`,
    ];
    for (const query of allowed) {
      const reply = await liveJson(project.pii, `?${query}`);
      expect([query.slice(0, 80), reply.status, reply.body]).toEqual([query.slice(0, 80), 200, { events: [], last_event_id: id(0) }]);
    }
  });
});

describe("stopping the service", () => {
  test("ends open streams with event: end, and does not wait for them", async () => {
    const own = await startTestService();
    let stopped = false;
    try {
      const user = await signUp(own, "Stopping owner");
      const created = await createProject(user, "Stopping", "eu");
      const secret = (await createToken(user, ["query:read"])).secret;
      const token = await regionTokenFor(own, secret, created.project.id, ["query:read"]);
      const { stream } = await openEventStream(`${own.url}${livePath("?limit=0")}`, bearer(token));
      const ended = stream.end();
      await own.stop();
      stopped = true;
      expect((await ended).map(parsed)).toEqual([{ type: "end", id: `${own.nodes.get("eu")!.live.epoch}-0`, data: { reason: "shutting_down" } }]);
    } finally {
      if (stopped) rmSync(own.dataDir, { recursive: true, force: true });
      else await own.close();
    }
  });
});
