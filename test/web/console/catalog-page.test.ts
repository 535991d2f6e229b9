// The tracking plan pages in headless Chromium against the real service: a sync from the
// region lists the events sent with their counts; an event's description, status, tags and
// properties are edited and the control plane stores them (a refusal shown where it occurs);
// the list filters by status and name; the generated code downloads as the route serves it;
// and hostile event names, keys and values are shown as text with nothing run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { screenshotThemes, waitForPage } from "../../helpers/console-browser.ts";
import { expectNothingRan, hostile, nativeEvent, startDataPages, waitForCount, type DataPagesFixture } from "./data-pages-fixture.ts";

let fixture: DataPagesFixture;
let page: Page;

beforeAll(async () => {
  fixture = await startDataPages("Plan shop");
  await fixture.send([
    ...["pro", "team", "pro"].map((plan) => nativeEvent({ event: "signed_up", properties: { plan } })),
    nativeEvent({ event: "purchased", properties: { amount: 4900 } }),
    nativeEvent({ event: hostile.markup, properties: { [hostile.scriptEnd]: hostile.scriptUrl } }),
  ]);
}, 120_000);
afterAll(() => fixture?.close());

const api = async (path: string) => {
  const response = await fixture.tab.context.request.get(`${fixture.service.url}/app/projects/${fixture.projectId}/catalog${path}`);
  expect(response.status()).toBe(200);
  return response;
};
/** The list's rows as text, cell by cell. */
const tableRows = () =>
  page.locator(".table-card .data-table tbody tr").evaluateAll((rows) => rows.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));

test("an empty plan says how to fill it; a sync lists the events the region has seen with their counts", async () => {
  page = await fixture.open("/catalog", "Tracking plan");
  await page.getByText("The tracking plan is empty").waitFor();
  await screenshotThemes(page, "catalog-empty");

  await page.getByRole("button", { name: "Sync from production" }).click();
  await page.getByText("Synced with production: 3 events seen in the last 30 days, 3 updated.").waitFor();
  expect(await page.locator(".alert-success p").nth(1).textContent()).toBe(`New, outside the plan: ${[hostile.markup, "purchased", "signed_up"].sort().join(", ")}.`);
  await page.locator(".table-card .data-table").waitFor();
  const { events } = await (await api("/events")).json();
  expect(events.map((event: { name: string; volume_30d: number }) => [event.name, event.volume_30d])).toEqual([[hostile.markup, 1], ["purchased", 1], ["signed_up", 3]]);
  const justNow = expect.stringMatching(/^(now|\d+ seconds? ago)$/);
  expect(await tableRows()).toEqual([
    [hostile.markup, "Unplanned", "1", "1", justNow, ""],
    ["purchased", "Unplanned", "1", "1", justNow, ""],
    ["signed_up", "Unplanned", "1", "3", justNow, ""],
  ]);
  await screenshotThemes(page, "catalog-list");
});

test("an event's description, status, tags and properties are edited, and the control plane stores them", async () => {
  await page.locator(".table-card .data-table tbody tr").nth(2).click();
  await waitForPage(page, "signed_up");
  expect(await page.getByLabel("Name of property 1").inputValue()).toBe("plan");
  await page.getByLabel("Description", { exact: true }).fill("A person created an account");
  await page.selectOption("select[name=status]", "implemented");
  await page.getByLabel("Tags").fill("growth");
  await page.getByLabel("Tags").press("Enter");
  await page.getByLabel("plan is required").check();
  await page.getByLabel("Description of plan").fill("The plan chosen at sign-up");
  await page.getByRole("button", { name: "Add a property" }).click();
  await page.getByLabel("Name of property 2").fill("seats");
  await page.getByLabel("Type of seats").selectOption("number");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByText("Saved: version 2 of the plan of this event.").waitFor();
  await screenshotThemes(page, "catalog-event");

  const eventId = new URL(page.url()).pathname.split("/").at(-1)!;
  const stored = await (await api(`/events/${eventId}`)).json();
  expect({ description: stored.description, status: stored.status, tags: stored.tags, version: stored.version }).toEqual({ description: "A person created an account", status: "implemented", tags: ["growth"], version: 2 });
  expect(stored.properties.map(({ name, type, required, description }: Record<string, unknown>) => ({ name, type, required, description }))).toEqual([
    { name: "plan", type: "string", required: true, description: "The plan chosen at sign-up" },
    { name: "seats", type: "number", required: false, description: null },
  ]);
  // Only the changes the plan allows are offered: an implemented event may be verified or deprecated.
  expect(await page.locator("select[name=status] option").allTextContents()).toEqual(["Implemented", "Verified", "Deprecated"]);
});

test("a change the control plane refuses is shown with its message, and nothing is stored", async () => {
  await page.getByRole("button", { name: "Add a property" }).click();
  await page.getByLabel("Name of property 3").fill("plan");
  await page.getByRole("button", { name: "Save changes" }).click();
  const refusal = page.getByRole("alert");
  await refusal.waitFor();
  expect(await refusal.textContent()).toBe('Property names must be distinct: "plan" is listed twice.');
  const eventId = new URL(page.url()).pathname.split("/").at(-1)!;
  expect((await (await api(`/events/${eventId}`)).json()).version).toBe(2);
  await page.getByRole("button", { name: "Remove plan" }).nth(1).click();
  fixture.tab.problems.splice(0, fixture.tab.problems.length, ...fixture.tab.problems.filter((problem) => !problem.includes("status of 400")));
});

test("the list filters by status (with counts) and by name", async () => {
  await page.getByRole("link", { name: "Back to the plan" }).click();
  await waitForPage(page, "Tracking plan");
  await page.locator(".table-card .data-table").waitFor();
  expect(await page.locator("select[name=status] option").allTextContents()).toEqual(["Every status (3)", "Planned (0)", "Implemented (1)", "Verified (0)", "Unplanned (2)", "Deprecated (0)"]);
  await page.selectOption("select[name=status]", "implemented");
  await waitForCount(page, ".table-card .data-table tbody tr", 1);
  expect((await tableRows())[0]!.slice(0, 2)).toEqual(["signed_up", "Implemented"]);
  await page.selectOption("select[name=status]", "");
  await page.getByLabel("Search").fill("purch");
  await waitForCount(page, ".table-card .data-table tbody tr", 1);
  expect((await tableRows())[0]![0]).toBe("purchased");
  await page.getByLabel("Search").fill("nothing-like-this");
  await page.getByText("No events match").waitFor();
  await page.getByRole("button", { name: "Show every event" }).click();
  await waitForCount(page, ".table-card .data-table tbody tr", 3);
});

test("the generated code downloads as the route serves it, under its name", async () => {
  for (const [button, fileName, query] of [["TypeScript (.d.ts)", "tracking-plan.d.ts", "typescript"], ["JSON", "tracking-plan.json", "json"]] as const) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: button }).click()]);
    expect(download.suggestedFilename()).toBe(fileName);
    const served = await (await api(`/codegen?format=${query}`)).text();
    expect(readFileSync((await download.path())!, "utf8")).toBe(served);
  }
  const plan = await (await api("/codegen")).json();
  expect(plan.events.map((event: { name: string }) => event.name)).toEqual(["signed_up"]);
});

test("hostile event names and property keys are shown as text, and nothing runs", async () => {
  await page.locator(".table-card .data-table tbody tr").first().click();
  await waitForPage(page, hostile.markup);
  expect(await page.getByLabel("Name of property 1").inputValue()).toBe(hostile.scriptEnd);
  expect(await page.locator(".page-lede code").textContent()).toBe(hostile.markup);
  await expectNothingRan(page);
  expect(fixture.tab.problems).toEqual([]);
});
