// How our SDK delivers events when ingest is not answering 200: retried after a 503 or a 429
// (Retry-After honoured, the same event ids resent, so nothing is stored twice), dropped after
// another 4xx; batches of batch_size; and what is still queued when the page goes away leaves
// by sendBeacon, as plain JSON, in pieces a beacon takes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startIngestProxy, jsonOf, proxyCors } from "./ingest-proxy.ts";
import { startSdkBench, storedEventsOf, until, type SdkBench } from "./sdk-site.ts";

let bench: SdkBench;

beforeAll(async () => {
  bench = await startSdkBench();
}, 600_000);
afterAll(async () => {
  await bench?.dispose();
});

const page = (ingestUrl: string, distinctId: string, options: Record<string, unknown>, then = "") => ({
  script: `svcAnalytics.init(${JSON.stringify(bench.dedicated.key)}, ${JSON.stringify({ api_host: ingestUrl, flush_interval_ms: 100, bootstrap: { distinct_id: distinctId }, ...options })}); ${then}`,
});
const eventPath = "/ingest/eu/e";
const uuidsOf = (body: { batch: { uuid: string }[] }) => body.batch.map(({ uuid }) => uuid);

for (const [status, retryAfter] of [[503, "1"], [429, "1"], [503, null], [429, null]] as const) {
  test(`a ${status}${retryAfter ? ` with Retry-After: ${retryAfter}` : ""} is retried with the same events, which are stored once`, async () => {
    const failing = () => new Response(JSON.stringify({ error: "try later" }), {
      status,
      headers: { "Content-Type": "application/json", ...proxyCors, ...(retryAfter ? { "Retry-After": retryAfter } : {}) },
    });
    const proxy = startIngestProxy(bench.dedicated.service.url, (request, index) => (request.path === eventPath && index === 0 ? failing() : null));
    const distinctId = `retry-${status}-${retryAfter ?? "backoff"}`;
    const site = bench.site({ "/": page(proxy.ingestUrl, distinctId, {}, `svcAnalytics.capture("after_failure");`) });
    const tab = await bench.browser.newPage();
    await tab.goto(`${site.url}/`);
    const events = await storedEventsOf(bench.reader, distinctId, 2);
    expect(events.map(({ event }) => event)).toEqual(["$pageview", "after_failure"]);
    const posts = proxy.posts.filter(({ path }) => path === eventPath);
    expect(posts.length).toBe(2);
    expect(uuidsOf(jsonOf(posts[1]!))).toEqual(uuidsOf(jsonOf(posts[0]!)));
    const waitedMs = posts[1]!.at - posts[0]!.at;
    // Retry-After: its second; else the first backoff, 0.5 to 1 s with jitter.
    expect(waitedMs).toBeGreaterThanOrEqual(retryAfter ? 950 : 450);
    await tab.close();
    site.stop();
    proxy.stop();
  }, 60_000);
}

test("a 400 is not retried: those events are dropped and the next ones are sent", async () => {
  const refused = () => new Response(JSON.stringify({ error: "bad" }), { status: 400, headers: { "Content-Type": "application/json", ...proxyCors } });
  const proxy = startIngestProxy(bench.dedicated.service.url, (request, index) => (request.path === eventPath && index === 0 ? refused() : null));
  const site = bench.site({ "/": page(proxy.ingestUrl, "refused-once", {}) });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  await until("the refused request", () => proxy.posts.some(({ path }) => path === eventPath));
  await tab.evaluate(`svcAnalytics.capture("later")`);
  const events = await storedEventsOf(bench.reader, "refused-once", 1);
  expect(events.map(({ event }) => event)).toEqual(["later"]);
  const posts = proxy.posts.filter(({ path }) => path === eventPath).map((post) => jsonOf(post).batch.map(({ event }: { event: string }) => event));
  expect(posts).toEqual([["$pageview"], ["later"]]);
  await tab.close();
  site.stop();
  proxy.stop();
}, 60_000);

test("events queued when the page is hidden leave by sendBeacon as plain JSON, split under the beacon limit", async () => {
  // Never flushed by the timer, and five events per request: only the page hide sends them.
  const proxy = startIngestProxy(bench.dedicated.service.url);
  // Two beacons of about 31 KB: split, and together within the 64 KiB Chromium lets a page have in flight.
  const big = JSON.stringify("x".repeat(30_000));
  const hostile = JSON.stringify("<script>alert(1)</script>").replace(/</g, "\\u003c");
  const site = bench.site({
    "/": page(proxy.ingestUrl, "beacon-visitor", { flush_interval_ms: 600_000, batch_size: 5 }, `
      svcAnalytics.capture("one", { filler: ${big} });
      svcAnalytics.capture("two", { filler: ${big} });
      svcAnalytics.capture("three", { note: ${hostile} });`),
  });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  expect(proxy.posts.filter(({ path }) => path === eventPath)).toEqual([]);
  await tab.goto("about:blank");
  const events = await storedEventsOf(bench.reader, "beacon-visitor", 4);
  // Captured within a millisecond or two: stored times may tie, so compared by name.
  expect(events.map(({ event }) => event).sort()).toEqual(["$pageview", "one", "three", "two"]);
  expect(events.find(({ event }) => event === "three")!.properties.note).toBe("<script>alert(1)</script>");
  // Beacons: text/plain (no preflight), not compressed, each within the limit.
  const beacons = proxy.posts.filter(({ path }) => path === eventPath);
  expect(beacons.map(({ headers, body }) => [headers["content-type"], headers["content-encoding"] ?? null, body.length <= 60_000])).toEqual([
    ["text/plain;charset=UTF-8", null, true], ["text/plain;charset=UTF-8", null, true],
  ]);
  expect(beacons.map((beacon) => jsonOf(beacon).batch.map(({ event }: { event: string }) => event))).toEqual([["$pageview", "one"], ["two", "three"]]);
  await tab.close();
  site.stop();
  proxy.stop();
}, 60_000);

test("a full batch starts sending without waiting for the timer, in requests of at most batch_size events", async () => {
  const proxy = startIngestProxy(bench.dedicated.service.url);
  const site = bench.site({
    "/": page(proxy.ingestUrl, "batch-visitor", { flush_interval_ms: 600_000, batch_size: 3, capture_pageview: false }, `
      for (const name of ["a", "b", "c", "d", "e", "f", "g"]) svcAnalytics.capture(name);`),
  });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  const events = await storedEventsOf(bench.reader, "batch-visitor", 7);
  // Captured within a millisecond or two: stored times may tie, so compared as a set.
  expect(events.map(({ event }) => event).sort()).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
  const requests = proxy.posts.filter(({ path }) => path === eventPath).map((post) => jsonOf(post).batch.map(({ event }: { event: string }) => event));
  expect(requests).toEqual([["a", "b", "c"], ["d", "e", "f"], ["g"]]);
  await tab.close();
  site.stop();
  proxy.stop();
}, 60_000);
