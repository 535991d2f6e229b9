// The Groups pages in headless Chromium: group types as tabs, each type's groups a page at a
// time with search, and a group's profile (properties, and its members as the region's cohort
// preview counts them), all checked against the region API. Hostile group keys, including
// ones a URL path cannot carry ("..", "a/b"), open and show literally.
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

const hostileKey = "<img src=x onerror=window.__pwned=1>";
const companies = 55;

let clock = Date.now() - 3_600_000;
const at = (overrides: NativeEvent) => nativeEvent({ timestamp: rfc3339((clock += 1000)), properties: {}, ...overrides });

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  const orgId = await signUpInContext(service, tab.context, "gus@example.com", "Gus");
  project = await createConsoleProject(service, tab.context, orgId, { name: "Groups" });
  await sendAccepted(service.url, project.key, [
    at({ distinct_id: "user-1", event: "$groupidentify", properties: { $group_type: "company", $group_key: "acme", $group_set: { name: "Acme Inc", employees: 40, [hostileKey]: hostileKey } } }),
    at({ distinct_id: "user-1", event: "opened", groups: { company: "acme", team: "core" } }),
    at({ distinct_id: "user-2", event: "opened", groups: { company: "acme" } }),
    at({ distinct_id: "user-3", event: "opened", groups: { company: "globex" } }),
    ...["..", "a/b", hostileKey].map((key) => at({ distinct_id: "user-4", event: "opened", groups: { company: key } })),
    ...Array.from({ length: companies }, (_, index) => at({ distinct_id: "user-5", event: "opened", groups: { company: `co-${String(index).padStart(2, "0")}` } })),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const api = async (path: string, body?: unknown) => {
  const reply = await project.region(body === undefined ? "GET" : "POST", path, body);
  expect(reply.status).toBe(200);
  return reply.body;
};

const keysShown = (page: Page) => page.locator("table.data-table tbody tr td:first-child a").allTextContents();

test("group types are tabs; a type's groups page like the API, and search by part of the key", async () => {
  const { page } = tab;
  const types = await api("/groups/types");
  expect(types.results).toEqual([{ index: 0, name: "company" }, { index: 1, name: "team" }]);
  await page.goto(`${service.url}/projects/${project.id}/persons`);
  await page.getByRole("navigation", { name: "Persons and groups" }).getByRole("link", { name: "Groups" }).click();
  await waitForPage(page, "Groups");
  await page.getByRole("tab").first().waitFor();
  expect(await page.getByRole("tab").allTextContents()).toEqual(["company", "team"]);
  expect(await page.getByRole("link", { name: "Persons", exact: true }).first().getAttribute("aria-current")).toBe("page");

  const first = await api("/groups?type_index=0&limit=50");
  const second = await api(`/groups?type_index=0&limit=50&cursor=${first.next_cursor}`);
  await page.waitForSelector("table.data-table");
  expect(await keysShown(page)).toEqual(first.results.map((group: { key: string }) => group.key));
  await page.getByRole("button", { name: "Load more" }).click();
  await waitForCount(page, "table.data-table tbody tr", companies + 5);
  expect(await keysShown(page)).toEqual([...first.results, ...second.results].map((group: { key: string }) => group.key));
  await screenshotThemes(page, "groups-list");

  await page.getByLabel("Key of a company").fill("GLOB");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await waitForCount(page, "table.data-table tbody tr", 1);
  expect(await keysShown(page)).toEqual((await api("/groups?type_index=0&search=GLOB")).results.map((group: { key: string }) => group.key));

  await page.getByRole("tab", { name: "team" }).click();
  await page.locator("table.data-table tbody tr td a", { hasText: /^core$/ }).waitFor();
  expect(await keysShown(page)).toEqual(["core"]);
  expect(new URL(page.url()).searchParams.get("type")).toBe("1");
});

test("a group's profile shows the API's properties and its members as the cohort preview counts them", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/groups?type=0&search=acme`);
  await page.getByRole("link", { name: "acme", exact: true }).click();
  await waitForPage(page, "acme");
  const acme = await api("/groups/0/acme");
  const rows = await page.locator("section[aria-labelledby=group-properties-title] table tbody tr").evaluateAll((found) => found.map((row) => [row.querySelector("th")!.textContent, row.querySelector("td")!.textContent]));
  expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(Object.entries(acme.properties).map(([key, value]) => [key, String(value)])));
  const members = await api("/cohorts/preview", { definition: { type: "and", values: [{ type: "group", group_type_index: 0, group_key: "acme" }] }, sample_size: 100 });
  expect(members.size).toBe(2);
  await page.waitForSelector("text=2 persons have events linked to this company in production.");
  expect(await page.locator("section[aria-labelledby=group-members-title] tbody tr td:first-child a").allTextContents()).toEqual(members.sample.map((person: { distinct_ids: string[] }) => person.distinct_ids[0]));
  expect(await page.locator("img").count()).toBe(0);
  await screenshotThemes(page, "group-profile");
  expect(tab.problems).toEqual([]);
});

test("hostile group keys and keys a URL path cannot carry open and show literally, with nothing run", async () => {
  const { page } = tab;
  for (const key of ["..", "a/b", hostileKey]) {
    await page.goto(`${service.url}/projects/${project.id}/groups?type=0&search=${encodeURIComponent(key)}`);
    await page.getByRole("link", { name: key, exact: true }).click();
    await waitForPage(page, key);
    await page.waitForSelector("text=1 person has events linked to this company in production.");
    expect(await page.locator("section[aria-labelledby=group-members-title] tbody tr td:first-child a").allTextContents()).toEqual(["user-4"]);
  }
  expect(await page.locator("img").count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(tab.problems).toEqual([]);
});
