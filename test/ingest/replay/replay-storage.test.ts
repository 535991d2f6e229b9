// What accepted replay chunks become once the replay log is compacted (docs/replay.md,
// "Storage"): the session's index row (times, counts, URLs), chunks of one session merged
// across requests and out of order, the zstd block on disk, and hostile text kept as text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { TestService } from "../../helpers/service.ts";
import {
  clickEvent, consoleError, inputEvent, moveEvent, pageStart, postReplay, replayBody, replayChunk, replayOk, startReplayService, type ChunkFields,
} from "./helpers.ts";

let service: TestService;
let key: string;
let projectId: string;
let dispose: () => Promise<void>;

beforeAll(async () => {
  let project: { id: string };
  ({ service, key, project, dispose } = await startReplayService());
  projectId = project.id;
});
afterAll(() => dispose());

const node = () => service.nodes.get("eu")!;
const dataId = () => node().store.findKey(key)!.dataId;
const storedSession = (sessionId: string) => node().store.replays.session(projectId, "production", sessionId);

async function sendAndFlush(...requests: ChunkFields[][]) {
  for (const chunks of requests) {
    const reply = await postReplay(service.url, replayBody(key, chunks));
    expect([reply.status, reply.body]).toEqual([200, replayOk(chunks.length)]);
  }
  await node().maintainReplays();
}

/** The directory of a session's blocks, and its block files decompressed. */
function blockFiles(sessionId: string) {
  const dir = join(service.dataDir, "eu", "replays", "blocks", String(dataId()), "production", sessionId);
  const names = existsSync(dir) ? readdirSync(dir).sort() : [];
  return { dir, names, contents: names.map((name) => JSON.parse(new TextDecoder().decode(Bun.zstdDecompressSync(readFileSync(join(dir, name)))))) };
}

/** A start on a whole second, an hour ago, so active seconds are easy to count. */
const secondStart = () => Math.floor((Date.now() - 3_600_000) / 1000) * 1000;

describe("the session's index row", () => {
  test("times, counts, URLs and active seconds of one chunk", async () => {
    const t = secondStart();
    const events = [
      ...pageStart(t, "https://shop.example/"),
      clickEvent(t + 1000),
      inputEvent(t + 2000, "a"),
      inputEvent(t + 2500, "ab"),
      consoleError(t + 3000, "boom"),
      ...pageStart(t + 5000, "https://shop.example/cart"),
      clickEvent(t + 6000),
      moveEvent(t + 6500),
    ];
    const chunk = replayChunk({ distinct_id: "row-user", platform: "web", mode: "dom", events });
    await sendAndFlush([chunk]);
    const { names } = blockFiles(chunk.session_id);
    expect(names).toHaveLength(1);
    const blockBytes = statSync(join(blockFiles(chunk.session_id).dir, names[0]!)).size;
    expect(storedSession(chunk.session_id)).toEqual({
      projectId,
      environment: "production",
      sessionId: chunk.session_id,
      dataId: dataId(),
      distinctId: "row-user",
      platform: "web",
      mode: "dom",
      startMs: t,
      endMs: t + 6500,
      // Seconds with a click, an input or a move: t+1, t+2 (two inputs), t+6 (a click and a move).
      activeSeconds: 3,
      activeRanges: [[t / 1000 + 1, t / 1000 + 2], [t / 1000 + 6, t / 1000 + 6]],
      firstUrl: "https://shop.example/",
      visits: [{ url: "https://shop.example/", ms: t }, { url: "https://shop.example/cart", ms: t + 5000 }],
      pageCount: 2,
      clickCount: 2,
      keypressCount: 2,
      consoleErrorCount: 1,
      chunkCount: 1,
      eventCount: 10,
      sizeBytes: blockBytes,
      receivedMs: expect.any(Number),
    });
    expect(node().store.replays.blocks(projectId, "production", chunk.session_id)).toEqual([
      { name: names[0]!.replace(/\.json\.zst$/, ""), startMs: t, endMs: t + 6500, eventCount: 10, sizeBytes: blockBytes },
    ]);
  });

  test("chunks of one session across requests and out of order (seq 2 first) make one row, in one flush", async () => {
    const t = secondStart();
    const sessionId = Bun.randomUUIDv7();
    const chunk = (seq: number, events: unknown[]) => replayChunk({ session_id: sessionId, seq, events });
    const seq0 = chunk(0, [...pageStart(t, "https://shop.example/"), clickEvent(t + 500)]);
    const seq1 = chunk(1, [inputEvent(t + 1500, "x"), consoleError(t + 1800, "oops")]);
    const seq2 = chunk(2, [...pageStart(t + 3000, "https://shop.example/done"), clickEvent(t + 3200), moveEvent(t + 4100)]);
    await sendAndFlush([seq2], [seq0], [seq1]);
    expect(storedSession(sessionId)).toMatchObject({
      startMs: t, endMs: t + 4100, firstUrl: "https://shop.example/", visits: [{ url: "https://shop.example/", ms: t }, { url: "https://shop.example/done", ms: t + 3000 }],
      pageCount: 2, clickCount: 2, keypressCount: 1, consoleErrorCount: 1, chunkCount: 3, eventCount: 9, activeSeconds: 4,
    });
  });

  test("the same, each chunk in a flush of its own: the row merges blocks: the earliest page is the first URL, URLs in the order visited", async () => {
    const t = secondStart();
    const sessionId = Bun.randomUUIDv7();
    const chunk = (seq: number, events: unknown[]) => replayChunk({ session_id: sessionId, seq, events });
    await sendAndFlush([chunk(2, [...pageStart(t + 3000, "https://shop.example/done"), clickEvent(t + 3200), moveEvent(t + 4100)])]);
    await sendAndFlush([chunk(0, [...pageStart(t, "https://shop.example/"), clickEvent(t + 500)])]);
    await sendAndFlush([chunk(1, [inputEvent(t + 1500, "x"), consoleError(t + 1800, "oops")])]);
    expect(storedSession(sessionId)).toMatchObject({
      startMs: t, endMs: t + 4100, firstUrl: "https://shop.example/", visits: [{ url: "https://shop.example/", ms: t }, { url: "https://shop.example/done", ms: t + 3000 }],
      pageCount: 2, clickCount: 2, keypressCount: 1, consoleErrorCount: 1, chunkCount: 3, eventCount: 9, activeSeconds: 4,
    });
    expect(blockFiles(sessionId).names).toHaveLength(3);
  });
  test("two tabs active in the same seconds, flushed apart: each second counts once", async () => {
    const t = secondStart();
    const sessionId = Bun.randomUUIDv7();
    const tab = (seq: number, offset: number) =>
      replayChunk({ session_id: sessionId, window_id: Bun.randomUUIDv7(), seq, events: [1, 2, 3].map((second) => moveEvent(t + second * 1000 + offset)) });
    await sendAndFlush([tab(0, 0)]);
    await sendAndFlush([tab(1, 500)]);
    expect(storedSession(sessionId)).toMatchObject({ startMs: t + 1000, endMs: t + 3500, activeSeconds: 3, chunkCount: 2, eventCount: 6 });
  });
});

describe("blocks on disk", () => {
  test("the block under {DATA_DIR}/eu/replays/blocks/{data_id}/{env}/{session}/ decompresses to the events sorted by timestamp", async () => {
    const t = secondStart();
    const sessionId = Bun.randomUUIDv7();
    const late = [clickEvent(t + 2000), moveEvent(t + 2100)];
    const early = [...pageStart(t, "https://shop.example/"), inputEvent(t + 900, "q")];
    await sendAndFlush([replayChunk({ session_id: sessionId, seq: 1, events: late }), replayChunk({ session_id: sessionId, seq: 0, events: early })]);
    const { names, contents } = blockFiles(sessionId);
    expect(names).toEqual([expect.stringMatching(new RegExp(`^${t}-[0-9a-f]{16}\\.json\\.zst$`))]);
    expect(contents).toEqual([{ events: [...early, ...late] }]);
  });

  test("sampled-out and rejected chunks leave no block", async () => {
    const rejected = replayChunk({ mode: "video" });
    const reply = await postReplay(service.url, replayBody(key, [rejected]));
    expect(reply.body.accepted).toBe(0);
    await node().maintainReplays();
    expect([blockFiles(rejected.session_id).names, storedSession(rejected.session_id)]).toEqual([[], null]);
  });
});

describe("hostile input", () => {
  test("a distinct_id with HTML and quotes, and a URL with a script tag, are stored as the text sent", async () => {
    const t = secondStart();
    const distinctId = `<img src=x onerror="alert('x')">'; DROP TABLE replay_sessions; --`;
    const url = `https://shop.example/?q=<script>alert("x")</script>&p=%27%22`;
    const chunk = replayChunk({ distinct_id: distinctId, events: [...pageStart(t, url), clickEvent(t + 100)] });
    await sendAndFlush([chunk]);
    expect(storedSession(chunk.session_id)).toMatchObject({ distinctId, firstUrl: url, visits: [{ url, ms: t }] });
    expect(blockFiles(chunk.session_id).contents).toEqual([{ events: chunk.events }]);
  });
});
