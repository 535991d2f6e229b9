// The billing counters capture writes (storage/usage-counters.ts) when a write fails part way:
// a count that failed is not taken back (it was never added), and a replay chunk that is
// stored is always counted (its retry would be refused as a duplicate).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestService } from "../helpers/service.ts";
import { WalUnavailableError } from "../../storage/wal.ts";
import type { UsageDelta } from "../../storage/usage-counters.ts";
import { nativeBody, nativeEvents, ok, postIngest } from "./helpers.ts";
import { postReplay, replayBody, replayChunk, replayOk, startReplayService } from "./replay/helpers.ts";

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
const totals = () => {
  const { eventsReceived, eventsStored, replayRecordings } = node().store.usage.totals([projectId], 0, Date.now() + 3_600_000)[0]!;
  return { eventsReceived, eventsStored, replayRecordings };
};

/** The next count written fails like a database that cannot write (the ones after it are written); the delta tried is recorded. */
function failNextCount(): UsageDelta[] {
  const usage = node().store.usage;
  const add = usage.add;
  const tried: UsageDelta[] = [];
  usage.add = (id, atMs, delta) => {
    tried.push(delta);
    usage.add = add;
    throw new Error("disk I/O error");
  };
  return tried;
}

describe("event capture", () => {
  test("a count that fails is not taken back: the counters stay as they were, and the retry counts once", async () => {
    const before = totals();
    const tried = failNextCount();
    const events = nativeEvents(3);
    const failed = await postIngest(service.url, nativeBody(key, events));
    expect(failed.status).toBe(500);
    expect(tried).toEqual([{ eventsReceived: 3, eventsStored: 3, replayRecordings: 0 }]);
    expect(totals()).toEqual(before);
    const retried = await postIngest(service.url, nativeBody(key, events));
    expect([retried.status, retried.body]).toEqual([200, ok(3)]);
    expect(totals()).toEqual({ ...before, eventsReceived: before.eventsReceived + 3, eventsStored: before.eventsStored + 3 });
  });
});

describe("replay capture", () => {
  test("a count that fails leaves the chunk unstored and unclaimed: the retry is stored and counted once", async () => {
    const before = totals();
    failNextCount();
    const chunk = replayChunk({ seq: 0 });
    const failed = await postReplay(service.url, replayBody(key, [chunk]));
    expect(failed.status).toBe(500);
    expect(node().store.replays.session(projectId, "production", chunk.session_id)).toBeNull();
    const retried = await postReplay(service.url, replayBody(key, [chunk]));
    expect([retried.status, retried.body]).toEqual([200, replayOk(1)]);
    expect(totals()).toEqual({ ...before, replayRecordings: before.replayRecordings + 1 });
  });

  test("an append that fails takes its count back: the retry is stored and counted once", async () => {
    const before = totals();
    const replays = node().replays;
    const append = replays.append;
    replays.append = async (record) => {
      replays.append = append;
      replays.release(record.projectId, record.environment, record.chunks);
      throw new WalUnavailableError("the replay log's disk is full");
    };
    const chunk = replayChunk({ seq: 0 });
    const failed = await postReplay(service.url, replayBody(key, [chunk]));
    expect([failed.status, failed.body]).toEqual([503, { error: "the replay log cannot accept writes right now" }]);
    expect(totals()).toEqual(before);
    const retried = await postReplay(service.url, replayBody(key, [chunk]));
    expect([retried.status, retried.body]).toEqual([200, replayOk(1)]);
    expect(totals()).toEqual({ ...before, replayRecordings: before.replayRecordings + 1 });
  });
});
