// GET /region/{code}/events/live as a stream over real HTTP: events go in through /ingest/eu and
// a real SSE client (test/helpers/sse.ts over fetch) reads them. Backlog and live order,
// filters, environments, what is never shown, resuming with Last-Event-ID, a slow reader's
// losses, the cap of streams per project, revocation and the service stopping.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startTestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp } from "../helpers/accounts.ts";
import { bearer } from "../helpers/client.ts";
import { openEventStream, type SseReader } from "../helpers/sse.ts";
import { nativeBody, ok, postIngest, sendAccepted } from "../ingest/helpers.ts";
import { liveStreamsPerProjectMax, reconnectDelayMs } from "../../server/region/live/live-hub.ts";
import { recentEventsMax } from "../../server/region/live/recent-events.ts";
import { streamQueueBytesMax } from "../../server/region/live/live-stream.ts";
import { at, livePath, nextEvents, parsed, shown, startLiveFixture, within, type LiveFixture } from "./live-events-fixture.ts";

let live: LiveFixture;
beforeAll(async () => {
  live = await startLiveFixture();
});
afterAll(() => live.service.close());

describe("the event stream", () => {
  test("starts with the recent events newest first, then sends events as they are accepted, in acceptance order, whole", async () => {
    const project = await live.newProject("Stream");
    const first = [at({ distinct_id: "ann" }), at({ distinct_id: "bob", event: "clicked", properties: { button: "buy", price: 100, currency: "EUR" } }), at({ distinct_id: "ann", event: "$pageview" })];
    await sendAccepted(live.service.url, project.keys.production!, first);
    const { response, stream } = await live.openLive(project.pii);
    expect([response.headers.get("cache-control"), response.headers.get("x-accel-buffering")]).toEqual(["no-cache", "no"]);

    expect(await nextEvents(stream, 3)).toEqual([
      { type: "backlog", id: live.id(3), data: shown(first[2]!) },
      { type: "backlog", id: live.id(2), data: shown(first[1]!) },
      { type: "backlog", id: live.id(1), data: shown(first[0]!) },
    ]);
    expect(stream.retry).toBe(reconnectDelayMs);

    const later = [at({ distinct_id: "bob" }), at({ distinct_id: "cat", anon_id: "device-1", session_id: Bun.randomUUIDv7(), $set: { plan: "pro" } })];
    const last = at({ distinct_id: "ann", event: "signed_out" });
    await sendAccepted(live.service.url, project.keys.production!, later);
    await sendAccepted(live.service.url, project.keys.production!, [last]);
    expect(await nextEvents(stream, 3)).toEqual([
      { type: "event", id: live.id(4), data: shown(later[0]!) },
      { type: "event", id: live.id(5), data: shown(later[1]!) },
      { type: "event", id: live.id(6), data: shown(last) },
    ]);
    await stream.close();
  });

  test("filters: only events that pass reach the stream, the backlog included", async () => {
    const project = await live.newProject("Filtered");
    const backlog = [
      at({ event: "clicked", properties: { plan: "pro" } }),
      at({ event: "clicked", properties: { plan: "free" } }),
      at({ event: "viewed", properties: { plan: "pro" } }),
    ];
    await sendAccepted(live.service.url, project.keys.production!, backlog);
    const { stream } = await live.openLive(project.pii, `?event=clicked&event=bought&properties=${encodeURIComponent('{"plan":"pro"}')}`);
    expect(await nextEvents(stream, 1)).toEqual([{ type: "backlog", id: live.id(1), data: shown(backlog[0]!) }]);

    const arriving = [
      at({ event: "bought", properties: { plan: "pro", seats: 2 } }),
      at({ event: "bought", properties: { plan: "Pro" } }),
      at({ event: "viewed", properties: { plan: "pro" } }),
      at({ event: "clicked", properties: {} }),
      at({ event: "clicked", properties: { plan: "pro" } }),
    ];
    await sendAccepted(live.service.url, project.keys.production!, arriving);
    expect(await nextEvents(stream, 2)).toEqual([
      { type: "event", id: live.id(4), data: shown(arriving[0]!) },
      { type: "event", id: live.id(8), data: shown(arriving[4]!) },
    ]);
    await stream.close();

    const { stream: byPerson } = await live.openLive(project.pii, `?distinct_id=${encodeURIComponent(arriving[2]!.distinct_id)}&distinct_id=nobody&limit=1`);
    expect(await nextEvents(byPerson, 1)).toEqual([{ type: "backlog", id: live.id(6), data: shown(arriving[2]!) }]);
    const mine = at({ distinct_id: arriving[2]!.distinct_id, event: "left" });
    await sendAccepted(live.service.url, project.keys.production!, [at(), mine]);
    expect(await nextEvents(byPerson, 1)).toEqual([{ type: "event", id: live.id(10), data: shown(mine) }]);
    await byPerson.close();
  });

  test("each stream sees its token's project environment only", async () => {
    const project = await live.newProject("Environments");
    const other = await live.newProject("Neighbour");
    const { stream } = await live.openLive(project.pii);
    await sendAccepted(live.service.url, project.keys.staging!, [at()]);
    await sendAccepted(live.service.url, other.keys.production!, [at()]);
    const own = at();
    await sendAccepted(live.service.url, project.keys.production!, [own]);
    expect(await nextEvents(stream, 1)).toEqual([{ type: "event", id: live.id(1), data: shown(own) }]);
    await stream.close();
    const staging = await live.liveJson(await live.stagingToken(project.id, ["query:read"]));
    expect([staging.status, staging.body.events.length, staging.body.last_event_id]).toEqual([200, 1, live.id(1)]);
  });

  test("rejected, duplicate, crawler and sampled-out events are not shown", async () => {
    const project = await live.newProject("Refusals");
    const { stream } = await live.openLive(project.pii, "?limit=0");
    const kept = at();
    const invalid = at({ distinct_id: "someone@example.com" });
    const reserved = at({ event: "$made_up" });
    const reply = await postIngest(live.service.url, nativeBody(project.keys.production!, [kept, invalid, reserved, { ...kept }]));
    expect([reply.status, reply.body.accepted, reply.body.rejected.map((rejection: { reason: string }) => rejection.reason)]).toEqual([200, 1, ["invalid", "reserved_name"]]);
    const again = await postIngest(live.service.url, nativeBody(project.keys.production!, [kept]));
    expect(again.body.rejected.map((rejection: { reason: string }) => rejection.reason)).toEqual(["duplicate"]);
    const crawler = await postIngest(live.service.url, nativeBody(project.keys.production!, [at({ properties: { $user_agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" } })]));
    expect([crawler.status, crawler.body]).toEqual([200, ok(0)]);
    // Sampling keeps an event when its uuid hashes below the ratio (event-effects.ts, keptBySampling).
    live.service.nodes.get("eu")!.setKeepRatio(project.id, 0.5);
    const sampled = Array.from({ length: 40 }, () => at());
    const keptBySampling = sampled.filter((event) => Bun.hash.crc32(event.uuid) / 0x1_0000_0000 < 0.5);
    expect(keptBySampling.length > 0 && keptBySampling.length < sampled.length).toBe(true);
    await postIngest(live.service.url, nativeBody(project.keys.production!, sampled));
    live.service.nodes.get("eu")!.setKeepRatio(project.id, 1);
    const marker = at({ event: "marker" });
    await sendAccepted(live.service.url, project.keys.production!, [marker]);

    const expected = [[kept.uuid, 1], ...keptBySampling.map((event) => [event.uuid, 0.5]), [marker.uuid, 1]];
    const received = await nextEvents(stream, expected.length);
    expect(received.map((event) => [event.data.uuid, event.data.sample_rate])).toEqual(expected);
    expect(received.every((event) => event.type === "event")).toBe(true);
    await stream.close();
  });

  test("a client that reconnects with Last-Event-ID gets what it missed, in acceptance order, and no backlog", async () => {
    const project = await live.newProject("Resumed");
    const before = [at(), at(), at()];
    await sendAccepted(live.service.url, project.keys.production!, before);
    const { stream } = await live.openLive(project.pii);
    const backlog = await nextEvents(stream, 3);
    expect(backlog.map((event) => event.id)).toEqual([live.id(3), live.id(2), live.id(1)]);
    await stream.close();

    const missed = [at(), at()];
    await sendAccepted(live.service.url, project.keys.production!, missed);
    const { stream: resumed } = await live.openLive(project.pii, "", { "last-event-id": live.id(3) });
    expect(await nextEvents(resumed, 2)).toEqual([
      { type: "event", id: live.id(4), data: shown(missed[0]!) },
      { type: "event", id: live.id(5), data: shown(missed[1]!) },
    ]);
    const next = at();
    await sendAccepted(live.service.url, project.keys.production!, [next]);
    expect(await nextEvents(resumed, 1)).toEqual([{ type: "event", id: live.id(6), data: shown(next) }]);
    await resumed.close();

    // An id from before a restart (another epoch) starts a new stream: the backlog.
    const otherEpoch = live.hub.epoch === "00000000" ? "11111111" : "00000000";
    const { stream: fresh } = await live.openLive(project.pii, "?limit=2", { "last-event-id": `${otherEpoch}-3` });
    expect(await nextEvents(fresh, 2)).toEqual([
      { type: "backlog", id: live.id(6), data: shown(next) },
      { type: "backlog", id: live.id(5), data: shown(missed[1]!) },
    ]);
    await fresh.close();

    for (const malformed of ["3", "abc-3", `${live.hub.epoch}-`, `${live.hub.epoch}-1-2`, `${live.hub.epoch}-1234567890123456`]) {
      const reply = await live.liveJson(project.pii, "", { accept: "text/event-stream", "last-event-id": malformed });
      expect([malformed, reply.status, reply.body]).toEqual([malformed, 400, { error: { code: "bad_request", message: "Last-Event-ID must be the id of an event this stream sent" } }]);
    }
  });

  test("reconnecting after more events than are kept: a dropped notice counts those no longer kept, then the kept ones follow", async () => {
    const project = await live.newProject("Gap");
    const events = Array.from({ length: 150 }, () => at());
    await sendAccepted(live.service.url, project.keys.production!, events);
    const { stream } = await live.openLive(project.pii, "", { "last-event-id": live.id(10) });
    expect(parsed(await stream.next())).toEqual({ type: "dropped", id: "", data: { dropped: 150 - recentEventsMax - 10, reason: "not_kept" } });
    const kept = await nextEvents(stream, recentEventsMax);
    expect(kept.map((event) => [event.type, event.id, event.data.uuid])).toEqual(events.slice(-recentEventsMax).map((event, index) => ["event", live.id(51 + index), event.uuid]));
    await stream.close();
  });

  test("a slow reader loses events past its queue and is told how many, then receives events again", async () => {
    const project = await live.newProject("Slow");
    const { stream } = await live.openLive(project.query, "?limit=0");
    // The reader reads nothing while 18 MB of events are accepted. Each request's 6 MB pass the
    // stream's queue at once, so events are lost whatever the socket's buffers take in.
    const bulk = Array.from({ length: 1500 }, () => at({ event: "bulk", properties: { padding: "x".repeat(12_000) } }));
    expect(500 * 12_000).toBeGreaterThan(streamQueueBytesMax);
    for (let start = 0; start < bulk.length; start += 500) await sendAccepted(live.service.url, project.keys.production!, bulk.slice(start, start + 500));

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
        expect([told, event.lastEventId, JSON.parse(event.data)]).toEqual([0, live.id(next), { dropped: expect.any(Number), reason: "slow_reader" }]);
        told = JSON.parse(event.data).dropped;
        notices++;
        continue;
      }
      const data = JSON.parse(event.data);
      const index = position.get(data.uuid)!;
      expect([event.type, index - next, event.lastEventId, data]).toEqual(["event", told, live.id(index + 1), shown(bulk[index]!)]);
      told = 0;
      next = index + 1;
      delivered++;
    }
    expect([next + told, notices > 0, delivered > 0]).toEqual([bulk.length, true, true]);
    // Events flow again once the reader has caught up.
    const after = at({ event: "after" });
    await sendAccepted(live.service.url, project.keys.production!, [after]);
    expect(await nextEvents(stream, 1)).toEqual([{ type: "event", id: live.id(bulk.length + 1), data: shown(after) }]);
    await stream.close();
  });

  test(`a project has at most ${liveStreamsPerProjectMax} streams open; one its client closes frees its slot`, async () => {
    const project = await live.newProject("Capped");
    const streams: SseReader[] = [];
    for (let i = 0; i < liveStreamsPerProjectMax - 1; i++) streams.push((await live.openLive(project.query)).stream);
    // The last slot, taken from another environment of the project: the cap is the project's.
    const staging = await live.stagingToken(project.id, ["query:read"]);
    streams.push((await live.openLive(staging)).stream);
    const tooMany = { error: { code: "too_many_concurrent_queries", message: `a project has at most ${liveStreamsPerProjectMax} live event streams open at once; close one to open another` } };
    for (const token of [project.query, staging]) {
      const refused = await live.liveJson(token, "", { accept: "text/event-stream" });
      expect([refused.status, refused.body]).toEqual([429, tooMany]);
    }
    // JSON answers hold no stream, and other projects have slots of their own.
    expect((await live.liveJson(project.query)).status).toBe(200);
    const other = await live.newProject("Uncapped");
    await (await live.openLive(other.query)).stream.close();

    const oneClosed = Promise.race(live.hub.streams(project.id).map((stream) => stream.closed));
    await streams.shift()!.close();
    await within(oneClosed, "a closed stream's slot freed");
    expect(live.hub.streams(project.id)).toHaveLength(liveStreamsPerProjectMax - 1);
    streams.push((await live.openLive(project.query)).stream);
    expect((await live.liveJson(project.query, "", { accept: "text/event-stream" })).status).toBe(429);
    const allClosed = Promise.all(live.hub.streams(project.id).map((stream) => stream.closed));
    for (const stream of streams) await stream.close();
    await within(allClosed, "every stream's slot freed");
    expect(live.hub.streams(project.id)).toEqual([]);
  });

  test("a stream ends with event: end when a revocation takes its token's access", async () => {
    const project = await live.newProject("Revoked");
    const { stream } = await live.openLive(project.query, "?limit=0");
    const deleted = await live.owner.client.delete(`/app/projects/${project.id}`);
    expect(deleted.status).toBe(204);
    // The revocation is noticed at the next heartbeat (every 5 s).
    expect((await stream.end()).map(parsed)).toEqual([{ type: "end", id: live.id(0), data: { reason: "token_revoked" } }]);
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
