// The replay listings read a page at a time in headless Chromium: 55 recordings of one person,
// the Replays list 50 at a time and the person's profile 10 at a time, each with "Load more"
// until the region's cursor ends; the profile's "Open in Replays" lists the person's recordings.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { screenshotThemes } from "../../helpers/console-browser.ts";
import { postIngest } from "../../ingest/helpers.ts";
import { clickEvent, pageStart, replayBody, replayOk } from "../../ingest/replay/helpers.ts";
import { nativeEvent, startDataPages, waitForCount, type DataPagesFixture } from "./data-pages-fixture.ts";

let fixture: DataPagesFixture;
const recordings = 55;
/** The most chunks one POST /r takes. */
const chunksPerRequestMax = 50;
const t0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const rows = ".data-table tbody tr";

beforeAll(async () => {
  fixture = await startDataPages("Busy shop", { REPLAY_FLUSH_INTERVAL_MS: "0" });
  const chunks = Array.from({ length: recordings }, (_, index) => {
    const start = t0 + index * 10_000;
    return { session_id: Bun.randomUUIDv7(), seq: 0, distinct_id: "regular", platform: "web", mode: "dom", events: [...pageStart(start, `https://shop.example/${index}`), clickEvent(start + 2_000)] };
  });
  for (let from = 0; from < chunks.length; from += chunksPerRequestMax) {
    const batch = chunks.slice(from, from + chunksPerRequestMax);
    const reply = await postIngest(fixture.service.url, replayBody(fixture.key, batch), { path: "/r" });
    expect([reply.status, reply.body]).toEqual([200, replayOk(batch.length)]);
  }
  // The person the profile shows comes from an event.
  await fixture.send([nativeEvent({ event: "$pageview", distinct_id: "regular" })]);
  await fixture.service.nodes.get("eu")!.maintainReplays();
}, 120_000);
afterAll(() => fixture?.close());

/** The first URL of each row, newest first. */
const shownUrls = () => fixture.tab.page.locator(`${rows} .replay-url`).allTextContents();
const newestFirst = (count: number) => Array.from({ length: count }, (_, index) => `https://shop.example/${recordings - 1 - index}`);

test("Replays shows 50 recordings, then the rest with Load more", async () => {
  const page = await fixture.open("/replays", "Replays");
  await waitForCount(page, rows, 50);
  expect(await shownUrls()).toEqual(newestFirst(50));
  await page.getByRole("button", { name: "Load more" }).click();
  await waitForCount(page, rows, recordings);
  expect(await shownUrls()).toEqual(newestFirst(recordings));
  expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0);
});

test("a person's profile shows their recordings 10 at a time, and opens them all in Replays", async () => {
  const { body } = await fixture.region("GET", "/replays?limit=1");
  const page = await fixture.open(`/persons/${body.results[0].person_id}`, "regular");
  const section = page.locator("section", { has: page.locator("h2", { hasText: "Recordings" }) });
  await waitForCount(page, `section ${rows} .replay-url`, 10);
  expect(await section.locator(".replay-url").allTextContents()).toEqual(newestFirst(10));
  await section.getByRole("button", { name: "Load more recordings" }).click();
  await waitForCount(page, `section ${rows} .replay-url`, 20);
  expect(await section.locator(".replay-url").allTextContents()).toEqual(newestFirst(20));
  await screenshotThemes(page, "person-recordings");

  await section.getByRole("link", { name: "Open in Replays" }).click();
  await page.waitForSelector('h1:text-is("Replays")');
  await waitForCount(page, rows, 50);
  expect(await page.inputValue('[name="person_id"]')).toBe(body.results[0].person_id);
  expect(fixture.tab.problems).toEqual([]);
});
