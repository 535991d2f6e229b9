// The live events page in headless Chromium against the real service: events sent through
// ingest arrive newest on top; paused, new ones are counted and not shown until resumed; the
// route's filters (event name, distinct id) and the browser's "properties contain"; an event's
// detail with its properties and its raw JSON; the connection's state when the region fails;
// and hostile names and values shown as text with nothing run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { screenshotThemes } from "../../helpers/console-browser.ts";
import { expectNothingRan, hostile, nativeEvent, startDataPages, waitForCount, type DataPagesFixture } from "./data-pages-fixture.ts";

let fixture: DataPagesFixture;
let page: Page;

beforeAll(async () => {
  fixture = await startDataPages("Live shop");
}, 120_000);
afterAll(() => fixture?.close());

/** The event names of the list's rows, top to bottom. */
const shownNames = () => page.locator(".data-table tbody tr td:first-child").allTextContents();
const row = (name: string) => page.locator(".data-table tbody tr").filter({ has: page.locator("td:first-child").getByText(name, { exact: true }) });
const shown = (text: string) => page.getByText(text, { exact: true }).first().waitFor();

test("the page opens live and shows events sent before it opened, newest first", async () => {
  await fixture.send([nativeEvent({ event: "first_visit", distinct_id: "ann" })]);
  await fixture.send([nativeEvent({ event: "second_visit", distinct_id: "ann" })]);
  page = await fixture.open("/live", "Live events");
  await page.waitForSelector(".live-status-live");
  await row("second_visit").waitFor();
  expect(await shownNames()).toEqual(["second_visit", "first_visit"]);
  expect(await page.getByRole("link", { name: "Live events" }).getAttribute("aria-current")).toBe("page");
});

test("events sent while the page is open arrive on top, in the order they were stored", async () => {
  await fixture.send([nativeEvent({ event: "signed_up", distinct_id: "bea", properties: { plan: "pro", seats: 3 } }), nativeEvent({ event: "purchased", distinct_id: "bea", properties: { plan: "pro" } })]);
  await row("purchased").waitFor();
  expect(await shownNames()).toEqual(["purchased", "signed_up", "second_visit", "first_visit"]);
  expect(await page.textContent(".table-foot")).toBe("4 events");
  await screenshotThemes(page, "live-events");
});

test("paused, new events are counted and not shown; resuming puts them on top", async () => {
  await page.getByRole("button", { name: "Pause" }).click();
  await shown("Paused: no new events yet.");
  await fixture.send([nativeEvent({ event: "held_one", distinct_id: "cy" }), nativeEvent({ event: "held_two", distinct_id: "cy" })]);
  await shown("Paused: 2 new events since.");
  expect(await shownNames()).toEqual(["purchased", "signed_up", "second_visit", "first_visit"]);
  expect(await page.textContent(".live-status")).toBe("Live, paused");
  await screenshotThemes(page, "live-events-paused");

  await page.getByRole("button", { name: "Resume" }).click();
  expect(await shownNames()).toEqual(["held_two", "held_one", "purchased", "signed_up", "second_visit", "first_visit"]);
  expect(await page.locator(".held-count").count()).toBe(0);
  await fixture.send([nativeEvent({ event: "after_resume", distinct_id: "cy" })]);
  await row("after_resume").waitFor();
  expect((await shownNames())[0]).toBe("after_resume");
});

test("the event name and distinct id filters go to the route; 'properties contain' is checked in the browser", async () => {
  await page.fill('[name="event"]', "signed_up");
  await page.getByRole("button", { name: "Apply" }).click();
  await waitForCount(page, ".data-table tbody tr", 1);
  expect(await shownNames()).toEqual(["signed_up"]);
  // A new event of another name does not come through; one of the name does.
  await fixture.send([nativeEvent({ event: "purchased", distinct_id: "dee" }), nativeEvent({ event: "signed_up", distinct_id: "dee", properties: { plan: "team" } })]);
  await waitForCount(page, ".data-table tbody tr", 2);
  expect(await shownNames()).toEqual(["signed_up", "signed_up"]);

  await page.fill('[name="event"]', "");
  await page.fill('[name="distinct_id"]', "cy");
  await page.getByRole("button", { name: "Apply" }).click();
  await waitForCount(page, ".data-table tbody tr", 3);
  expect(await shownNames()).toEqual(["after_resume", "held_two", "held_one"]);

  await page.getByRole("button", { name: "Reset" }).click();
  await row("first_visit").waitFor();
  await page.fill('[name="contains"]', "TEAM");
  expect(await shownNames()).toEqual(["signed_up"]);
  expect(await page.textContent(".table-foot")).toBe("1 event of 9 contain “TEAM”");
  await page.fill('[name="contains"]', "nothing-like-this");
  await shown("No events match the filters");
  await page.fill('[name="contains"]', "");
});

test("an event's detail shows its properties and, on demand, the event as the route sent it", async () => {
  await row("purchased").first().click();
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  expect(await dialog.locator(".event-detail-name").textContent()).toBe("purchased");
  const properties = await dialog.locator(".data-table tbody tr").evaluateAll((rows) => rows.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
  expect(properties).toEqual([["plan", "pro"]]);
  expect(await dialog.getByLabel("Raw event JSON", { exact: true }).count()).toBe(0);
  await dialog.getByRole("button", { name: "Show raw JSON" }).click();
  const raw = JSON.parse((await dialog.getByLabel("Raw event JSON", { exact: true }).textContent())!);
  const { body } = await fixture.region("GET", "/events/live?limit=100&distinct_id=dee&event=purchased");
  expect(raw).toEqual(body.events[0]);
  await screenshotThemes(page, "live-events-detail");
  await dialog.getByRole("button", { name: "Close" }).click();
  await dialog.waitFor({ state: "hidden" });
});

test("hostile event names, distinct ids and property values show as text, and nothing runs", async () => {
  await fixture.send([nativeEvent({ event: hostile.markup, distinct_id: hostile.scriptUrl, properties: { [hostile.scriptEnd]: hostile.markup, link: hostile.scriptUrl } })]);
  await row(hostile.markup).waitFor();
  expect(await row(hostile.markup).locator("td").nth(1).textContent()).toBe(hostile.scriptUrl);
  await row(hostile.markup).click();
  const dialog = page.getByRole("dialog");
  // The properties are drawn once the dialog has the event: read them after the last row is there.
  await dialog.locator(".data-table tbody tr").nth(1).waitFor();
  const properties = await dialog.locator(".data-table tbody tr").evaluateAll((rows) => rows.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
  expect(properties).toEqual([[hostile.scriptEnd, hostile.markup], ["link", hostile.scriptUrl]]);
  await dialog.getByRole("button", { name: "Show raw JSON" }).click();
  expect(JSON.parse((await dialog.getByLabel("Raw event JSON", { exact: true }).textContent())!).event).toBe(hostile.markup);
  expect(await page.locator(`a[href^="javascript:"]`).count()).toBe(0);
  await expectNothingRan(page);
  await dialog.getByRole("button", { name: "Close" }).click();
});

test("a region that fails is shown as reconnecting with its error, and the page goes live again once it answers", async () => {
  const failing = "**/region/eu/events/live**";
  await page.route(failing, (route) => route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "unavailable", message: "the region is restarting" } }) }));
  await page.reload();
  await shown("Reconnecting: The region is restarting.");
  await screenshotThemes(page, "live-events-reconnecting");
  await page.unroute(failing);
  await page.waitForSelector(".live-status-live");
  await row("first_visit").waitFor();
  // The refused requests are the ones this test made fail; nothing else went wrong.
  expect(fixture.tab.problems.filter((problem) => !problem.includes("status of 503"))).toEqual([]);
});
