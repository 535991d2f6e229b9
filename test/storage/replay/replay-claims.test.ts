// Claims of replay chunks (storage/replay/replay-store.ts): a second copy of a chunk whose first
// copy is still being appended waits for it, and is a duplicate only once that copy is durable;
// a released claim (its request failed before storing) lets the copy be stored.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore } from "../../../storage/region-store.ts";
import { ReplayStore, type ReplayChunk } from "../../../storage/replay/replay-store.ts";

let dir: string;
let region: RegionStore;
let replays: ReplayStore;
const sessionId = Bun.randomUUIDv7();
const chunk: ReplayChunk = { sessionId, windowId: null, seq: 0, distinctId: "u", platform: "web", mode: "dom", events: [{ type: 4, timestamp: 1_000, data: { href: "https://a.example/" } }] };
const record = { projectId: "p", dataId: 1, environment: "production", receivedAt: 5_000, chunks: [chunk] };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "replay-claims-"));
  region = new RegionStore(join(dir, "region.sqlite"));
  replays = await ReplayStore.open(dir, region.replays, region.journalPath);
});
afterEach(async () => {
  await replays.close();
  region.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Whether `promise` has settled by the time the event loop is idle again. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await Bun.sleep(0);
  return settled;
}

test("a copy claimed while the first is being appended waits, then is a duplicate once the first is durable", async () => {
  expect(await replays.claim("p", "production", sessionId, 0)).toBe(true);
  const second = replays.claim("p", "production", sessionId, 0);
  expect(await settledYet(second)).toBe(false);
  await replays.append(record);
  expect(await second).toBe(false);
});

test("a copy waiting on a claim that is released (its request failed) is claimed and stored instead", async () => {
  expect(await replays.claim("p", "production", sessionId, 0)).toBe(true);
  const second = replays.claim("p", "production", sessionId, 0);
  replays.release("p", "production", [chunk]);
  expect(await second).toBe(true);
  await replays.append(record);
  expect([await replays.claim("p", "production", sessionId, 0), replays.known("p", "production", sessionId, 0)]).toEqual([false, true]);
});

test("another seq, session, environment or project is a chunk of its own", async () => {
  expect(await replays.claim("p", "production", sessionId, 0)).toBe(true);
  for (const [project, environment, session, seq] of [["p", "production", sessionId, 1], ["p", "production", Bun.randomUUIDv7(), 0], ["p", "staging", sessionId, 0], ["q", "production", sessionId, 0]] as const) {
    expect(await replays.claim(project, environment, session, seq)).toBe(true);
  }
});

test("after a flush the chunk is known through the index, and after a deletion it may come again", async () => {
  expect(await replays.claim("p", "production", sessionId, 0)).toBe(true);
  await replays.append(record);
  expect((await replays.flush()).chunks).toBe(1);
  expect(await replays.claim("p", "production", sessionId, 0)).toBe(false);
  await replays.deleteSessions([region.replays.session("p", "production", sessionId)!]);
  expect([region.replays.session("p", "production", sessionId), await replays.claim("p", "production", sessionId, 0)]).toEqual([null, true]);
});
