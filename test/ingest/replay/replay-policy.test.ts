// The project's replay policy at ingest (docs/replay.md, "Replay policy"): the sample rate,
// decided once per session so every chunk of it gets the same verdict, multiplied by the spend
// cap's keep ratio; and the flag that gates recording per person. The region API that sets the
// policy is tested on its own; here it is set in the region's index directly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestService } from "../../helpers/service.ts";
import { createProject, type SignedUpUser } from "../../helpers/accounts.ts";
import { nativeEvent, sendAccepted } from "../helpers.ts";
import { sessionPoint } from "../../../server/ingest/replay/replay-sampling.ts";
import { postReplay, replayBody, replayChunk, replayOk, startReplayService, type ChunkFields } from "./helpers.ts";

let service: TestService;
let owner: SignedUpUser;
let dispose: () => Promise<void>;

beforeAll(async () => ({ service, owner, dispose } = await startReplayService()));
afterAll(() => dispose());

const node = () => service.nodes.get("eu")!;

/** A project of its own with this replay policy; its production key. */
async function projectWithPolicy(name: string, policy: { sampleRate?: number; flagKey?: string | null }) {
  const { project, public_keys } = await createProject(owner, name, "eu");
  node().store.replays.setPolicy({ projectId: project.id, sampleRate: policy.sampleRate ?? 1, minDurationMs: 0, flagKey: policy.flagKey ?? null, updatedAt: new Date().toISOString() });
  return { projectId: project.id as string, key: public_keys[0].key as string };
}

/** Sends `chunks` 50 to a request; the union of the answers. */
async function sendAll(key: string, chunks: ChunkFields[]) {
  const total = { accepted: 0, sampled_out: [] as string[], rejected: [] as unknown[] };
  for (let start = 0; start < chunks.length; start += 50) {
    const reply = await postReplay(service.url, replayBody(key, chunks.slice(start, start + 50)));
    expect(reply.status).toBe(200);
    total.accepted += reply.body.accepted;
    total.sampled_out.push(...reply.body.sampled_out);
    total.rejected.push(...reply.body.rejected);
  }
  return total;
}

const sessions = (count: number) => Array.from({ length: count }, () => Bun.randomUUIDv7());

describe("sample rate", () => {
  test("0: every session is sampled out, each listed once in request order, and nothing is stored", async () => {
    const { projectId, key } = await projectWithPolicy("Never recorded", { sampleRate: 0 });
    const [a, b, c] = sessions(3) as [string, string, string];
    const invalid = replayChunk({ session_id: c, seq: 7, platform: "windows" });
    const chunks = [replayChunk({ session_id: a }), replayChunk({ session_id: b }), replayChunk({ session_id: a, seq: 1 }), invalid, replayChunk({ session_id: c, seq: 2 })];
    const reply = await postReplay(service.url, replayBody(key, chunks));
    // Validation comes first: an invalid chunk is answered as such whatever the sampling.
    expect([reply.status, reply.body]).toEqual([200, replayOk(0, [
      { session_id: c, seq: 7, reason: "invalid", message: "platform must be one of web, ios, android, react-native, tauri" },
    ], [a, b, c])]);
    await node().maintainReplays();
    expect([a, b, c].map((sessionId) => node().store.replays.session(projectId, "production", sessionId))).toEqual([null, null, null]);
  });

  test("0.5 over 400 sessions keeps between 150 and 250, exactly those whose hash point is under 0.5, and every chunk of a session gets its verdict", async () => {
    const { projectId, key } = await projectWithPolicy("Half recorded", { sampleRate: 0.5 });
    const ids = sessions(400);
    const first = await sendAll(key, ids.map((sessionId) => replayChunk({ session_id: sessionId, seq: 0 })));
    const second = await sendAll(key, ids.map((sessionId) => replayChunk({ session_id: sessionId, seq: 1 })));
    const expectedOut = ids.filter((sessionId) => sessionPoint(projectId, sessionId) >= 0.5);
    const kept = 400 - first.sampled_out.length;
    expect(kept).toBeGreaterThanOrEqual(150);
    expect(kept).toBeLessThanOrEqual(250);
    expect(first).toEqual({ accepted: kept, sampled_out: expectedOut, rejected: [] });
    expect(second).toEqual(first);
    await node().maintainReplays();
    const stored = ids.filter((sessionId) => node().store.replays.session(projectId, "production", sessionId)?.chunkCount === 2);
    expect(stored).toEqual(ids.filter((sessionId) => !expectedOut.includes(sessionId)));
  });

  test("the spend cap's keep ratio multiplies the rate: 0.5 x 0.5 keeps the sessions under 0.25, and new sessions 0.5 again once the cap is lifted", async () => {
    const { projectId, key } = await projectWithPolicy("Capped", { sampleRate: 0.5 });
    node().setKeepRatio(projectId, 0.5);
    const ids = sessions(400);
    const quarter = await sendAll(key, ids.map((sessionId) => replayChunk({ session_id: sessionId })));
    const expectedOut = ids.filter((sessionId) => sessionPoint(projectId, sessionId) >= 0.25);
    expect(400 - expectedOut.length).toBeGreaterThanOrEqual(60);
    expect(400 - expectedOut.length).toBeLessThanOrEqual(140);
    expect(quarter).toEqual({ accepted: 400 - expectedOut.length, sampled_out: expectedOut, rejected: [] });

    // The cap lifted: new sessions are read at the rate alone.
    node().setKeepRatio(projectId, 1);
    const later = sessions(400);
    const lifted = await sendAll(key, later.map((sessionId) => replayChunk({ session_id: sessionId })));
    const outAtHalf = later.filter((sessionId) => sessionPoint(projectId, sessionId) >= 0.5);
    expect(lifted).toEqual({ accepted: 400 - outAtHalf.length, sampled_out: outAtHalf, rejected: [] });
  });

  test("rate 1 (the default) records every session", async () => {
    const { key } = await projectWithPolicy("Always recorded", {});
    const ids = sessions(50);
    expect(await sendAll(key, ids.map((sessionId) => replayChunk({ session_id: sessionId })))).toEqual(replayOk(50));
  });
});

describe("flag gate", () => {
  const flagsPath = (projectId: string) => `/app/projects/${projectId}/flags`;
  async function createFlag(projectId: string, body: Record<string, unknown>) {
    const created = await owner.client.post(flagsPath(projectId), body);
    expect(created.status).toBe(201);
    const enabled = await owner.client.patch(`${flagsPath(projectId)}/${created.body.id}/environments/production`, { enabled: true });
    expect(enabled.status).toBe(200);
  }

  test("a flag_key naming no flag: every session is sampled out", async () => {
    const { key } = await projectWithPolicy("Missing flag", { flagKey: "no-such-flag" });
    const ids = sessions(2);
    const reply = await postReplay(service.url, replayBody(key, ids.map((sessionId) => replayChunk({ session_id: sessionId }))));
    expect([reply.status, reply.body]).toEqual([200, replayOk(0, [], ids)]);
  });

  test("a flag enabled for everyone: recorded", async () => {
    const { projectId, key } = await projectWithPolicy("Flag for all", { flagKey: "record-everyone" });
    await createFlag(projectId, { key: "record-everyone", name: "Record everyone" });
    const reply = await postReplay(service.url, replayBody(key, [replayChunk(), replayChunk({ distinct_id: "someone-else" })]));
    expect([reply.status, reply.body]).toEqual([200, replayOk(2)]);
  });

  test("a flag for one plan: its persons are recorded, others sampled out, in one request", async () => {
    const { projectId, key } = await projectWithPolicy("Flag for pro", { flagKey: "record-pro" });
    await createFlag(projectId, {
      key: "record-pro",
      name: "Record pro",
      rules: [{ properties: [{ type: "person", key: "plan", operator: "eq", value: "pro" }] }],
    });
    await sendAccepted(service.url, key, [nativeEvent({ distinct_id: "pro-user", $set: { plan: "pro" } }), nativeEvent({ distinct_id: "free-user", $set: { plan: "free" } })]);
    const free = replayChunk({ distinct_id: "free-user" });
    const unknown = replayChunk({ distinct_id: "unknown-user" });
    const reply = await postReplay(service.url, replayBody(key, [replayChunk({ distinct_id: "pro-user" }), free, unknown]));
    expect([reply.status, reply.body]).toEqual([200, replayOk(1, [], [free.session_id, unknown.session_id])]);
  });

  test("a flag switched off in the key's environment: sampled out", async () => {
    const { projectId, key } = await projectWithPolicy("Flag off", { flagKey: "record-off" });
    const created = await owner.client.post(flagsPath(projectId), { key: "record-off", name: "Off" });
    expect(created.status).toBe(201);
    const chunk = replayChunk();
    const reply = await postReplay(service.url, replayBody(key, [chunk]));
    expect([reply.status, reply.body]).toEqual([200, replayOk(0, [], [chunk.session_id])]);
  });
});
