// Arranging a dashboard in the web console, in headless Chromium against the real service: a
// tile moved by dragging its header and resized by dragging its corner with the mouse, then
// moved and resized from the keyboard; tiles in the way move down; each change is saved with
// POST …/layout and the test reads back the layout the API stores. A save the API refuses
// puts the tiles back and says so. Moving tiles loads no tile again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { api, createProject, saveInsight, seedEvents, sendEvents, signUpInBrowser, trendsQuery, type Project } from "./dashboard-fixtures.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let project: Project;
let dashboardId = "";
const ids: Record<"a" | "b" | "c" | "chart", string> = { a: "", b: "", c: "", chart: "" };
let queries = 0;

/** The grid's row height and gap in pixels (styles/dashboards.css). */
const rowHeightPx = 56;
const gapPx = 16;

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  const request = tab.context.request;
  await signUpInBrowser(request, service, "lee@example.com");
  project = await createProject(request, service, "Layout");
  await sendEvents(service, project.key, seedEvents());
  const insight = await saveInsight(request, service, project.id, "Page views", trendsQuery);
  const base = `/app/projects/${project.id}/dashboards`;
  dashboardId = (await api(request, service, "POST", base, { name: "Arranged" })).id;
  const add = async (body: Record<string, unknown>) => (await api(request, service, "POST", `${base}/${dashboardId}/tiles`, body)).id as string;
  ids.a = await add({ kind: "text", body: "A", layout: { x: 0, y: 0, w: 6, h: 2 } });
  ids.b = await add({ kind: "text", body: "B", layout: { x: 6, y: 0, w: 6, h: 2 } });
  ids.c = await add({ kind: "text", body: "C", layout: { x: 0, y: 2, w: 12, h: 2 } });
  ids.chart = await add({ kind: "insight", insight_id: insight.id, layout: { x: 0, y: 4, w: 6, h: 5 } });
  tab.page.on("request", (sent) => sent.url().endsWith("/query") && queries++);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** The layout the API stores, by tile. */
async function stored(): Promise<Record<string, { x: number; y: number; w: number; h: number }>> {
  const dashboard = await api(tab.context.request, service, "GET", `/app/projects/${project.id}/dashboards/${dashboardId}`);
  const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
  return Object.fromEntries(dashboard.tiles.map((shown: any) => [names[shown.id], shown.layout]));
}

/** The layout the page shows, by tile (from each tile's grid placement). */
async function shown(page: Page): Promise<Record<string, { x: number; y: number; w: number; h: number }>> {
  const placed = await page.$$eval("[data-tile-id]", (tiles) =>
    tiles.map((element) => {
      const { style } = element as unknown as { style: { getPropertyValue(name: string): string } };
      const read = (name: string) => Number(style.getPropertyValue(name));
      return [element.getAttribute("data-tile-id")!, { x: read("--tile-x") - 1, y: read("--tile-y") - 1, w: read("--tile-w"), h: read("--tile-h") }] as const;
    }),
  );
  const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
  return Object.fromEntries(placed.map(([id, layout]) => [names[id], layout]));
}

const layoutSaved = (page: Page) => page.waitForResponse((response) => response.request().method() === "POST" && response.url().endsWith("/layout"));

/** The width of one grid column plus its gap, in pixels. */
async function columnPitch(page: Page): Promise<number> {
  const grid = (await page.locator(".dashboard-grid").boundingBox())!;
  return (grid.width + gapPx) / 12;
}

async function drag(page: Page, from: { x: number; y: number }, by: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + by.x, from.y + by.y, { steps: 8 });
  await page.mouse.up();
}

const tile = (page: Page, id: string) => page.locator(`[data-tile-id="${id}"]`);

test("the tiles are laid out from their stored places", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/dashboards/${dashboardId}`);
  await waitForPage(page, "Arranged");
  await page.waitForSelector(`[data-tile-id="${ids.chart}"][data-tile-state="ready"]`);
  expect(await shown(page)).toEqual(await stored());
  // Tile A sits left of B on the same row, and C spans the width below them.
  const [a, b, c] = await Promise.all([ids.a, ids.b, ids.c].map(async (id) => (await tile(page, id).boundingBox())!));
  expect([Math.round(a!.y), a!.x < b!.x, Math.round(c!.y - a!.y), Math.round(c!.width) > Math.round(a!.width) * 2]).toEqual([Math.round(b!.y), true, 2 * (rowHeightPx + gapPx), true]);
  expect(queries).toBe(1);
});

test("dragging a tile's header moves it; the tiles in its way move down; the API stores the new layout", async () => {
  const { page } = tab;
  const header = (await tile(page, ids.a).locator(".tile-header").boundingBox())!;
  const saved = layoutSaved(page);
  await drag(page, { x: header.x + 12, y: header.y + header.height / 2 }, { x: 6 * (await columnPitch(page)), y: 0 });
  expect((await saved).status()).toBe(200);
  const expected = { a: { x: 6, y: 0, w: 6, h: 2 }, b: { x: 6, y: 2, w: 6, h: 2 }, c: { x: 0, y: 4, w: 12, h: 2 }, chart: { x: 0, y: 6, w: 6, h: 5 } };
  expect(await stored()).toEqual(expected);
  expect(await shown(page)).toEqual(expected);
  await screenshotThemes(page, "dashboard-moved");
});

test("dragging a tile's corner resizes it", async () => {
  const { page } = tab;
  const corner = (await tile(page, ids.c).locator(".tile-resize").boundingBox())!;
  const saved = layoutSaved(page);
  await drag(page, { x: corner.x + corner.width / 2, y: corner.y + corner.height / 2 }, { x: -6 * (await columnPitch(page)), y: rowHeightPx + gapPx });
  expect((await saved).status()).toBe(200);
  const expected = { a: { x: 6, y: 0, w: 6, h: 2 }, b: { x: 6, y: 2, w: 6, h: 2 }, c: { x: 0, y: 4, w: 6, h: 3 }, chart: { x: 0, y: 7, w: 6, h: 5 } };
  expect(await stored()).toEqual(expected);
  expect(await shown(page)).toEqual(expected);
});

test("a focused tile moves with the arrow keys and resizes with Shift and the arrow keys", async () => {
  const { page } = tab;
  await tile(page, ids.a).focus();
  for (const key of ["ArrowLeft", "ArrowDown", "Shift+ArrowRight", "Shift+ArrowDown"]) {
    const saved = layoutSaved(page);
    await page.keyboard.press(key);
    expect((await saved).status()).toBe(200);
  }
  const expected = { a: { x: 5, y: 1, w: 7, h: 3 }, b: { x: 6, y: 4, w: 6, h: 2 }, c: { x: 0, y: 4, w: 6, h: 3 }, chart: { x: 0, y: 7, w: 6, h: 5 } };
  expect(await stored()).toEqual(expected);
  expect(await shown(page)).toEqual(expected);
  expect(await page.textContent("[role=status][aria-live=polite]:not(.state)")).toBe("Tile resized: column 6, row 2, 7 columns wide and 3 rows high.");
  // A tile at the grid's edge goes no further, and nothing is sent.
  await tile(page, ids.b).focus();
  await page.keyboard.press("ArrowRight");
  expect(await page.textContent("[role=status][aria-live=polite]:not(.state)")).toBe("The tile cannot move further that way.");
  expect(await stored()).toEqual(expected);
});

test("a save the API refuses puts the tiles back where they were and says so", async () => {
  const { page } = tab;
  const before = await stored();
  await page.route("**/layout", (route) => route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "unavailable", message: "the control plane is restarting" } }) }));
  await tile(page, ids.a).focus();
  const refused = layoutSaved(page);
  await page.keyboard.press("ArrowLeft");
  expect((await refused).status()).toBe(503);
  await page.waitForSelector("text=The new layout could not be saved, so the tiles are back where they were. The control plane is restarting.");
  expect(await shown(page)).toEqual(before);
  expect(await stored()).toEqual(before);
  await screenshotThemes(page, "dashboard-layout-refused");
  await page.unroute("**/layout");
  expect(tab.problems).toEqual(["console error: Failed to load resource: the server responded with a status of 503 (Service Unavailable)"]);
  tab.problems.length = 0;

  // The next change saves, and the message goes.
  const saved = layoutSaved(page);
  await page.keyboard.press("ArrowLeft");
  expect((await saved).status()).toBe(200);
  expect((await stored()).a).toEqual({ ...before.a!, x: before.a!.x - 1 });
  expect(await page.locator("text=The new layout could not be saved").count()).toBe(0);
});

test("the stored layout is what a reload shows; moving tiles loaded no tile again", async () => {
  const { page } = tab;
  expect(queries).toBe(1);
  await page.reload();
  await page.waitForSelector(`[data-tile-id="${ids.chart}"][data-tile-state="ready"]`);
  expect(await shown(page)).toEqual(await stored());
  expect(tab.problems).toEqual([]);
});

test("a viewer sees the tiles and their numbers, but nothing that changes the dashboard", async () => {
  const viewer = await openConsoleTab(browser);
  try {
    await signUpInBrowser(viewer.context.request, service, "vic@example.com");
    const me = await api(tab.context.request, service, "GET", "/app/me");
    await api(tab.context.request, service, "POST", `/app/orgs/${me.orgs[0].id}/invitations`, { email: "vic@example.com", role: "viewer" });
    await api(viewer.context.request, service, "POST", "/app/invitations/accept", { token: service.lastMail("vic@example.com", "invitation").token }, 200);
    const before = await stored();
    const { page } = viewer;
    await page.goto(`${service.url}/projects/${project.id}/dashboards/${dashboardId}`);
    await waitForPage(page, "Arranged");
    await page.waitForSelector(`[data-tile-id="${ids.chart}"][data-tile-state="ready"]`);
    // The tile draws its chart, with its numbers a click away for a viewer too.
    await page.locator(`[data-tile-id="${ids.chart}"] .tile-chart`).waitFor();
    await page.locator(`[data-tile-id="${ids.chart}"]`).getByRole("button", { name: "Show the numbers" }).click();
    expect(await page.locator(`[data-tile-id="${ids.chart}"] table.tile-numbers`).count()).toBe(1);
    const controls = ["Add insight", "Add text", "Set as home", "Edit details", "Delete", "Edit text", "Add filter"];
    expect(await Promise.all(controls.map((name) => page.getByRole("button", { name }).count()))).toEqual(controls.map(() => 0));
    expect(await page.locator(".tile-resize").count()).toBe(0);
    expect(await page.isDisabled("select[name=date_range]")).toBe(true);
    await tile(page, ids.a).focus();
    await page.keyboard.press("ArrowDown");
    const header = (await tile(page, ids.b).locator(".tile-header").boundingBox())!;
    await drag(page, { x: header.x + 12, y: header.y + header.height / 2 }, { x: 0, y: 3 * (rowHeightPx + gapPx) });
    expect(await shown(page)).toEqual(before);
    expect(await stored()).toEqual(before);
    expect(viewer.problems).toEqual([]);
  } finally {
    await viewer.close();
  }
});
