// The insight builder in headless Chromium over seeded events: a trends insight with a
// breakdown and a funnel built as a person would, their tables equal to what POST /query
// answers for the same document (the one in the builder's URL), saved and reloaded with the
// same numbers; "Show SQL" shows the query's SQL; an invalid document shows the engine's
// message in the part of the builder it names.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { screenshotThemes, waitForPage } from "../../helpers/console-browser.ts";
import { event, eventuallyEqual, regionQuery, sendEvents, shownNumber, shownPercent, shownTable, roundedRatio, startInsightsWorld, urlQuery, type InsightsWorld } from "./insights-fixture.ts";

let world: InsightsWorld;

beforeAll(async () => {
  world = await startInsightsWorld();
  await sendEvents(world, [
    event("page_viewed", "ada", 3, { browser: "Chrome" }),
    event("page_viewed", "ada", 2, { browser: "Chrome" }),
    event("page_viewed", "bob", 2, { browser: "Firefox" }),
    event("page_viewed", "cy", 1, { browser: "Chrome" }),
    event("page_viewed", "dee", 1, {}),
    event("signed_up", "ada", 3, {}, 5),
    event("signed_up", "bob", 2, {}, 5),
    event("purchased", "ada", 3, { amount: 1200 }, 10),
  ]);
}, 120_000);
afterAll(() => world?.close());

const builderUrl = () => `${world.service.url}/projects/${world.projectId}/insights/new`;

/** The trends table as numbers: each row's total then its values. */
const trendsNumbers = async () => (await shownTable(world.tab.page)).rows.map((cells) => cells.slice(1).map(shownNumber));
const trendsLabels = async () => (await shownTable(world.tab.page)).rows.map((cells) => cells[0]);

let trendsInsightUrl = "";

test("a trends insight by browser shows the numbers POST /query answers, and keeps them when saved and reloaded", async () => {
  const { page } = world.tab;
  await page.goto(builderUrl());
  await waitForPage(page, "New insight");
  await page.getByLabel("Series 1 event").selectOption("page_viewed");
  await page.getByLabel("Breakdown by").selectOption("event");
  await page.getByLabel("Breakdown property").fill("browser");
  await page.getByRole("button", { name: "Table" }).click();

  await page.waitForURL((url) => url.searchParams.get("q")?.includes('"browser"') ?? false);
  const query = urlQuery(page);
  expect(query).toEqual({
    ir_version: 1,
    date_range: { from: "-7d" },
    insight: { kind: "trends", interval: "day", series: [{ event: "page_viewed", math: "total" }], breakdown: { type: "event", property: "browser" } },
  });
  const { result } = await regionQuery(world, query);
  expect(result.rows.map((row: any) => [row.breakdown_value, row.total])).toEqual([["Chrome", 3], ["Firefox", 1], [null, 1]]);
  const expected = result.rows.map((row: any) => [row.total, ...row.values]);
  await eventuallyEqual(trendsNumbers, expected);
  expect(await trendsLabels()).toEqual(["page_viewed · Total · Chrome", "page_viewed · Total · Firefox", "page_viewed · Total · (none)"]);
  expect((await shownTable(page)).head).toEqual(["Series", "Total", ...result.buckets]);
  await screenshotThemes(page, "insight-trends-table");

  await page.getByRole("button", { name: "Chart" }).click();
  await page.locator(".chart-canvas canvas").first().waitFor();
  expect(await page.locator(".chart-legend-name").allTextContents()).toEqual(["page_viewed · Total · Chrome", "page_viewed · Total · Firefox", "page_viewed · Total · (none)"]);
  await screenshotThemes(page, "insight-trends-chart");

  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByLabel("Name").fill("Views by browser");
  await page.getByLabel("Tags").fill("growth, web");
  await page.locator("dialog").getByRole("button", { name: "Save" }).click();
  await waitForPage(page, "Views by browser");
  trendsInsightUrl = page.url();
  const insightId = new URL(trendsInsightUrl).pathname.split("/").at(-1)!;
  const saved = await (await world.tab.context.request.get(`${world.service.url}/app/projects/${world.projectId}/insights/${insightId}`)).json();
  expect([saved.name, saved.tags, saved.query, saved.viz.display]).toEqual(["Views by browser", ["growth", "web"], query, "line"]);

  await page.reload();
  await waitForPage(page, "Views by browser");
  await page.getByRole("button", { name: "Table" }).click();
  await eventuallyEqual(trendsNumbers, expected);
  expect(world.tab.problems).toEqual([]);
});

test("editing a saved insight offers Save changes, which stores the new document and leaves the link clean", async () => {
  const { page } = world.tab;
  await page.goto(trendsInsightUrl);
  await waitForPage(page, "Views by browser");
  expect(await page.getByRole("button", { name: "Saved" }).isDisabled()).toBe(true);
  await page.getByLabel("Interval").selectOption("week");
  await page.waitForURL((url) => url.searchParams.get("q")?.includes('"week"') ?? false);
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByRole("button", { name: "Saved" }).waitFor();
  expect(new URL(page.url()).search).toBe("");
  const insightId = new URL(trendsInsightUrl).pathname.split("/").at(-1)!;
  const saved = await (await world.tab.context.request.get(`${world.service.url}/app/projects/${world.projectId}/insights/${insightId}`)).json();
  expect(saved.query.insight.interval).toBe("week");
  await page.getByLabel("Interval").selectOption("day");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByRole("button", { name: "Saved" }).waitFor();
  expect(world.tab.problems).toEqual([]);
});

test("a funnel shows each step's persons and conversions as POST /query answers them, saved and reloaded", async () => {
  const { page } = world.tab;
  await page.goto(builderUrl());
  await waitForPage(page, "New insight");
  await page.getByRole("tab", { name: "Funnel" }).click();
  await page.getByLabel("Step 1 event").selectOption("page_viewed");
  await page.getByLabel("Step 2 event").selectOption("signed_up");
  await page.getByRole("button", { name: "Add step" }).click();
  await page.getByLabel("Step 3 event").selectOption("purchased");
  await page.getByRole("button", { name: "Table" }).click();

  await page.waitForURL((url) => url.searchParams.get("q")?.includes('"purchased"') ?? false);
  const query = urlQuery(page);
  expect(query.insight).toEqual({ kind: "funnel", series: [{ event: "page_viewed" }, { event: "signed_up" }, { event: "purchased" }] });
  const { result } = await regionQuery(world, query);
  expect(result.steps.map((step: any) => step.count)).toEqual([4, 2, 1]);
  const funnelNumbers = async () =>
    (await shownTable(page)).rows.map((cells) => [cells[0], shownNumber(cells[1]!), shownPercent(cells[2]!), shownPercent(cells[3]!)]);
  await eventuallyEqual(
    funnelNumbers,
    result.steps.map((step: any) => [`${step.step + 1}. ${step.event}`, step.count, roundedRatio(step.conversion_from_previous), roundedRatio(step.conversion_from_first)]),
  );

  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByLabel("Name").fill("Sign-up funnel");
  await page.locator("dialog").getByRole("button", { name: "Save" }).click();
  await waitForPage(page, "Sign-up funnel");
  await page.reload();
  await waitForPage(page, "Sign-up funnel");
  await page.getByRole("button", { name: "Table" }).click();
  await eventuallyEqual(funnelNumbers, result.steps.map((step: any) => [`${step.step + 1}. ${step.event}`, step.count, roundedRatio(step.conversion_from_previous), roundedRatio(step.conversion_from_first)]));
  await page.getByRole("button", { name: "Chart" }).click();
  await page.locator(".chart-canvas canvas").first().waitFor();
  await screenshotThemes(page, "insight-funnel-chart");
  expect(world.tab.problems).toEqual([]);
});

test("Show SQL shows the SQL the region compiles the query to", async () => {
  const { page } = world.tab;
  await page.goto(trendsInsightUrl);
  await waitForPage(page, "Views by browser");
  await page.getByRole("button", { name: "Show SQL" }).click();
  const sql = page.getByLabel("SQL", { exact: true });
  await sql.waitFor();
  const saved = urlQuery(page) ?? null;
  expect(saved).toBeNull();
  const insightId = new URL(page.url()).pathname.split("/").at(-1)!;
  const { query } = await (await world.tab.context.request.get(`${world.service.url}/app/projects/${world.projectId}/insights/${insightId}`)).json();
  const answer = await regionQuery(world, query, true);
  expect(answer.sql).toContain("SELECT");
  expect(await sql.textContent()).toBe(answer.sql);
  expect(await page.getByLabel("SQL parameters", { exact: true }).textContent()).toBe(JSON.stringify(answer.params));
  await screenshotThemes(page, "insight-sql");
});

test("an invalid builder state shows the engine's message beside the series it names", async () => {
  const { page } = world.tab;
  await page.goto(builderUrl());
  await waitForPage(page, "New insight");
  await page.getByLabel("Series 1 event").selectOption("purchased");
  await page.getByLabel("Series 1 math").selectOption("sum");
  const series = page.locator("section[aria-label=Series]");
  await series.getByRole("alert").waitFor();
  expect(await series.getByRole("alert").textContent()).toBe("/insight/series/0/property: is required for math sum.");
  expect(await page.locator(".result-panel .result-note").textContent()).toBe("This insight cannot run yet: fix the problem marked in the builder.");
  await screenshotThemes(page, "insight-invalid");

  await page.getByLabel("Series 1 property").fill("amount");
  await page.getByRole("button", { name: "Table" }).click();
  await eventuallyEqual(trendsNumbers, [[1200, 0, 0, 0, 0, 1200, 0, 0, 0]]);
  expect(await series.getByRole("alert").count()).toBe(0);
  // The browser logs the region's refusal; nothing else went wrong.
  expect(new Set(world.tab.problems)).toEqual(new Set(["console error: Failed to load resource: the server responded with a status of 400 (Bad Request)"]));
  world.tab.problems.length = 0;
});

test("a reload restores the builder's state from its URL", async () => {
  const { page } = world.tab;
  const before = urlQuery(page);
  await page.reload();
  await waitForPage(page, "New insight");
  expect(urlQuery(page)).toEqual(before);
  expect(await page.getByLabel("Series 1 math").inputValue()).toBe("sum");
  expect(await page.getByLabel("Series 1 property").inputValue()).toBe("amount");
  expect(await page.getByRole("button", { name: "Table" }).getAttribute("aria-pressed")).toBe("true");
  await eventuallyEqual(trendsNumbers, [[1200, 0, 0, 0, 0, 1200, 0, 0, 0]]);
  expect(world.tab.problems).toEqual([]);
});
