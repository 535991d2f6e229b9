// Session replay end to end (issue 40, "Done when"): a customer's two-page site loads our SDK
// from the service with recording on; a person types into an input (masked by default), clicks
// through to the second page, clicks there and leaves. Then: the recording is listed with the
// right duration, URLs and counts; its blocks, replayed with @rrweb/replay in a second page,
// rebuild the DOM the person saw; the typed value is in no file of the data directory; the
// SDK's events are stored with the recording's session id; and the console's player shows
// them on its timeline.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { startDataPages, waitForCount, type DataPagesFixture } from "../console/data-pages-fixture.ts";
import { until } from "./sdk-site.ts";

let fixture: DataPagesFixture;
const typedSecret = "my-secret-4711";
const distinctId = "replay-visitor";

/** Serves `routes` (path to HTML or script) on an origin of its own. */
function serveSite(routes: Record<string, { type: string; body: string }>) {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const route = routes[new URL(request.url).pathname];
      return route ? new Response(route.body, { headers: { "content-type": route.type } }) : new Response("not found", { status: 404 });
    },
  });
  return { url: server.url.href.replace(/\/$/, ""), stop: () => server.stop(true) };
}

const html = (body: string) => ({ type: "text/html; charset=utf-8", body });

/** The customer's pages: each loads the SDK by script tag and records, as docs/sdk.md shows. */
function customerSite() {
  const sdk = (title: string, body: string) => html(`<!doctype html><html><head><title>${title}</title>
<script src="${fixture.service.url}/sdk/v1/analytics.js"></script></head><body>${body}
<script>svcAnalytics.init(${JSON.stringify(fixture.key)}, ${JSON.stringify({
    api_host: `${fixture.service.url}/ingest/eu`, flush_interval_ms: 200, bootstrap: { distinct_id: distinctId }, session_recording: { enabled: true },
  })});</script></body></html>`);
  return serveSite({
    "/": sdk("Sign in", `<h1>Sign in</h1><form><label>Card number <input id="card" type="text"></label></form><p>Welcome back</p><a id="next" href="/two">Continue</a>`),
    "/two": sdk("Basket", `<h1>Basket</h1><ul><li>Tea</li><li>Cups</li></ul><button id="buy" onclick="svcAnalytics.capture('purchase', {items: 2})">Buy</button><p id="status">Ready</p>`),
  });
}

/** The elements under body as (tag, own text) pairs: what the person saw, whatever attributes the rebuild adds. */
const bodyOutline = () => `(() => {
  const walk = (element) => [...element.children].flatMap((child) => {
    const tag = child.tagName.toLowerCase();
    if (tag === "script" || tag === "noscript") return [];
    const text = [...child.childNodes].filter((node) => node.nodeType === 3).map((node) => node.textContent.trim()).join(" ").trim();
    const value = tag === "input" ? child.value : undefined;
    return [[tag, text, value ?? null], ...walk(child)];
  });
  return walk(DOCUMENT.body);
})()`;

/** Every file under `dir` as text, zstd and gzip files decompressed. */
function filesText(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).flatMap((name) => {
    const path = join(dir, name);
    if (!statSync(path).isFile()) return [];
    let bytes: Uint8Array = readFileSync(path);
    if (path.endsWith(".zst")) bytes = Bun.zstdDecompressSync(bytes);
    else if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
    return [{ path, text: Buffer.from(bytes).toString("latin1") }];
  });
}

beforeAll(async () => {
  fixture = await startDataPages("Replay end to end", { REPLAY_FLUSH_INTERVAL_MS: "0" });
}, 120_000);
afterAll(() => fixture?.close());

test("a recorded visit is listed, replays to the same DOM, keeps the typed value out of storage, and its events are on the player's timeline", async () => {
  const site = customerSite();
  const visitor = await fixture.browser.newContext();
  const tab = await visitor.newPage();
  const startedAt = Date.now();
  await tab.goto(`${site.url}/`);
  await tab.waitForFunction("window.svcAnalyticsRecorder !== undefined");
  await tab.locator("#card").pressSequentially(typedSecret);
  const seenFirst = await tab.evaluate(bodyOutline().replace("DOCUMENT", "document"));
  await tab.click("#next");
  await tab.waitForURL(`${site.url}/two`);
  await tab.waitForFunction("window.svcAnalyticsRecorder !== undefined");
  await tab.click("#buy");
  const seen = await tab.evaluate(bodyOutline().replace("DOCUMENT", "document"));
  const sessionId = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  await visitor.close();
  const leftAt = Date.now();

  // Listed once the chunks the page sent while leaving are compacted.
  const node = fixture.service.nodes.get("eu")!;
  const listed = await until("the whole visit listed", async () => {
    await node.maintainReplays();
    const reply = await fixture.region("GET", `/replays?distinct_id=${distinctId}`);
    const replay = reply.body.results[0];
    return replay?.page_count === 2 && replay.click_count === 2 && replay;
  });
  // The events the page sent as it left may arrive after its last chunks.
  const detail = await until("the session's three events", async () => {
    const { body } = await fixture.region("GET", `/replays/${sessionId}`);
    return body.events.length === 3 && body;
  });
  const blocks = await Promise.all(detail.blocks.map(async (block: { name: string }) => (await fixture.region("GET", `/replays/${sessionId}/blocks/${block.name}`)).body.events));
  const events = blocks.flat() as { type: number; timestamp: number; data: { source?: number } }[];
  const inputs = events.filter((event) => event.type === 3 && event.data.source === 5).length;
  expect(listed).toEqual({
    id: sessionId, distinct_id: distinctId, person_id: expect.any(String), environment: "production", platform: "web", mode: "dom",
    start_time: new Date(events[0]!.timestamp).toISOString(), end_time: new Date(events.at(-1)!.timestamp).toISOString(),
    duration_seconds: (events.at(-1)!.timestamp - events[0]!.timestamp) / 1000, active_seconds: expect.any(Number),
    first_url: `${site.url}/`, urls: [`${site.url}/`, `${site.url}/two`], page_count: 2, click_count: 2, keypress_count: inputs,
    console_error_count: 0, chunk_count: expect.any(Number), event_count: events.length, size_bytes: detail.size_bytes,
  });
  expect([inputs > 0, listed.duration_seconds > 0, listed.duration_seconds <= (leftAt - startedAt) / 1000, listed.active_seconds > 0]).toEqual([true, true, true, true]);

  // The SDK's events are native events of the recording's session, on its timeline.
  expect(detail.events.map((event: { event: string; current_url: string | null }) => [event.event, event.current_url])).toEqual([
    ["$pageview", `${site.url}/`], ["$pageview", `${site.url}/two`], ["purchase", `${site.url}/two`],
  ]);

  // The blocks replayed with @rrweb/replay in a page of their own rebuild what the person saw, the typed value masked.
  const built = await Bun.build({ entrypoints: [join(import.meta.dir, "rrweb-player-entry.ts")], target: "browser" });
  expect(built.success).toBe(true);
  const player = serveSite({ "/": html(`<!doctype html><html><body><div id="root"></div><script src="/player.js"></script></body></html>`), "/player.js": { type: "text/javascript", body: await built.outputs[0]!.text() } });
  const playerTab = await fixture.browser.newPage();
  await playerTab.goto(`${player.url}/`);
  const masked = (outline: unknown) => (outline as [string, string, string | null][]).map(([tag, text, value]) => [tag, text, value === null ? null : "*".repeat(value.length)]);
  const rebuiltAt = async (offsetMs: number) => {
    await playerTab.evaluate(`window.replayTo(${JSON.stringify(events)}, ${offsetMs})`);
    return playerTab.evaluate(bodyOutline().replace("DOCUMENT", "window.replayedDocument()"));
  };
  // The first page as it was just before the second one began to load, then the second page at the end.
  // The second page's first event: its DomContentLoaded, Load or Meta (rrweb's types 0, 1, 4).
  const secondPage = events.findIndex((event, index) => index > 1 && event.type !== 2 && event.type !== 3);
  expect(await rebuiltAt(events[secondPage - 1]!.timestamp - events[0]!.timestamp)).toEqual(masked(seenFirst));
  expect(seenFirst).toContainEqual(["input", "", typedSecret]);
  expect(await rebuiltAt(events.at(-1)!.timestamp - events[0]!.timestamp)).toEqual(masked(seen));
  await playerTab.close();
  player.stop();

  // Nowhere on disk: not in the replay log or blocks, the event log, segments, or any other file.
  await fixture.service.nodes.get("eu")!.events.flush();
  const holding = filesText(fixture.service.dataDir).filter(({ text }) => text.includes(typedSecret)).map(({ path }) => path);
  expect(holding).toEqual([]);

  // The console's player shows the session's events on its timeline.
  const page: Page = await fixture.open(`/replays/${sessionId}`, "Recording");
  await waitForCount(page, ".replay-event-list li", 3);
  expect(await page.locator(".replay-event-list .replay-event-name").allInnerTexts()).toEqual(["$pageview", "$pageview", "purchase"]);
  expect(await page.locator(".replay-event-list .replay-event-url").allInnerTexts()).toEqual([`${site.url}/`, `${site.url}/two`, `${site.url}/two`]);
  site.stop();
}, 120_000);
