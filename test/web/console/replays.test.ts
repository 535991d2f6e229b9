// The replay pages in headless Chromium against the real service: recordings sent through
// POST /r (with a real full snapshot) and events of the same sessions through /batch, then
// listed, filtered, played (the recorded heading read from the player's iframe), sought from
// the session's timeline, sped up, skipping inactivity; reached from a person's profile and from
// an event; the recording settings with the region's refusals; hostile ids and URLs as text.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Frame, Page } from "playwright-core";
import { screenshotThemes } from "../../helpers/console-browser.ts";
import { postIngest } from "../../ingest/helpers.ts";
import { clickEvent, consoleError, metaEvent, moveEvent, replayBody, replayOk, rrweb } from "../../ingest/replay/helpers.ts";
import { expectNothingRan, hostile, nativeEvent, startDataPages, waitForCount, type DataPagesFixture } from "./data-pages-fixture.ts";

let fixture: DataPagesFixture;
let page: Page;

/** Whole seconds two hours ago: the recordings' clock. */
const t0 = Math.floor(Date.now() / 1000) * 1000 - 2 * 3_600_000;
const [checkout, hostileSession] = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
const hostileUrl = `https://shop.example/${hostile.markup}`;

/** rrweb-snapshot's serialized nodes: document → html → (head, body → h1 "Checkout"), each with an id. */
const checkoutPage = {
  type: 0,
  id: 1,
  childNodes: [
    { type: 1, id: 2, name: "html", publicId: "", systemId: "" },
    {
      type: 2, id: 3, tagName: "html", attributes: {},
      childNodes: [
        { type: 2, id: 4, tagName: "head", attributes: {}, childNodes: [] },
        { type: 2, id: 5, tagName: "body", attributes: {}, childNodes: [{ type: 2, id: 6, tagName: "h1", attributes: {}, childNodes: [{ type: 3, id: 7, textContent: "Checkout" }] }] },
      ],
    },
  ],
};
const snapshotOf = (timestamp: number) => ({ type: rrweb.fullSnapshot, timestamp, data: { node: checkoutPage, initialOffset: { left: 0, top: 0 } } });
const utcDay = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
const chunk = (sessionId: string, seq: number, distinctId: string, events: unknown[]) => ({ session_id: sessionId, seq, distinct_id: distinctId, platform: "web", mode: "dom", events });

beforeAll(async () => {
  fixture = await startDataPages("Replay shop", { REPLAY_FLUSH_INTERVAL_MS: "0" });
  // The checkout session: a minute on one page, in two chunks; its events name the session.
  const chunks = [
    chunk(checkout, 0, "buyer", [metaEvent(t0, "https://shop.example/checkout"), snapshotOf(t0 + 1), clickEvent(t0 + 1_000)]),
    chunk(checkout, 1, "buyer", [clickEvent(t0 + 31_000), moveEvent(t0 + 60_000)]),
    chunk(hostileSession, 0, hostile.markup, [metaEvent(t0 + 600_000, hostileUrl), snapshotOf(t0 + 600_001), consoleError(t0 + 601_000, hostile.scriptEnd), clickEvent(t0 + 605_000)]),
  ];
  const reply = await postIngest(fixture.service.url, replayBody(fixture.key, chunks), { path: "/r" });
  expect([reply.status, reply.body]).toEqual([200, replayOk(3)]);
  await fixture.send([
    nativeEvent({ event: "$pageview", distinct_id: "buyer", session_id: checkout, timestamp: new Date(t0 + 1).toISOString(), properties: { $current_url: "https://shop.example/checkout" } }),
    nativeEvent({ event: "purchase", distinct_id: "buyer", session_id: checkout, timestamp: new Date(t0 + 31_000).toISOString(), properties: { $current_url: "https://shop.example/checkout" } }),
    nativeEvent({ event: hostile.markup, distinct_id: hostile.markup, session_id: hostileSession, timestamp: new Date(t0 + 602_000).toISOString(), properties: {} }),
  ]);
  await fixture.service.nodes.get("eu")!.maintainReplays();
}, 120_000);
afterAll(() => fixture?.close());

/** The list's rows as the table shows them: person, duration, active, first URL, pages, clicks, keys, errors, platform. */
const shownRows = () =>
  page.locator(".data-table tbody tr").evaluateAll((rows) => rows.map((tr) => [...tr.querySelectorAll("td")].slice(1).map((td) => td.textContent)));
const checkoutRow = ["buyer", "1m 00s", "3s", "https://shop.example/checkout", "1", "2", "0", "None", "web"];
const hostileRow = [hostile.markup, "5s", "1s", hostileUrl, "1", "1", "0", "1 error", "web"];
/**
 * Chrome's word that the player's iframe (sandboxed without allow-scripts) refused to run code in
 * its own realm: rrweb replaying the pointer calls the rebuilt document's `querySelectorAll(…).forEach`,
 * a built-in of that realm. The sandbox doing its job, not a fault of the page.
 */
const sandboxRefusal = /^console error: Blocked script execution in '[^']+\/replays\/[0-9a-f-]+' because the document's frame is sandboxed and the 'allow-scripts' permission is not set\.$/;
const timeShown = () => page.getByLabel("Elapsed and total time").textContent();
const waitForTime = (text: string) => page.getByLabel("Elapsed and total time").filter({ hasText: text }).waitFor();

/** The player's iframe, once the recorded page is built in it. */
async function recordedFrame(): Promise<Frame> {
  const iframe = await page.waitForSelector(".replay-stage iframe");
  const frame = (await iframe.contentFrame())!;
  await frame.waitForSelector("h1");
  return frame;
}

test("Replays lists the recordings newest first, hostile values as text", async () => {
  page = await fixture.open("/replays", "Replays");
  await waitForCount(page, ".data-table tbody tr", 2);
  expect(await page.getByRole("link", { name: "Replays" }).getAttribute("aria-current")).toBe("page");
  expect(await shownRows()).toEqual([hostileRow, checkoutRow]);
  const { body } = await fixture.region("GET", "/replays");
  expect(body.results.map((replay: { id: string }) => replay.id)).toEqual([hostileSession, checkout]);
  await expectNothingRan(page);
  await screenshotThemes(page, "replays-list");
});

test("each filter narrows the list as GET /replays does", async () => {
  const cases: [Record<string, string>, string[][]][] = [
    [{ distinct_id: "buyer" }, [checkoutRow]],
    [{ url: "checkout" }, [checkoutRow]],
    [{ event: "purchase" }, [checkoutRow]],
    [{ duration_min: "10" }, [checkoutRow]],
    [{ duration_max: "10" }, [hostileRow]],
    // Days in the project's zone (UTC): both sessions start on or after t0's day.
    [{ from: utcDay(t0) }, [hostileRow, checkoutRow]],
    [{ from: utcDay(t0 - 86_400_000), to: utcDay(t0 + 86_400_000) }, [hostileRow, checkoutRow]],
  ];
  for (const [fields, rows] of cases) {
    page = await fixture.open("/replays", "Replays");
    await waitForCount(page, ".data-table tbody tr", 2);
    for (const [name, value] of Object.entries(fields)) await page.fill(`[name="${name}"]`, value);
    await page.getByRole("button", { name: "Filter" }).click();
    await waitForCount(page, ".data-table tbody tr", rows.length);
    expect({ fields, rows: await shownRows() }).toEqual({ fields, rows });
    expect(new URLSearchParams(await page.evaluate(() => (globalThis as unknown as { location: { search: string } }).location.search))).toEqual(new URLSearchParams(fields));
  }

  await page.getByRole("link", { name: "Clear" }).click();
  await waitForCount(page, ".data-table tbody tr", 2);
  await page.getByLabel("Only with console errors").check();
  await page.selectOption('[name="platform"]', "web");
  await page.getByRole("button", { name: "Filter" }).click();
  await waitForCount(page, ".data-table tbody tr", 1);
  expect(await shownRows()).toEqual([hostileRow]);

  await page.selectOption('[name="platform"]', "ios");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("No recordings match", { exact: true }).waitFor();

  page = await fixture.open(`/replays?to=${utcDay(t0 - 86_400_000)}`, "Replays");
  await page.getByText("No recordings match", { exact: true }).waitFor();
});

test("the player plays the recorded page, seeks from the timeline, changes speed and skips inactivity", async () => {
  page = await fixture.open("/replays?distinct_id=buyer", "Replays");
  await waitForCount(page, ".data-table tbody tr", 1);
  await page.locator(".data-table tbody tr a.cell-link").first().click();
  await page.waitForSelector('h1:text-is("Recording")');
  const frame = await recordedFrame();
  expect(await frame.locator("h1").textContent()).toBe("Checkout");
  // The defaults that keep recorded content from running.
  expect(await page.locator(".replay-stage iframe").getAttribute("sandbox")).toBe("allow-same-origin");

  // The session's events beside the player, as GET /replays/{id} lists them.
  const events = page.locator(".replay-event");
  expect(await events.evaluateAll((buttons) => buttons.map((button) => [...button.querySelectorAll("span")].map((span) => span.textContent)))).toEqual([
    ["0:00", "$pageview", "https://shop.example/checkout"],
    ["0:31", "purchase", "https://shop.example/checkout"],
  ]);
  expect(await page.locator(".replay-marker").count()).toBe(2);

  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await events.filter({ hasText: "purchase" }).click();
  await waitForTime("0:31 / 1:00");
  expect(await timeShown()).toBe("0:31 / 1:00");
  expect(await events.filter({ hasText: "purchase" }).getAttribute("aria-current")).toBe("step");
  await page.getByRole("button", { name: "Seek to $pageview at 0:00" }).click();
  await waitForTime("0:00 / 1:00");

  const speed = page.getByRole("group", { name: "Speed" });
  expect(await speed.getByRole("button", { pressed: true }).textContent()).toBe("1x");
  await speed.getByRole("button", { name: "8x" }).click();
  expect(await speed.getByRole("button", { pressed: true }).textContent()).toBe("8x");
  const skip = page.getByLabel("Skip inactivity");
  expect(await skip.isChecked()).toBe(true);
  await skip.uncheck();
  expect(await skip.isChecked()).toBe(false);
  // Playing on from 0:00 moves the time display on.
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await page.waitForFunction(() => !/^0:00 /.test((globalThis as unknown as { document: { querySelector(selector: string): { textContent: string } } }).document.querySelector(".replay-time")!.textContent));
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  expect(await frame.locator("h1").textContent()).toBe("Checkout");

  const facts = await page.locator(".fact").evaluateAll((rows) => rows.map((row) => [row.querySelector("dt")!.textContent, row.querySelector("dd")!.textContent]));
  expect(facts.filter(([term]) => term !== "Started")).toEqual([
    ["Person", "buyer"], ["Duration", "1m 00s"], ["Active", "3s"], ["Pages", "1"], ["Clicks", "2"], ["Keypresses", "0"], ["Console errors", "None"], ["Platform", "web (dom)"],
  ]);
  await events.filter({ hasText: "purchase" }).click();
  await waitForTime("0:31 / 1:00");
  await screenshotThemes(page, "replay-player");
});

test("a person's profile lists their recordings; their events link to the recording at the event's moment", async () => {
  const { body } = await fixture.region("GET", `/replays/${checkout}`);
  page = await fixture.open(`/persons/${body.person_id}`, "buyer");
  const recordings = page.locator("section", { has: page.locator("h2", { hasText: "Recordings" }) });
  await recordings.locator(".data-table tbody tr").first().waitFor();
  expect(await recordings.locator(".data-table tbody tr").count()).toBe(1);

  const purchase = page.locator(".event-row", { has: page.locator(".event-name", { hasText: "purchase" }) });
  const watch = purchase.getByRole("link", { name: "Watch recording" });
  expect(await watch.getAttribute("href")).toBe(`/projects/${fixture.projectId}/replays/${checkout}?at=${encodeURIComponent(new Date(t0 + 31_000).toISOString())}`);

  await recordings.locator(".data-table tbody tr a.cell-link").first().click();
  expect(await (await recordedFrame()).locator("h1").textContent()).toBe("Checkout");
  expect(await timeShown()).toMatch(/ \/ 1:00$/);
});

test("a live event of a session links to its recording", async () => {
  page = await fixture.open("/live", "Live events");
  await page.locator(".data-table tbody tr", { hasText: "purchase" }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  await dialog.getByRole("link", { name: "Watch recording" }).click();
  await page.waitForSelector('h1:text-is("Recording")');
  expect(await (await recordedFrame()).locator("h1").textContent()).toBe("Checkout");
  // Opened at the event: the player starts at 0:31 or later.
  const [elapsed] = (await timeShown())!.split(" / ");
  expect(Number(elapsed!.replace(":", "."))).toBeGreaterThanOrEqual(0.31);
});

test("a hostile recording plays with its values as text and runs nothing", async () => {
  page = await fixture.open(`/replays/${hostileSession}`, "Recording");
  await recordedFrame();
  await page.locator(".replay-event-name", { hasText: hostile.markup }).waitFor();
  expect(await page.locator(".replay-url").allTextContents()).toEqual([hostileUrl]);
  expect(await page.locator(".fact", { hasText: "Person" }).locator("dd").textContent()).toBe(hostile.markup);
  await expectNothingRan(page);
});

test("a session without a recording says so", async () => {
  page = await fixture.open(`/replays/${Bun.randomUUIDv7()}`, "Recording");
  await page.getByText("No recording of this session", { exact: true }).waitFor();
});

test("the recording settings show the region's refusal at its field, then save", async () => {
  page = await fixture.open("/replays", "Replays");
  await page.getByText("Recording settings", { exact: true }).click();
  await page.fill('[name="sample_rate"]', "2");
  await page.getByRole("button", { name: "Save settings" }).click();
  const refusal = await fixture.region("PUT", "/replays/policy", { sample_rate: 2, min_duration_ms: 0, flag_key: null });
  expect(refusal.status).toBe(400);
  const message = refusal.body.error.message as string;
  await page.locator(".field-error").filter({ hasText: message.charAt(0).toUpperCase() + message.slice(1) }).waitFor();

  await page.fill('[name="sample_rate"]', "0.5");
  await page.fill('[name="min_duration_ms"]', "2000");
  await page.fill('[name="flag_key"]', "record-me");
  await page.getByRole("button", { name: "Save settings" }).click();
  await page.getByText("Saved. New sessions are recorded by these settings.", { exact: true }).waitFor();
  const { status, body } = await fixture.region("GET", "/replays/policy");
  expect([status, body]).toEqual([200, { sample_rate: 0.5, min_duration_ms: 2000, flag_key: "record-me", updated_at: expect.any(String) }]);
  expect(fixture.tab.problems.filter((problem) => !problem.includes("status of 400") && !sandboxRefusal.test(problem))).toEqual([]);
});
