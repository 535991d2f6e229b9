// Deduplication of replay chunks by (session_id, seq) (docs/replay.md: `duplicate` — resending
// is safe): within a request, across requests, before and after the replay log is compacted,
// under concurrent requests, and after the service restarts on the same data directory.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestService } from "../../helpers/service.ts";
import { createProject, type SignedUpUser } from "../../helpers/accounts.ts";
import { clickEvent, moveEvent, postReplay, rejection, replayBody, replayChunk, replayOk, startReplayService, type ChunkFields } from "./helpers.ts";

const duplicateMessage = "this chunk (session_id, seq) was stored before; resending it is safe";
const duplicate = (chunk: ChunkFields) => rejection(chunk, "duplicate", duplicateMessage);

let service: TestService;
let key: string;
let projectId: string;
let owner: SignedUpUser;
let publicKeys: { key: string; environment: string }[];
let dispose: () => Promise<void>;

beforeAll(async () => {
  let project: { id: string };
  ({ service, key, project, owner, publicKeys, dispose } = await startReplayService());
  projectId = project.id;
});
afterAll(() => dispose());

const post = (chunks: unknown[]) => postReplay(service.url, replayBody(key, chunks));
const node = () => service.nodes.get("eu")!;
const storedSession = (sessionId: string) => node().store.replays.session(projectId, "production", sessionId);

describe("duplicates", () => {
  test("the same (session_id, seq) twice in one request: the second is a duplicate", async () => {
    const chunk = replayChunk();
    const reply = await post([chunk, { ...chunk }]);
    expect([reply.status, reply.body]).toEqual([200, replayOk(1, [duplicate(chunk)])]);
  });

  test("sent again in a later request, before and after a flush: duplicate, and stored once", async () => {
    const chunk = replayChunk();
    const first = await post([chunk]);
    const beforeFlush = await post([chunk]);
    expect([first.status, first.body, beforeFlush.status, beforeFlush.body]).toEqual([200, replayOk(1), 200, replayOk(0, [duplicate(chunk)])]);
    await node().maintainReplays();
    const afterFlush = await post([chunk]);
    expect([afterFlush.status, afterFlush.body]).toEqual([200, replayOk(0, [duplicate(chunk)])]);
    await node().maintainReplays();
    expect(storedSession(chunk.session_id)).toMatchObject({ chunkCount: 1, eventCount: chunk.events.length });
  });

  test("a resent chunk with other content is still a duplicate: the first content is what is stored", async () => {
    const chunk = replayChunk();
    expect((await post([chunk])).body).toEqual(replayOk(1));
    const changed = { ...chunk, events: [...chunk.events, moveEvent(Date.now()), clickEvent(Date.now())] };
    const reply = await post([changed]);
    expect([reply.status, reply.body]).toEqual([200, replayOk(0, [duplicate(chunk)])]);
    await node().maintainReplays();
    expect(storedSession(chunk.session_id)).toMatchObject({ chunkCount: 1, eventCount: chunk.events.length, clickCount: 1 });
  });

  test("the same seq of another session, and another seq of the same session, are accepted", async () => {
    const chunk = replayChunk({ seq: 4 });
    const reply = await post([chunk, replayChunk({ seq: 4 }), { ...chunk, seq: 5 }]);
    expect([reply.status, reply.body]).toEqual([200, replayOk(3)]);
  });

  test("an upper-case session_id is the same session as its lower-case form (answered as stored: lower case)", async () => {
    const chunk = replayChunk();
    const upper = { ...chunk, session_id: chunk.session_id.toUpperCase() };
    const reply = await post([chunk, upper]);
    expect([reply.status, reply.body]).toEqual([200, replayOk(1, [duplicate(chunk)])]);
  });

  test("a rejected chunk claims nothing: its (session_id, seq) is accepted once valid", async () => {
    const chunk = replayChunk();
    const invalid = await post([{ ...chunk, platform: "windows" }]);
    expect(invalid.body.accepted).toBe(0);
    const valid = await post([chunk]);
    expect([valid.status, valid.body]).toEqual([200, replayOk(1)]);
  });

  test("concurrent requests with the same chunk: exactly one accepts it", async () => {
    const chunk = replayChunk();
    const replies = await Promise.all(Array.from({ length: 8 }, () => post([chunk])));
    const bodies = replies.map((reply) => [reply.status, reply.body]);
    expect(bodies.filter(([, body]) => body.accepted === 1)).toEqual([[200, replayOk(1)]]);
    expect(bodies.filter(([, body]) => body.accepted === 0)).toEqual(Array.from({ length: 7 }, () => [200, replayOk(0, [duplicate(chunk)])]));
  });

  test("the same (session_id, seq) in another environment or another project is a chunk of its own", async () => {
    const chunk = replayChunk();
    const staging = publicKeys.find((publicKey) => publicKey.environment === "staging")!.key;
    const { public_keys } = await createProject(owner, "Other replays", "eu");
    const replies = await Promise.all([key, staging, public_keys[0].key].map((apiKey) => postReplay(service.url, replayBody(apiKey, [chunk]))));
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual([[200, replayOk(1)], [200, replayOk(1)], [200, replayOk(1)]]);
  });
});

describe("after a restart on the same data directory", () => {
  test("a chunk still in the log (read back) and one compacted into the index are both duplicates", async () => {
    const dedicated = await startReplayService();
    let restarted: TestService | null = null;
    try {
      const flushed = replayChunk();
      const logged = replayChunk();
      const postTo = (target: TestService, chunks: unknown[]) => postReplay(target.url, replayBody(dedicated.key, chunks));
      expect((await postTo(dedicated.service, [flushed])).body).toEqual(replayOk(1));
      await dedicated.service.nodes.get("eu")!.replays.flush();
      expect((await postTo(dedicated.service, [logged])).body).toEqual(replayOk(1));
      restarted = await dedicated.service.restart();
      const reply = await postTo(restarted, [flushed, logged, { ...logged, seq: 1 }]);
      expect([reply.status, reply.body]).toEqual([200, replayOk(1, [duplicate(flushed), duplicate(logged)])]);
      await restarted.nodes.get("eu")!.maintainReplays();
      const index = restarted.nodes.get("eu")!.store.replays;
      expect([index.session(dedicated.project.id, "production", flushed.session_id)?.chunkCount, index.session(dedicated.project.id, "production", logged.session_id)?.chunkCount]).toEqual([1, 2]);
    } finally {
      if (restarted) await restarted.close();
      else await dedicated.dispose();
    }
  });
});
