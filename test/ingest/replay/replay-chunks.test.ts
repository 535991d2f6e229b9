// Each chunk of POST /r checked on its own (docs/replay.md, "Per-chunk rejections"): every field
// at its edge, rrweb's event shape, and the project's retention. A rejected chunk is answered
// with its session_id, seq, reason and message while the rest of the request is accepted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestService } from "../../helpers/service.ts";
import { daysAgo } from "../helpers.ts";
import { clickEvent, moveEvent, pageStart, postReplay, rejection, replayBody, replayChunk, replayOk, startReplayService, type ChunkFields } from "./helpers.ts";

const dayMs = 86_400_000;
const retentionMs = 365 * dayMs;
const messages = {
  noEvents: "a chunk holds 1 to 20000 events",
  tooMany: "a chunk holds at most 20000 events; this one has 20001",
  seq: "seq must be an integer from 0 to 2147483647",
  session: "session_id must be a UUIDv7",
  window: "window_id must be a UUIDv7 when given",
  distinctId: "distinct_id must be 1 to 200 characters",
  platform: "platform must be one of web, ios, android, react-native, tauri",
  mode: "mode must be one of dom, wireframe, screenshot",
  eventsArray: "events must be an array of rrweb events",
  chunkObject: "a chunk must be an object",
  type: (index: number) => `events[${index}].type must be an rrweb event type (an integer from 0 to 6)`,
  timestamp: (index: number) => `events[${index}].timestamp must be a positive whole number of epoch milliseconds`,
  future: (index: number) => `events[${index}].timestamp is more than 60 minutes in the future`,
  data: (index: number) => `events[${index}].data must be an object`,
  eventObject: (index: number) => `events[${index}] must be an object`,
  expired: "every event is older than the project's retention of 365 days",
};

let service: TestService;
let key: string;
let dispose: () => Promise<void>;

beforeAll(async () => ({ service, key, dispose } = await startReplayService()));
afterAll(() => dispose());

/** Sends `chunk` between two valid chunks and expects exactly `rejected` (or nothing) back for it. */
async function expectBetweenValid(chunk: unknown, rejected: unknown | null) {
  const reply = await postReplay(service.url, replayBody(key, [replayChunk(), chunk, replayChunk()]));
  expect([reply.status, reply.body]).toEqual([200, rejected === null ? replayOk(3) : replayOk(2, [rejected])]);
}

/** `count` small incremental events a millisecond apart, as a recorder emits mouse moves. */
const moves = (count: number) => {
  const start = Date.now() - 60_000;
  return Array.from({ length: count }, (_, index) => moveEvent(start + index));
};

describe("events per chunk", () => {
  test("no events: invalid", async () => {
    const chunk = replayChunk({ events: [] });
    await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.noEvents));
  });

  test("1 event and 20,000 events are accepted", async () => {
    await expectBetweenValid(replayChunk({ events: moves(1) }), null);
    await expectBetweenValid(replayChunk({ events: moves(20_000) }), null);
  });

  test("20,001 events: too_large", async () => {
    const chunk = replayChunk({ events: moves(20_001) });
    await expectBetweenValid(chunk, rejection(chunk, "too_large", messages.tooMany));
  });

  test("events missing or not an array: invalid", async () => {
    for (const events of [undefined, null, {}, "events", moveEvent(Date.now())]) {
      const chunk = replayChunk({ events });
      await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.eventsArray));
    }
  });
});

describe("seq", () => {
  test("0 and 2,147,483,647 are accepted", async () => {
    await expectBetweenValid(replayChunk({ seq: 0 }), null);
    await expectBetweenValid(replayChunk({ seq: 2_147_483_647 }), null);
  });

  test("-1 and 2,147,483,648 are invalid, answered with the seq sent", async () => {
    for (const seq of [-1, 2_147_483_648]) {
      const chunk = replayChunk({ seq });
      await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.seq));
    }
  });

  test("1.5, \"1\", null and a missing seq are invalid, answered with seq null", async () => {
    for (const seq of [1.5, "1", null, undefined]) {
      const chunk = replayChunk({ seq });
      await expectBetweenValid(chunk, { ...rejection(chunk, "invalid", messages.seq), seq: null });
    }
  });
});

describe("session_id and window_id", () => {
  test("a session_id that is not a UUIDv7 is invalid, answered with the id sent when it is a string", async () => {
    for (const sessionId of [crypto.randomUUID(), "not-a-uuid", "", Bun.randomUUIDv7().slice(0, 35)]) {
      const chunk = replayChunk({ session_id: sessionId });
      await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.session));
    }
    for (const sessionId of [42, null, undefined, { id: Bun.randomUUIDv7() }]) {
      const chunk = replayChunk({ session_id: sessionId });
      await expectBetweenValid(chunk, { ...rejection(chunk, "invalid", messages.session), session_id: null });
    }
  });

  test("a huge session_id is answered cut to its first 100 characters", async () => {
    const chunk = replayChunk({ session_id: `<script>${"x".repeat(100_000)}` });
    await expectBetweenValid(chunk, { ...rejection(chunk, "invalid", messages.session), session_id: chunk.session_id.slice(0, 100) });
  });

  test("an upper-case UUIDv7 session_id is accepted", async () => {
    await expectBetweenValid(replayChunk({ session_id: Bun.randomUUIDv7().toUpperCase() }), null);
  });

  test("window_id absent or null is accepted; one that is not a UUIDv7 is invalid", async () => {
    await expectBetweenValid(replayChunk({ window_id: undefined }), null);
    await expectBetweenValid(replayChunk({ window_id: null }), null);
    for (const windowId of [crypto.randomUUID(), "tab-1", "", 7]) {
      const chunk = replayChunk({ window_id: windowId });
      await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.window));
    }
  });
});

describe("distinct_id, platform and mode", () => {
  test("distinct_id of 1 and 200 characters is accepted; empty, 201 characters, missing or not a string is invalid", async () => {
    await expectBetweenValid(replayChunk({ distinct_id: "a" }), null);
    await expectBetweenValid(replayChunk({ distinct_id: "d".repeat(200) }), null);
    for (const distinctId of ["", "d".repeat(201), undefined, null, 42]) {
      const chunk = replayChunk({ distinct_id: distinctId });
      await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.distinctId));
    }
  });

  test("every platform is accepted", async () => {
    const chunks = ["web", "ios", "android", "react-native", "tauri"].map((platform) => replayChunk({ platform }));
    const reply = await postReplay(service.url, replayBody(key, chunks));
    expect([reply.status, reply.body]).toEqual([200, replayOk(5)]);
  });

  test("an unknown, differently cased or missing platform is invalid", async () => {
    for (const platform of ["windows", "Web", "", undefined, 1]) {
      const chunk = replayChunk({ platform });
      await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.platform));
    }
  });

  test("every mode is accepted", async () => {
    const chunks = ["dom", "wireframe", "screenshot"].map((mode) => replayChunk({ mode }));
    const reply = await postReplay(service.url, replayBody(key, chunks));
    expect([reply.status, reply.body]).toEqual([200, replayOk(3)]);
  });

  test("an unknown or missing mode is invalid", async () => {
    for (const mode of ["video", "DOM", "", undefined, null]) {
      const chunk = replayChunk({ mode });
      await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.mode));
    }
  });

  test("a chunk that is not an object is invalid, answered with session_id and seq null", async () => {
    for (const chunk of [42, null, "chunk", [replayChunk()]]) {
      await expectBetweenValid(chunk, { session_id: null, seq: null, reason: "invalid", message: messages.chunkObject });
    }
  });
});

describe("rrweb event shape", () => {
  const now = Date.now() - 1000;
  /** A chunk of two valid events followed by `event` (so the message names index 2). */
  const withThirdEvent = (event: unknown) => replayChunk({ events: [...pageStart(now - 500, "https://shop.example/"), event] });

  const cases: [string, unknown, string][] = [
    ["type 7", { type: 7, timestamp: now, data: {} }, messages.type(2)],
    ["type -1", { type: -1, timestamp: now, data: {} }, messages.type(2)],
    ["type 2.5", { type: 2.5, timestamp: now, data: {} }, messages.type(2)],
    ["type \"2\"", { type: "2", timestamp: now, data: {} }, messages.type(2)],
    ["type missing", { timestamp: now, data: {} }, messages.type(2)],
    ["timestamp 0", { type: 3, timestamp: 0, data: {} }, messages.timestamp(2)],
    ["timestamp \"x\"", { type: 3, timestamp: "x", data: {} }, messages.timestamp(2)],
    ["timestamp as an ISO string", { type: 3, timestamp: new Date(now).toISOString(), data: {} }, messages.timestamp(2)],
    ["timestamp missing", { type: 3, data: {} }, messages.timestamp(2)],
    ["timestamp with a fraction", { type: 3, timestamp: now + 0.5, data: {} }, messages.timestamp(2)],
    ["timestamp past a safe integer", { type: 3, timestamp: 1e16, data: {} }, messages.timestamp(2)],
    ["timestamp over an hour ahead", { type: 3, timestamp: Date.now() + 3_700_000, data: {} }, messages.future(2)],
    ["data missing", { type: 3, timestamp: now }, messages.data(2)],
    ["data an array", { type: 3, timestamp: now, data: [] }, messages.data(2)],
    ["data null", { type: 3, timestamp: now, data: null }, messages.data(2)],
    ["data a string", { type: 3, timestamp: now, data: "{}" }, messages.data(2)],
    ["the event null", null, messages.eventObject(2)],
    ["the event a number", 3, messages.eventObject(2)],
    ["the event an array", [3, now, {}], messages.eventObject(2)],
  ];
  for (const [name, event, message] of cases) {
    test(`${name}: invalid, the message names the event's index`, async () => {
      const chunk = withThirdEvent(event);
      await expectBetweenValid(chunk, rejection(chunk, "invalid", message));
    });
  }

  test("the first bad event is the one named", async () => {
    const chunk = replayChunk({ events: [{ type: 4, timestamp: now, data: {} }, { type: 9, timestamp: now, data: {} }, null] });
    await expectBetweenValid(chunk, rejection(chunk, "invalid", messages.type(1)));
  });

  test("every type from 0 to 6 is accepted", async () => {
    await expectBetweenValid(replayChunk({ events: [0, 1, 2, 3, 4, 5, 6].map((type) => ({ type, timestamp: now + type, data: {} })) }), null);
  });

  test("an event up to an hour ahead of the request (a fast device clock) is accepted", async () => {
    await expectBetweenValid(replayChunk({ events: [{ type: 3, timestamp: Date.now() + 3_500_000, data: { source: 1 } }] }), null);
  });
});

describe("retention", () => {
  test("a chunk whose every event is older than the project's retention (365 days) is expired", async () => {
    const chunk = replayChunk({ events: [...pageStart(daysAgo(400), "https://shop.example/"), clickEvent(daysAgo(366))] });
    await expectBetweenValid(chunk, rejection(chunk, "expired", messages.expired));
  });

  test("the edge: newest event 1 ms past the retention is expired; one just inside it is kept", async () => {
    // The server's clock is read after ours, so its edge is at least as late as this one.
    const past = replayChunk({ events: [clickEvent(Date.now() - retentionMs - 1)] });
    await expectBetweenValid(past, rejection(past, "expired", messages.expired));
    await expectBetweenValid(replayChunk({ events: [clickEvent(Date.now() - retentionMs + 60_000)] }), null);
  });

  test("one recent event keeps a chunk of old ones", async () => {
    await expectBetweenValid(replayChunk({ events: [...pageStart(daysAgo(400), "https://shop.example/"), clickEvent(daysAgo(1))] }), null);
  });
});

describe("several rejections in one request", () => {
  test("are answered in request order, each with its own reason", async () => {
    const bad: ChunkFields[] = [replayChunk({ events: [] }), replayChunk({ platform: "windows" }), replayChunk({ events: moves(20_001) })];
    const reply = await postReplay(service.url, replayBody(key, [bad[0], replayChunk(), bad[1], bad[2], replayChunk()]));
    expect([reply.status, reply.body]).toEqual([200, replayOk(2, [
      rejection(bad[0]!, "invalid", messages.noEvents),
      rejection(bad[1]!, "invalid", messages.platform),
      rejection(bad[2]!, "too_large", messages.tooMany),
    ])]);
  });

  test("a request whose every chunk is rejected still answers 200", async () => {
    const chunk = replayChunk({ seq: -1 });
    const reply = await postReplay(service.url, replayBody(key, [chunk]));
    expect([reply.status, reply.body]).toEqual([200, replayOk(0, [rejection(chunk, "invalid", messages.seq)])]);
  });
});
