// The Persons pages in headless Chromium against the real service: persons and events go in
// through ingest (identify and an anonymous id on a second device make merges), and every
// page is checked against what the region API answers the same session: the list a page at a
// time, search, a profile's properties, distinct ids and merges, the events timeline in the
// project's time zone with paging and each event's raw JSON, unmerging (the API's state after),
// and hostile distinct ids, property keys and values shown as text with nothing run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, screenshotThemes, waitForCount, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { createConsoleProject, signUpInContext, type ConsoleProject } from "../../helpers/console-project.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../../ingest/helpers.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let project: ConsoleProject;

const timezone = "Asia/Tokyo";
const hostileId = "<img src=x onerror=window.__pwned=1>";
const hostileKey = "<script>window.__pwned=2</script>";
const hostileValue = '"><img src=x onerror=window.__pwned=3>';
const hostileEvent = "<b onmouseover=window.__pwned=4>boom</b>";
const visitors = 60;
const clicks = 30;

let clock = Date.now() - 3 * 3_600_000;
/** An event a second after the previous one, so event-time order is the order written here. */
const at = (overrides: NativeEvent) => nativeEvent({ timestamp: rfc3339((clock += 1000)), properties: {}, ...overrides });

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  const orgId = await signUpInContext(service, tab.context, "pia@example.com", "Pia");
  project = await createConsoleProject(service, tab.context, orgId, { name: "People", timezone });
  const send = (events: NativeEvent[]) => sendAccepted(service.url, project.key, events);
  await send(Array.from({ length: visitors }, (_, index) => at({ distinct_id: `visitor-${String(index).padStart(2, "0")}`, event: "$pageview", properties: { $current_url: "https://example.com/" } })));
  // Ada browses anonymously, identifies, then signs in on her phone too.
  await send([
    at({ distinct_id: "anon-ada", event: "$pageview", properties: { $current_url: "https://example.com/pricing" } }),
    at({ distinct_id: "anon-ada", event: "$pageview", properties: { $current_url: "https://example.com/signup" } }),
    at({ distinct_id: "user-ada", event: "$identify", properties: { $anon_distinct_id: "anon-ada" }, $set: { plan: "pro", email: "ada@example.com", name: "Ada Lovelace", seats: 12 } }),
  ]);
  await send([at({ distinct_id: "phone-ada", event: "$pageview", properties: { $screen: "home" } }), at({ distinct_id: "user-ada", anon_id: "phone-ada", event: "opened_app" })]);
  await send(Array.from({ length: clicks }, (_, index) => at({ distinct_id: "user-ada", event: "clicked", properties: { button: `b${index}`, nested: { depth: index } } })));
  await send([at({ distinct_id: hostileId, event: hostileEvent, properties: { [hostileKey]: hostileValue }, $set: { [hostileKey]: hostileValue } })]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const api = async (path: string) => {
  const reply = await project.region("GET", path);
  expect(reply.status).toBe(200);
  return reply.body;
};

/** The person whose distinct ids include `distinctId`, as the API answers it. */
async function personOf(distinctId: string) {
  const { results } = await api(`/persons?search=${encodeURIComponent(distinctId)}`);
  const matches = results.filter((person: { distinct_ids: string[] }) => person.distinct_ids.includes(distinctId));
  expect(matches).toHaveLength(1);
  return matches[0];
}

/** Every event of a person, newest first, read through the API's pages. */
async function eventsOf(personId: string) {
  const events = [];
  let cursor: string | null = null;
  do {
    const answer: { results: unknown[]; next_cursor: string | null } = await api(`/persons/${personId}/events?limit=25${cursor ? `&cursor=${cursor}` : ""}`);
    events.push(...answer.results);
    cursor = answer.next_cursor;
  } while (cursor);
  return events as any[];
}

const personRows = (page: Page) => page.locator("table.data-table tbody tr");
const personLinks = async (page: Page) => (await personRows(page).locator("td:first-child a").evaluateAll((links) => links.map((link) => link.getAttribute("href"))));
const propertyRows = async (page: Page, section: string) =>
  Object.fromEntries(await page.locator(`section[aria-labelledby=${section}] table tbody tr`).evaluateAll((rows) => rows.map((row) => [row.querySelector("th")!.textContent, row.querySelector("td")!.textContent])));
const distinctIdsShown = (page: Page) => page.getByRole("list", { name: "Distinct ids" }).locator("li").allTextContents();

test("the list shows the API's persons newest first, 50 at a time, with Load more until the last", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/persons`);
  await waitForPage(page, "Persons");
  await page.waitForSelector("table.data-table");
  const first = await api("/persons?limit=50");
  const second = await api(`/persons?limit=50&cursor=${first.next_cursor}`);
  expect(second.next_cursor).toBeNull();
  const href = (id: string) => `/projects/${project.id}/persons/${id}`;
  expect(await personLinks(page)).toEqual(first.results.map((person: { id: string }) => href(person.id)));
  expect(await page.getByRole("link", { name: "Persons", exact: true }).first().getAttribute("aria-current")).toBe("page");
  await screenshotThemes(page, "persons-list");

  await page.getByRole("button", { name: "Load more" }).click();
  await waitForCount(page, "table.data-table tbody tr", visitors + 2);
  expect(await personLinks(page)).toEqual([...first.results, ...second.results].map((person: { id: string }) => href(person.id)));
  expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0);
});

test("a search by part of a distinct id finds the merged person; the profile shows the API's properties, distinct ids and merges", async () => {
  const { page } = tab;
  await page.getByLabel("Distinct id or person id").fill("phone-ad");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await waitForCount(page, "table.data-table tbody tr", 1);
  expect(new URL(page.url()).searchParams.get("search")).toBe("phone-ad");
  const ada = await personOf("phone-ada");
  await page.getByRole("link", { name: "Ada Lovelace" }).click();
  await waitForPage(page, "Ada Lovelace");
  expect(new URL(page.url()).pathname).toBe(`/projects/${project.id}/persons/${ada.id}`);

  // The owner's token holds persons.pii: every value as the API gives it, nothing masked.
  expect(ada.properties).toEqual({ plan: "pro", email: "ada@example.com", name: "Ada Lovelace", seats: 12 });
  expect(await propertyRows(page, "properties-title")).toEqual(Object.fromEntries(Object.entries(ada.properties).map(([key, value]) => [key, String(value)])));
  expect(await page.locator(".masked-value").count()).toBe(0);

  const identity = await api(`/persons/${ada.id}/identity`);
  expect(identity.distinct_ids).toEqual(["anon-ada", "phone-ada", "user-ada"]);
  expect(await distinctIdsShown(page)).toEqual(identity.distinct_ids);
  expect(identity.history.map((entry: { kind: string }) => entry.kind)).toEqual(["merge", "merge"]);
  expect(await page.locator("tr.identity-entry td:first-child").allTextContents()).toEqual(["Merged", "Merged"]);
});

test("the events timeline pages like the API, in the project's time zone, and opens an event to its properties and raw JSON", async () => {
  const { page } = tab;
  const ada = await personOf("user-ada");
  const events = await eventsOf(ada.id);
  expect(events).toHaveLength(2 + 1 + 2 + clicks);
  const rows = page.locator("tr.event-row");
  await page.waitForSelector("tr.event-row");
  expect(await rows.count()).toBe(25);
  expect(await page.locator("table.event-table th").nth(2).textContent()).toBe(`Time (${timezone})`);
  expect(await rows.locator("td.event-name").allTextContents()).toEqual(events.slice(0, 25).map((event) => event.event));
  const inProjectZone = await page.evaluate(([iso, zone]) => new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone: zone, timeZoneName: "short",
  }).format(new Date(iso!)), [events[0].timestamp, timezone]);
  expect(await rows.first().locator("time").textContent()).toBe(inProjectZone);
  expect(await rows.first().locator("time").getAttribute("datetime")).toBe(events[0].timestamp);

  await rows.first().getByRole("button", { name: /Show all of clicked/ }).click();
  const raw = page.getByLabel("Raw JSON of clicked");
  expect(JSON.parse((await raw.textContent())!)).toEqual(events[0]);
  expect(await page.locator("tr.event-detail-row table").first().locator("tbody tr").count()).toBe(Object.keys(events[0].properties).length);
  await screenshotThemes(page, "person-profile");

  await page.getByRole("button", { name: "Load older events" }).click();
  await waitForCount(page, "tr.event-row", events.length);
  expect(await rows.locator("td.event-name").allTextContents()).toEqual(events.map((event) => event.event));
  expect(await page.getByRole("button", { name: "Load older events" }).count()).toBe(0);
  expect(tab.problems).toEqual([]);
});

test("unmerging a distinct id asks first, then moves it to a new person: the page and the API agree", async () => {
  const { page } = tab;
  const ada = await personOf("user-ada");
  await page.getByRole("checkbox", { name: "phone-ada" }).check();
  await page.getByRole("button", { name: "Unmerge 1 selected" }).click();
  const dialog = page.getByRole("dialog", { name: "Unmerge into a new person?" });
  // The dialog's content is drawn once it is open: wait for it before reading it.
  await dialog.locator(".dialog-list li").first().waitFor();
  expect(await dialog.locator(".dialog-list li").allTextContents()).toEqual(["phone-ada"]);
  await screenshotThemes(page, "person-unmerge-confirm");
  await dialog.getByRole("button", { name: "Unmerge" }).click();
  await page.waitForSelector("text=Moved 1 distinct id to a new person");

  const after = await api(`/persons/${ada.id}`);
  expect(after.distinct_ids).toEqual(["anon-ada", "user-ada"]);
  expect(await distinctIdsShown(page)).toEqual(after.distinct_ids);
  const split = await personOf("phone-ada");
  expect(split.id).not.toBe(ada.id);
  expect([split.distinct_ids, split.properties, split.is_identified]).toEqual([["phone-ada"], {}, true]);
  const identity = await api(`/persons/${ada.id}/identity`);
  expect(identity.history.at(-1)).toEqual({ kind: "unmerge", at: expect.any(String), event_uuid: null, survivor_id: ada.id, absorbed_id: split.id });
  await waitForCount(page, "tr.identity-entry", 3);
  expect(await page.locator("tr.identity-entry td:first-child").allTextContents()).toEqual(["Merged", "Merged", "Unmerged"]);

  // The new person's link opens their profile.
  await page.getByRole("link", { name: "phone-ada" }).click();
  await waitForPage(page, "phone-ada");
  expect(new URL(page.url()).pathname).toBe(`/projects/${project.id}/persons/${split.id}`);
  expect(tab.problems).toEqual([]);
});

test("hostile distinct ids, event names, property keys and values are shown literally, and nothing of them runs", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/persons?search=${encodeURIComponent(hostileId)}`);
  await waitForCount(page, "table.data-table tbody tr", 1);
  const hostile = await personOf(hostileId);
  expect(await personRows(page).locator("td:first-child a").textContent()).toBe(hostileId);
  await personRows(page).locator("td:first-child a").click();
  await waitForPage(page, hostileId);
  expect(await propertyRows(page, "properties-title")).toEqual({ [hostileKey]: hostileValue });
  expect(hostile.properties).toEqual({ [hostileKey]: hostileValue });
  await page.waitForSelector("tr.event-row");
  expect(await page.locator("td.event-name").allTextContents()).toEqual([hostileEvent]);
  await page.getByRole("button", { name: `Show all of ${hostileEvent}` }).click();
  expect(JSON.parse((await page.getByLabel(`Raw JSON of ${hostileEvent}`).textContent())!).properties).toEqual({ [hostileKey]: hostileValue });
  expect(await page.locator("img, script:not([src]), b").count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  await screenshotThemes(page, "person-hostile");
  expect(tab.problems).toEqual([]);
});

test("an unknown person id says so, with the way back", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/persons/${crypto.randomUUID()}`);
  await page.waitForSelector("text=Person not found");
  await page.getByRole("link", { name: "Go to persons" }).click();
  await waitForPage(page, "Persons");
});
