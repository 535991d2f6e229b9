// Dashboards in the web console, in headless Chromium against the real service: a dashboard is
// created in the browser, two saved insights (a trends with a breakdown, a funnel) and a text
// tile are added; after a reload every tile shows the numbers POST /query answers for its
// request (sent with a token from /app/projects/{id}/region-token); the dashboard's date range
// and filters override the tiles'; a tile whose query fails shows its error beside the others'
// numbers; set as home; delete. Hostile names (the dashboard's, the text tile's, event names
// and property values) show literally with nothing run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../helpers/chromium.ts";
import { fillForm, openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import {
  api, createProject, funnelQuery, funnelRows, hostileBrowser, shownTileRows, hostileEvent, queryRegion, saveInsight, seedEvents, sendEvents, signUpInBrowser, trendsQuery, trendsRows, type Project,
} from "./dashboard-fixtures.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let project: Project;
let trendsInsight: any;
let funnelInsight: any;
let dashboardId = "";
let dashboardIdOther = "";

const hostileName = "<script>window.__pwned=3</script>Growth & <b>KPIs</b>";
const renamed = `${hostileName} (v2)`;
const hostileText = "# Notes\n<img src=x onerror=window.__pwned=4>\n\n<script>window.__pwned=5</script> **not bold**";
/** A 409 from the region is the failing tile the test makes; Chromium logs it as a failed resource. */
const expectedFailure = /status of 409/;

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  const request = tab.context.request;
  await signUpInBrowser(request, service, "dana@example.com");
  project = await createProject(request, service, "Shop");
  await sendEvents(service, project.key, seedEvents());
  trendsInsight = await saveInsight(request, service, project.id, "Page views by browser", trendsQuery);
  funnelInsight = await saveInsight(request, service, project.id, "Sign-up funnel", funnelQuery);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const dashboardsUrl = () => `${service.url}/projects/${project.id}/dashboards`;
const getDashboard = () => api(tab.context.request, service, "GET", `/app/projects/${project.id}/dashboards/${dashboardId}`);
const tile = (page: Page, tileId: string) => page.locator(`[data-tile-id="${tileId}"]`);

/** Waits until no tile is loading. */
const noneLoading = (page: Page) => page.locator('[data-tile-state="loading"]').first().waitFor({ state: "detached" });

/** Waits until exactly `count` elements match (the page's script policy allows no string evaluation). */
async function waitForCount(page: Page, selector: string, count: number): Promise<void> {
  if (count > 0) await page.locator(selector).nth(count - 1).waitFor({ state: "attached" });
  await page.locator(selector).nth(count).waitFor({ state: "detached" });
}

/** Waits until no tile is loading, and answers each tile's state. */
async function settledTiles(page: Page): Promise<Record<string, string>> {
  await page.waitForSelector(".dashboard-grid");
  await noneLoading(page);
  return page.$$eval("[data-tile-id]", (tiles) => Object.fromEntries(tiles.map((element) => [element.getAttribute("data-tile-id"), element.getAttribute("data-tile-state")])));
}

/** Runs `action`, then waits until `count` tiles have loaded again from the region. */
async function reloadingTiles(page: Page, count: number, action: () => Promise<unknown>): Promise<void> {
  let answered = 0;
  const done = new Promise<void>((resolve) => {
    const seen = (response: { url(): string; request(): { method(): string } }) => {
      if (!response.url().endsWith("/query") || response.request().method() !== "POST") return;
      if (++answered < count) return;
      page.off("response", seen);
      resolve();
    };
    page.on("response", seen);
  });
  await action();
  await done;
  await noneLoading(page);
}

/** Every insight tile shows what POST /query answers for the request the dashboard hands out for it. */
async function expectTilesMatchQueries(page: Page, except: string[] = []): Promise<Record<string, any>> {
  const dashboard = await getDashboard();
  const results: Record<string, any> = {};
  for (const shown of dashboard.tiles.filter((candidate: any) => candidate.kind === "insight" && !except.includes(candidate.id))) {
    const result = await queryRegion(tab.context.request, service, project.id, shown.request);
    results[shown.insight_id] = result;
    const expected = result.kind === "trends" ? trendsRows(result) : funnelRows(result);
    expect({ tile: shown.insight.name, rows: await shownTileRows(page, shown.id) }).toEqual({ tile: shown.insight.name, rows: expected });
  }
  return results;
}

describe("the list", () => {
  test("an empty project says it has no dashboards and offers to create one; Dashboards is in the sidebar", async () => {
    const { page } = tab;
    await page.goto(`${service.url}/projects/${project.id}/setup`);
    await waitForPage(page, "Send your first event");
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Dashboards" }).click();
    await waitForPage(page, "Dashboards");
    await page.waitForSelector("text=No dashboards yet");
    // Dashboards is the first of the data sections, after "Get started".
    expect((await page.$$eval(".sidebar-nav a", (links) => links.map((link) => link.textContent))).slice(0, 2)).toEqual(["Get started", "Dashboards"]);
    expect(await page.getAttribute(".sidebar-nav a[aria-current=page]", "href")).toBe(`/projects/${project.id}/dashboards`);
    await screenshotThemes(page, "dashboards-empty");
  });

  test("a dashboard created in the browser opens empty, with a way to add tiles", async () => {
    const { page } = tab;
    await page.getByRole("button", { name: "New dashboard" }).first().click();
    await fillForm(page, { name: hostileName, description: "Numbers the team <i>watches</i>" });
    await page.getByRole("button", { name: "Create dashboard" }).click();
    await waitForPage(page, hostileName);
    dashboardId = new URL(page.url()).pathname.split("/").at(-1)!;
    await page.waitForSelector("text=This dashboard has no tiles yet");
    const dashboard = await getDashboard();
    expect([dashboard.name, dashboard.description, dashboard.tiles, dashboard.is_home]).toEqual([hostileName, "Numbers the team <i>watches</i>", [], false]);
    expect(await page.textContent(".page-lede")).toBe("Numbers the team <i>watches</i>");
    await screenshotThemes(page, "dashboard-empty");
  });
});

describe("tiles", () => {
  test("both saved insights and a text tile are added in the browser", async () => {
    const { page } = tab;
    for (const insight of [trendsInsight, funnelInsight]) {
      await page.getByRole("button", { name: "Add insight" }).first().click();
      await page.getByRole("button", { name: new RegExp(`^${insight.name}`) }).click();
      await page.waitForSelector("dialog[open]", { state: "detached" }).catch(() => {});
      await page.locator(".tile-title", { hasText: insight.name }).waitFor();
    }
    await page.getByRole("button", { name: "Add text" }).first().click();
    await page.fill("textarea[name=body]", hostileText);
    await page.getByRole("dialog").getByRole("button", { name: "Add text" }).click();
    await page.waitForSelector(".tile-text-body");

    const dashboard = await getDashboard();
    expect(dashboard.tiles.map((shown: any) => [shown.kind, shown.insight_id, shown.body, shown.layout])).toEqual([
      ["insight", trendsInsight.id, null, { x: 0, y: 0, w: 6, h: 5 }],
      ["insight", funnelInsight.id, null, { x: 0, y: 5, w: 6, h: 5 }],
      ["text", null, hostileText, { x: 0, y: 10, w: 12, h: 2 }],
    ]);
  });

  test("after a reload every tile shows the numbers POST /query answers for its request", async () => {
    const { page } = tab;
    await page.reload();
    await waitForPage(page, hostileName);
    const states = await settledTiles(page);
    expect(Object.values(states)).toEqual(["ready", "ready", "ready"]);
    // Each insight tile draws its insight's chart first.
    for (const shown of (await getDashboard()).tiles.filter((candidate: any) => candidate.kind === "insight")) {
      await page.locator(`[data-tile-id="${shown.id}"] .tile-chart canvas`).first().waitFor();
    }
    await screenshotThemes(page, "dashboard-charts");
    const results = await expectTilesMatchQueries(page);
    // The seeded events are there: 7 page views in Chrome, 10 persons entered the funnel, 2 bought.
    const chrome = results[trendsInsight.id].rows.find((row: any) => row.event === "$pageview" && row.breakdown_value === "Chrome");
    expect(chrome.total).toBe(5);
    expect(results[funnelInsight.id].steps.map((step: any) => step.count)).toEqual([10, 4, 2]);
    // Each insight tile's title links to its insight.
    expect(await page.getAttribute(".tile-title >> nth=0", "href")).toBe(`/projects/${project.id}/insights/${trendsInsight.id}`);
    await screenshotThemes(page, "dashboard-tiles");
    expect(tab.problems).toEqual([]);
  });

  test("hostile names show literally and nothing in them runs", async () => {
    const { page } = tab;
    expect(await page.textContent("h1")).toBe(hostileName);
    expect(await page.textContent(".tile-text-body")).toBe(hostileText);
    // Line breaks are kept as written (white-space: pre-wrap), not turned into markup.
    expect(await page.locator(".tile-text-body").innerText()).toBe(hostileText);
    const labels = (await shownTileRows(page, (await getDashboard()).tiles[0].id)).map(([label]) => label);
    expect(labels).toContain(`$pageview · ${hostileBrowser}`);
    expect(labels).toContain(`${hostileEvent} · (none)`);
    expect(await page.locator("main img, main script, main b, main i").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  });

  test("the text tile is edited and removed; an insight tile is removed and the insight stays", async () => {
    const { page } = tab;
    const textTile = page.locator(".tile-text");
    await textTile.getByRole("button", { name: "Edit text" }).click();
    await page.fill("textarea[name=body]", "Line one\nLine two");
    await page.getByRole("button", { name: "Save text" }).click();
    await page.locator(".tile-text-body", { hasText: "Line one" }).waitFor();
    expect(await page.textContent(".tile-text-body")).toBe("Line one\nLine two");
    expect((await getDashboard()).tiles.find((shown: any) => shown.kind === "text").body).toBe("Line one\nLine two");

    await textTile.getByRole("button", { name: "Remove text from the dashboard" }).click();
    await page.getByRole("button", { name: "Remove tile" }).click();
    await page.waitForSelector(".tile-text", { state: "detached" });

    const extra = await api(tab.context.request, service, "POST", `/app/projects/${project.id}/dashboards/${dashboardId}/tiles`, { kind: "insight", insight_id: funnelInsight.id });
    await page.reload();
    await settledTiles(page);
    await tile(page, extra.id).getByRole("button", { name: `Remove ${funnelInsight.name} from the dashboard` }).click();
    await page.getByRole("button", { name: "Remove tile" }).click();
    await tile(page, extra.id).waitFor({ state: "detached" });
    expect((await getDashboard()).tiles.map((shown: any) => shown.insight_id)).toEqual([trendsInsight.id, funnelInsight.id]);
    expect((await api(tab.context.request, service, "GET", `/app/projects/${project.id}/insights/${funnelInsight.id}`)).name).toBe(funnelInsight.name);
  });
});

describe("the dashboard's date range and filters", () => {
  test("a date range replaces every tile's: the numbers change to POST /query's for the overridden range", async () => {
    const { page } = tab;
    const before = await expectTilesMatchQueries(page);
    await reloadingTiles(page, 2, () => page.selectOption("select[name=date_range]", "-24h"));

    const dashboard = await getDashboard();
    expect(dashboard.date_range).toEqual({ from: "-24h" });
    expect(dashboard.tiles.map((shown: any) => shown.request.body.query.date_range)).toEqual([{ from: "-24h" }, { from: "-24h" }]);
    const after = await expectTilesMatchQueries(page);
    expect(after[funnelInsight.id].steps.map((step: any) => step.count)).toEqual([4, 1, 1]);
    expect(after[trendsInsight.id]).not.toEqual(before[trendsInsight.id]);
    await screenshotThemes(page, "dashboard-overridden");

    // The saved range is what the page opens with.
    await page.reload();
    await settledTiles(page);
    expect(await page.inputValue("select[name=date_range]")).toBe("-24h");
    await expectTilesMatchQueries(page);
  });

  test("a filter is added to every tile's; a range the API refuses is said and changes nothing", async () => {
    const { page } = tab;
    await page.getByRole("button", { name: "Add filter" }).click();
    await page.selectOption("select[name=type]", "event");
    await page.fill("input[name=key]", "$browser");
    await page.fill("input[name=value]", "Chrome");
    await reloadingTiles(page, 2, () => page.getByRole("dialog").getByRole("button", { name: "Add filter" }).click());
    await page.waitForSelector("text=$browser equals Chrome");
    const chromeOnly = { type: "event", key: "$browser", operator: "eq", value: "Chrome" };
    const dashboard = await getDashboard();
    expect(dashboard.filters).toEqual({ properties: [chromeOnly] });
    expect(dashboard.tiles.map((shown: any) => shown.request.body.query.filters)).toEqual([[chromeOnly], [chromeOnly]]);
    const results = await expectTilesMatchQueries(page);
    // The filter applies to every step's events: sign-ups and purchases carry no browser.
    expect(results[funnelInsight.id].steps.map((step: any) => step.count)).toEqual([3, 0, 0]);

    // A custom range the Query IR refuses: the dialog says why, and the dashboard keeps its range.
    await page.selectOption("select[name=date_range]", "custom");
    await page.fill("input[name=from]", "1900-01-01");
    await page.getByRole("button", { name: "Apply to every tile" }).click();
    await page.waitForSelector('dialog[open] [role=alert]:has-text("before 1970-01-01")');
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    expect(tab.problems).toEqual(["console error: Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
    tab.problems.length = 0;
    expect((await getDashboard()).date_range).toEqual({ from: "-24h" });
    expect(await page.inputValue("select[name=date_range]")).toBe("-24h");

    // Removing the filter and choosing the tiles' own range puts every tile back on its own query.
    await reloadingTiles(page, 2, () => page.getByRole("button", { name: "Remove filter $browser equals Chrome" }).click());
    await page.waitForSelector("text=$browser equals Chrome", { state: "detached" });
    await reloadingTiles(page, 2, () => page.selectOption("select[name=date_range]", ""));
    const own = await getDashboard();
    expect([own.date_range, own.filters, own.tiles.map((shown: any) => shown.request.body.query)]).toEqual([null, null, [trendsQuery, funnelQuery]]);
    await expectTilesMatchQueries(page);
  });
});

describe("failures, refresh, home and delete", () => {
  test("a tile whose query fails shows its error while the others show their numbers", async () => {
    const { page } = tab;
    const cohortId = Bun.randomUUIDv7();
    const broken = await saveInsight(tab.context.request, service, project.id, "Needs a cohort", {
      ...trendsQuery, filters: [{ type: "cohort", cohort_id: cohortId, operator: "in" }],
    });
    const failing = await api(tab.context.request, service, "POST", `/app/projects/${project.id}/dashboards/${dashboardId}/tiles`, { kind: "insight", insight_id: broken.id });
    await page.reload();
    const states = await settledTiles(page);
    expect(Object.values(states).sort()).toEqual(["failed", "ready", "ready"]);
    expect(states[failing.id]).toBe("failed");
    expect(await tile(page, failing.id).locator(".tile-failure-text").textContent()).toContain(`ohort ${cohortId} has no calculated membership`);
    await expectTilesMatchQueries(page, [failing.id]);
    await screenshotThemes(page, "dashboard-failed-tile");

    // "Try again" asks again, and fails the same way.
    const retried = page.waitForResponse((response) => response.url().endsWith("/query") && response.status() === 409);
    await tile(page, failing.id).getByRole("button", { name: "Try again" }).click();
    await retried;
    await page.waitForSelector(`[data-tile-id="${failing.id}"][data-tile-state="failed"]`);
    expect(tab.problems.filter((problem) => !expectedFailure.test(problem))).toEqual([]);
    tab.problems.length = 0;
    await api(tab.context.request, service, "DELETE", `/app/projects/${project.id}/dashboards/${dashboardId}/tiles/${failing.id}`, undefined, 204);
  });

  test("Refresh loads every tile again, asking the region to compute afresh", async () => {
    const { page } = tab;
    await page.reload();
    await settledTiles(page);
    const sent: { refresh: boolean }[] = [];
    page.on("request", (request) => request.url().endsWith("/query") && sent.push(request.postDataJSON()));
    // Two more page views in Chrome arrive; a refresh shows them.
    await sendEvents(service, project.key, [{ event: "$pageview", person: "p11", at: Date.now() - 60_000, properties: { $browser: "Chrome" } }, { event: "$pageview", person: "p12", at: Date.now() - 60_000, properties: { $browser: "Chrome" } }]);
    await reloadingTiles(page, 2, () => page.getByRole("button", { name: "Refresh" }).click());
    expect(sent.map((body) => body.refresh)).toEqual([true, true]);
    const results = await expectTilesMatchQueries(page);
    expect(results[trendsInsight.id].rows.find((row: any) => row.breakdown_value === "Chrome").total).toBe(7);
  });

  test("rename, describe and tag the dashboard", async () => {
    const { page } = tab;
    await page.getByRole("button", { name: "Edit details" }).click();
    await fillForm(page, { name: renamed, description: "", tags: "kpi, <u>team</u>, kpi" });
    const saved = page.waitForResponse((response) => response.request().method() === "PATCH" && response.url().endsWith(dashboardId));
    await page.getByRole("button", { name: "Save", exact: true }).click();
    expect((await saved).status()).toBe(200);
    await waitForPage(page, renamed);
    const dashboard = await getDashboard();
    expect([dashboard.name, dashboard.description, dashboard.tags]).toEqual([renamed, null, ["kpi", "<u>team</u>"]]);
    expect(await page.$$eval(".page .tag-list .badge", (tags) => tags.map((tag) => tag.textContent))).toEqual(["kpi", "<u>team</u>"]);
    expect(await page.locator(".page-lede").count()).toBe(0);
    expect(await page.locator("main u").count()).toBe(0);
  });

  test("set as home: the dashboard is the project's home and comes first in the list", async () => {
    const { page } = tab;
    const other = await api(tab.context.request, service, "POST", `/app/projects/${project.id}/dashboards`, { name: "A first by name", tags: ["ops"] });
    await page.getByRole("button", { name: "Set as home" }).click();
    await page.waitForSelector("text=Home dashboard");
    expect((await getDashboard()).is_home).toBe(true);
    expect(await page.getByRole("button", { name: "Set as home" }).count()).toBe(0);

    await page.goto(dashboardsUrl());
    await waitForPage(page, "Dashboards");
    await page.waitForSelector(".data-table");
    const rows = await page.$$eval(".data-table tbody tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)));
    expect(rows).toEqual([
      [`${renamed} Home`, "kpi<u>team</u>", "2"],
      ["A first by name", "ops", "0"],
    ]);
    await screenshotThemes(page, "dashboards-list");

    // Search narrows the list by name or description.
    await page.fill("input[name=search]", "first by");
    await waitForCount(page, ".data-table tbody tr", 1);
    expect(await page.textContent(".data-table tbody tr .list-name-link")).toBe("A first by name");
    await page.fill("input[name=search]", "nothing like this");
    await page.waitForSelector("text=No dashboards match");
    await page.fill("input[name=search]", "");
    await waitForCount(page, ".data-table tbody tr", 2);
    dashboardIdOther = other.id;
  });

  test("delete asks first, then the dashboard is gone", async () => {
    const { page } = tab;
    await page.getByRole("button", { name: "Delete A first by name" }).click();
    await page.waitForSelector("dialog[open] >> text=will be deleted");
    await page.getByRole("button", { name: "Cancel" }).click();
    expect((await api(tab.context.request, service, "GET", `/app/projects/${project.id}/dashboards/${dashboardIdOther}`)).name).toBe("A first by name");

    await page.getByRole("button", { name: "Delete A first by name" }).click();
    await page.getByRole("button", { name: "Delete dashboard" }).click();
    await waitForCount(page, ".data-table tbody tr", 1);
    await api(tab.context.request, service, "GET", `/app/projects/${project.id}/dashboards/${dashboardIdOther}`, undefined, 404);

    // And from its own page, which then shows the list.
    await page.getByRole("link", { name: renamed }).click();
    await waitForPage(page, renamed);
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Delete dashboard" }).click();
    await waitForPage(page, "Dashboards");
    await page.waitForSelector("text=No dashboards yet");
    await api(tab.context.request, service, "GET", `/app/projects/${project.id}/dashboards/${dashboardId}`, undefined, 404);
    expect(tab.problems).toEqual([]);
  });
});
