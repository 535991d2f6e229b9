// GET /region/{code}/events/live read by the `eventsource` package from the npm registry (the
// WHATWG EventSource a browser or a Node service would use), with the region token sent through
// its fetch option: the backlog and then events in acceptance order arrive as named events.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { EventSource } from "eventsource";
import { sendAccepted } from "../ingest/helpers.ts";
import { at, livePath, shown, startLiveFixture, type LiveFixture } from "./live-events-fixture.ts";

let live: LiveFixture;
beforeAll(async () => {
  live = await startLiveFixture();
});
afterAll(() => live.service.close());

/** Collects named events until `count` have come, failing after a bounded wait. */
function collect(source: EventSource, names: string[], count: number): Promise<{ type: string; id: string; data: unknown }[]> {
  return new Promise((resolve, reject) => {
    const got: { type: string; id: string; data: unknown }[] = [];
    const timer = setTimeout(() => reject(new Error(`only ${got.length} of ${count} events arrived`)), 10_000);
    for (const name of names) {
      source.addEventListener(name, (message) => {
        got.push({ type: message.type, id: message.lastEventId, data: JSON.parse(message.data) });
        if (got.length === count) {
          clearTimeout(timer);
          resolve(got);
        }
      });
    }
    source.onerror = (error) => reject(new Error(`EventSource failed: ${error.message ?? error.type}`));
  });
}

test("an EventSource client gets the backlog newest first, then live events in order", async () => {
  const project = await live.newProject("EventSource");
  const earlier = [at({ distinct_id: "ann" }), at({ distinct_id: "bob", event: "<img src=x onerror=alert(1)>" })];
  await sendAccepted(live.service.url, project.keys.production!, earlier);
  const source = new EventSource(live.service.url + livePath(), {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, Authorization: `Bearer ${project.pii}` } }),
  });
  try {
    const backlog = collect(source, ["backlog"], 2);
    expect(await backlog).toEqual([
      { type: "backlog", id: live.id(2), data: shown(earlier[1]!) },
      { type: "backlog", id: live.id(1), data: shown(earlier[0]!) },
    ]);
    const later = [at({ distinct_id: "cat" }), at({ distinct_id: "dan" }), at({ distinct_id: "ann", event: "signed_out" })];
    const arriving = collect(source, ["event"], 3);
    await sendAccepted(live.service.url, project.keys.production!, later.slice(0, 2));
    await sendAccepted(live.service.url, project.keys.production!, later.slice(2));
    expect(await arriving).toEqual(later.map((sent, index) => ({ type: "event", id: live.id(3 + index), data: shown(sent) })));
  } finally {
    source.close();
  }
});
