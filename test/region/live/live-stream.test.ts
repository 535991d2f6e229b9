// A live stream on its own: its queue bound and the notice of what a slow client lost (at the
// edges), heartbeats, and how it ends (token expiry, revocation, the service, the client).
import { describe, expect, test } from "bun:test";
import { LiveStream, resumeQueueShare, type LiveStreamOptions } from "../../../server/region/live/live-stream.ts";
import { sseMessage } from "../../../server/http/sse.ts";
import { SseReader, type SseEvent } from "../../helpers/sse.ts";
import { messageOf, watcher } from "./fixtures.ts";

const queueBytesMax = 1000;
const quiet: LiveStreamOptions = { queueBytesMax, heartbeatIntervalMs: 60_000 };

function openStream(options: LiveStreamOptions = quiet, overrides: Parameters<typeof watcher>[0] = {}) {
  let ends = 0;
  const stream = new LiveStream(watcher(overrides), options, () => ends++);
  return { stream, reader: new SseReader(stream.body), ends: () => ends };
}

/** Event messages by the size of the message they came in (messageOf), other messages as they are. */
const sizes = (events: SseEvent[]): (number | SseEvent)[] => events.map((event) => (event.type === "event" ? event.data.length + dataOverhead : event));
const dataOverhead = sseMessage({ event: "event", data: "" }).byteLength;

describe("the queue", () => {
  test(`holds up to ${queueBytesMax} bytes: a message that would pass the bound is lost`, async () => {
    const { stream, reader } = openStream();
    stream.send(messageOf(400));
    stream.send(messageOf(600));
    stream.send(messageOf(30));
    expect(sizes([await reader.next(), await reader.next()])).toEqual([400, 600]);
    expect(await reader.next()).toEqual({ type: "dropped", data: '{"dropped":1,"reason":"slow_reader"}', lastEventId: "" });
    stream.end("shutting_down");

    const big = openStream();
    big.stream.send(messageOf(queueBytesMax + 1));
    big.stream.end("shutting_down");
    expect((await big.reader.end()).map((event) => event.type)).toEqual(["end"]);
  });

  test(`after losing events, sends again once the client has read it down to ${resumeQueueShare * 100}%, first telling what was lost`, async () => {
    const half = queueBytesMax * resumeQueueShare;
    const atHalf = openStream();
    atHalf.stream.send(messageOf(half));
    atHalf.stream.send(messageOf(half));
    atHalf.stream.send(messageOf(30));
    await atHalf.reader.next();
    atHalf.stream.send(messageOf(40));
    atHalf.stream.end("shutting_down");
    expect(sizes(await atHalf.reader.end())).toEqual([
      half, { type: "dropped", data: '{"dropped":1,"reason":"slow_reader"}', lastEventId: "" }, 40, { type: "end", data: '{"reason":"shutting_down"}', lastEventId: "" },
    ]);

    const aboveHalf = openStream();
    aboveHalf.stream.send(messageOf(half - 1));
    aboveHalf.stream.send(messageOf(half + 1));
    aboveHalf.stream.send(messageOf(30));
    await aboveHalf.reader.next();
    aboveHalf.stream.send(messageOf(40));
    expect(sizes([await aboveHalf.reader.next(), await aboveHalf.reader.next()])).toEqual([
      half + 1, { type: "dropped", data: '{"dropped":2,"reason":"slow_reader"}', lastEventId: "" },
    ]);
    aboveHalf.stream.end("shutting_down");
  });

  test("what the stream says about itself is never dropped", async () => {
    const { stream, reader } = openStream();
    stream.send(messageOf(queueBytesMax));
    stream.control(messageOf(50));
    stream.end("shutting_down");
    expect(sizes(await reader.end()).slice(0, 2)).toEqual([queueBytesMax, 50]);
  });
});

describe("heartbeats and ends", () => {
  test("a heartbeat comment comes every heartbeatIntervalMs", async () => {
    const { stream, reader } = openStream({ queueBytesMax, heartbeatIntervalMs: 20 });
    expect([await reader.nextComment(), await reader.nextComment()]).toEqual(["heartbeat", "heartbeat"]);
    stream.end("shutting_down");
  });

  test("the stream ends when its token expires, with what was queued delivered first", async () => {
    const { stream, reader, ends } = openStream(quiet, { expiresAt: Date.now() + 50 });
    stream.send(messageOf(100));
    expect(sizes(await reader.end())).toEqual([100, { type: "end", data: '{"reason":"token_expired"}', lastEventId: "" }]);
    await stream.closed;
    expect(ends()).toBe(1);
  });

  test("the stream ends at the heartbeat after its token loses its access", async () => {
    let allowed = true;
    const { stream, reader, ends } = openStream({ queueBytesMax, heartbeatIntervalMs: 20 }, { stillAllowed: () => allowed });
    expect(await reader.nextComment()).toBe("heartbeat");
    allowed = false;
    expect(await reader.end()).toEqual([{ type: "end", data: '{"reason":"token_revoked"}', lastEventId: "" }]);
    await stream.closed;
    expect(ends()).toBe(1);
  });

  test("a client that goes away ends the stream once; later messages are ignored", async () => {
    const { stream, reader, ends } = openStream();
    await reader.close();
    await stream.closed;
    stream.send(messageOf(100));
    stream.end("shutting_down");
    expect(ends()).toBe(1);
  });
});
