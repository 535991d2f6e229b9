// The saved insights list in headless Chromium: its empty state leads to a new insight; saved
// insights are searched, filtered by favourites, kind and tag (the filters in the URL),
// favourited, renamed in the builder and deleted after a confirmation, each checked against
// what the console API then answers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { screenshotThemes, waitForPage } from "../../helpers/console-browser.ts";
import { eventuallyEqual, startInsightsWorld, type InsightsWorld } from "./insights-fixture.ts";

let world: InsightsWorld;

beforeAll(async () => {
  world = await startInsightsWorld();
}, 120_000);
afterAll(() => world?.close());

const api = (path = "") => `${world.service.url}/app/projects/${world.projectId}/insights${path}`;
const listUrl = () => `${world.service.url}/projects/${world.projectId}/insights`;
const shownNames = () => world.tab.page.locator(".insight-link").allTextContents();
const waitForNames = (names: string[]) => eventuallyEqual(shownNames, names);

async function create(body: Record<string, unknown>): Promise<any> {
  const reply = await world.tab.context.request.post(api(), { data: body });
  expect(reply.status()).toBe(201);
  return reply.json();
}

const trends = { ir_version: 1, date_range: { from: "-30d" }, insight: { kind: "trends", interval: "day", series: [{ event: "signed_up" }] } };
const funnel = { ir_version: 1, date_range: { from: "-30d" }, insight: { kind: "funnel", series: [{ event: "viewed" }, { event: "paid" }] } };
const retention = { ir_version: 1, date_range: { from: "-8w" }, insight: { kind: "retention", interval: "week", series: [{ event: "visit" }] } };

test("with no insights, the empty state leads to a new insight", async () => {
  const { page } = world.tab;
  await page.goto(listUrl());
  await waitForPage(page, "Insights");
  await page.getByText("No insights yet").waitFor();
  await screenshotThemes(page, "insights-empty");
  await page.locator(".state").getByRole("link", { name: "New insight" }).click();
  await waitForPage(page, "New insight");
  expect(new URL(page.url()).pathname).toBe(`/projects/${world.projectId}/insights/new`);
  await page.getByRole("link", { name: "Insights" }).click();
  await waitForPage(page, "Insights");
});

let signups: any;
let checkout: any;
let weekly: any;

test("saved insights are listed, last changed first, with kind and tags; search, favourites, kind and tag narrow them", async () => {
  const { page } = world.tab;
  signups = await create({ name: "Daily sign-ups", query: trends, tags: ["growth"], favorited: true });
  checkout = await create({ name: "Checkout funnel", description: "From product view to payment", query: funnel, tags: ["sales", "growth"] });
  weekly = await create({ name: "Weekly retention", query: retention });
  await page.goto(listUrl());
  await waitForNames(["Weekly retention", "Checkout funnel", "Daily sign-ups"]);
  expect(await page.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.children[2]!.textContent))).toEqual(["Retention", "Funnel", "Trends"]);
  expect(await page.locator("tbody tr").nth(1).locator(".tag-button").allTextContents()).toEqual(["sales", "growth"]);
  await screenshotThemes(page, "insights-list");

  await page.getByLabel("Search insights").fill("PAYMENT");
  await waitForNames(["Checkout funnel"]);
  expect(new URL(page.url()).searchParams.get("search")).toBe("PAYMENT");
  await page.getByLabel("Search insights").fill("nothing like this");
  await page.getByText("No insights match").waitFor();
  await page.getByRole("button", { name: "Clear the filters" }).click();
  await waitForNames(["Weekly retention", "Checkout funnel", "Daily sign-ups"]);

  await page.getByLabel("Favourites only").check();
  await waitForNames(["Daily sign-ups"]);
  await page.getByLabel("Favourites only").uncheck();
  await page.getByLabel("Kind").selectOption("funnel");
  await waitForNames(["Checkout funnel"]);
  await page.getByLabel("Kind").selectOption("");
  await page.getByRole("button", { name: "Show insights tagged growth" }).first().click();
  await waitForNames(["Checkout funnel", "Daily sign-ups"]);
  expect(new URL(page.url()).searchParams.get("tag")).toBe("growth");
  await page.reload();
  await waitForNames(["Checkout funnel", "Daily sign-ups"]);
  await page.getByRole("button", { name: "Stop filtering by tag growth" }).click();
  await waitForNames(["Weekly retention", "Checkout funnel", "Daily sign-ups"]);
  expect(world.tab.problems).toEqual([]);
});

test("a star favourites an insight for the person", async () => {
  const { page } = world.tab;
  const star = page.getByRole("button", { name: "Favourite Weekly retention" });
  expect(await star.getAttribute("aria-pressed")).toBe("false");
  await star.click();
  await page.waitForSelector('button[aria-label="Favourite Weekly retention"][aria-pressed="true"]');
  expect((await (await world.tab.context.request.get(api(`/${weekly.id}`))).json()).favorited).toBe(true);
  await page.getByLabel("Favourites only").check();
  await waitForNames(["Weekly retention", "Daily sign-ups"]);
  await page.getByLabel("Favourites only").uncheck();
});

test("an insight is renamed and its tags edited in the builder, and the list shows the new name", async () => {
  const { page } = world.tab;
  await page.getByRole("link", { name: "Checkout funnel" }).click();
  await waitForPage(page, "Checkout funnel");
  await page.getByRole("button", { name: "Rename" }).click();
  await page.getByLabel("Name", { exact: true }).fill("Purchase funnel");
  await page.locator("dialog").getByRole("button", { name: "Rename" }).click();
  await waitForPage(page, "Purchase funnel");
  await page.getByRole("button", { name: "Tags" }).click();
  await page.getByRole("textbox", { name: "Tags" }).fill("sales, q4");
  await page.locator("dialog").getByRole("button", { name: "Save tags" }).click();
  await eventuallyEqual(() => page.locator(".insight-header .tag").allTextContents(), ["sales", "q4"]);
  await page.getByRole("button", { name: "Add to favourites" }).click();
  await page.getByRole("button", { name: "Favourite", exact: true }).waitFor();
  const saved = await (await world.tab.context.request.get(api(`/${checkout.id}`))).json();
  expect([saved.name, saved.tags, saved.favorited, saved.query]).toEqual(["Purchase funnel", ["sales", "q4"], true, funnel]);
  await page.getByRole("link", { name: "Insights" }).click();
  await waitForNames(["Purchase funnel", "Weekly retention", "Daily sign-ups"]);
  expect(world.tab.problems).toEqual([]);
});

test("deleting asks first; cancelled nothing changes, confirmed the insight is gone", async () => {
  const { page } = world.tab;
  await page.getByRole("button", { name: "Delete Daily sign-ups" }).click();
  const dialog = page.locator("dialog[open]");
  expect(await dialog.locator(".dialog-body").textContent()).toBe("Daily sign-ups will be deleted and taken off every dashboard that shows it.");
  await screenshotThemes(page, "insights-delete");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  expect((await world.tab.context.request.get(api(`/${signups.id}`))).status()).toBe(200);
  await page.getByRole("button", { name: "Delete Daily sign-ups" }).click();
  await page.locator("dialog[open]").getByRole("button", { name: "Delete" }).click();
  await waitForNames(["Purchase funnel", "Weekly retention"]);
  expect((await world.tab.context.request.get(api(`/${signups.id}`))).status()).toBe(404);
  expect(world.tab.problems).toEqual([]);
});

test("a deleted insight's link says it is gone and leads back to the list", async () => {
  const { page } = world.tab;
  await page.goto(`${world.service.url}/projects/${world.projectId}/insights/${signups.id}`);
  await page.getByText("Insight not found").waitFor();
  await page.getByRole("link", { name: "Go to insights" }).click();
  await waitForPage(page, "Insights");
});
