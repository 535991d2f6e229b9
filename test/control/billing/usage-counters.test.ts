// The counters billing meters from: stored events (after sampling) and received ones, replay
// recordings counted once each (at their first chunk), read through GET billing, and kept
// across a restart; and the counter store's hour boundaries at their edges.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { ConsoleClient } from "../../helpers/client.ts";
import { nativeEvents, sendAccepted } from "../../ingest/helpers.ts";
import { postReplay, replayBody, replayChunk, replayOk, rejection } from "../../ingest/replay/helpers.ts";
import { UsageCounterStore, hourMs } from "../../../storage/usage-counters.ts";

let service: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Metered owner");
});
afterAll(async () => {
  await service.close();
});

describe("metering through GET billing", () => {
  test("events and recordings stored are counted (a recording once, a duplicate chunk not at all) and survive a restart", async () => {
    const { public_keys } = await createProject(owner, "Metered");
    const key = public_keys[0].key;
    await sendAccepted(service.url, key, nativeEvents(5));
    const first = replayChunk();
    const second = replayChunk();
    const stored = await postReplay(service.url, replayBody(key, [first, { ...first, seq: 1 }, second]));
    expect([stored.status, stored.body]).toEqual([200, replayOk(3)]);
    const again = await postReplay(service.url, replayBody(key, [first]));
    expect([again.status, again.body]).toEqual([200, replayOk(0, [rejection(first, "duplicate", "this chunk (session_id, seq) was stored before; resending it is safe")])]);

    const usage = (client: ConsoleClient) => client.get(`/app/orgs/${owner.orgId}/billing`).then((reply) => ({ ...reply.body.usage, read_at: null }));
    const expected = { events: 5, events_received: 5, replay_recordings: 2, read_at: null, unreachable_regions: [] };
    expect(await usage(owner.client)).toEqual(expected);

    service = await service.restart();
    const client = new ConsoleClient(service.url);
    client.cookie = owner.client.cookie;
    expect(await usage(client)).toEqual(expected);
  });
});

describe("UsageCounterStore", () => {
  const hour = 493_000;
  const store = () => new UsageCounterStore(new Database(":memory:"));

  test("an hour counts in a range when it starts inside it: a boundary inside an hour gives that hour to the earlier range", () => {
    const counters = store();
    counters.add("p1", hour * hourMs + 10, { eventsReceived: 4, eventsStored: 1, replayRecordings: 2 });
    const counted = [{ projectId: "p1", eventsReceived: 4, eventsStored: 1, replayRecordings: 2 }];
    const none = [{ projectId: "p1", eventsReceived: 0, eventsStored: 0, replayRecordings: 0 }];
    expect(counters.totals(["p1"], hour * hourMs, (hour + 1) * hourMs)).toEqual(counted);
    expect(counters.totals(["p1"], hour * hourMs + 1, (hour + 2) * hourMs)).toEqual(none);
    expect(counters.totals(["p1"], (hour - 1) * hourMs, hour * hourMs + 1)).toEqual(counted);
    expect(counters.totals(["p1"], (hour - 1) * hourMs, hour * hourMs)).toEqual(none);
  });

  test("deltas add up per project and hour; a negative delta takes a failed write back", () => {
    const counters = store();
    counters.add("p1", hour * hourMs, { eventsReceived: 10, eventsStored: 3, replayRecordings: 0 });
    counters.add("p1", (hour + 1) * hourMs, { eventsReceived: 5, eventsStored: 5, replayRecordings: 1 });
    counters.add("p2", hour * hourMs, { eventsReceived: 7, eventsStored: 7, replayRecordings: 0 });
    counters.add("p1", hour * hourMs, { eventsReceived: -10, eventsStored: -3, replayRecordings: 0 });
    expect(counters.totals(["p1", "p2", "p3"], hour * hourMs, (hour + 2) * hourMs)).toEqual([
      { projectId: "p1", eventsReceived: 5, eventsStored: 5, replayRecordings: 1 },
      { projectId: "p2", eventsReceived: 7, eventsStored: 7, replayRecordings: 0 },
      { projectId: "p3", eventsReceived: 0, eventsStored: 0, replayRecordings: 0 },
    ]);
  });
});
