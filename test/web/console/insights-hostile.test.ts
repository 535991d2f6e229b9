// Hostile event names and property values (markup, a javascript: URL, a closing script tag)
// in the insight builder: the event picker, the legend, the table, the chart's tooltip and the
// annotation drawn on the chart show them as text, no element is made from them, no script runs and no Content-Security-Policy
// report is raised.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { screenshotThemes, waitForPage } from "../../helpers/console-browser.ts";
import { daysAgoAtNoon, event, eventuallyEqual, expectNoScriptRan, hostile, sendEvents, shownTable, startInsightsWorld, type InsightsWorld } from "./insights-fixture.ts";

let world: InsightsWorld;
const [markup, javascriptUrl, scriptEnd] = hostile;

beforeAll(async () => {
  world = await startInsightsWorld();
  const annotated = await world.tab.context.request.post(`${world.service.url}/app/projects/${world.projectId}/annotations`, {
    data: { content: scriptEnd, kind: "release", occurred_at: daysAgoAtNoon(1) },
  });
  expect(annotated.status()).toBe(201);
  await sendEvents(world, [
    event(markup, "ann", 2, { browser: scriptEnd }),
    event(markup, "ben", 1, { browser: javascriptUrl }),
    event(javascriptUrl, "ann", 1, { browser: markup }),
    event(scriptEnd, "cat", 1, {}),
  ]);
}, 120_000);
afterAll(() => world?.close());

test("hostile names show as text in the event picker, legend, tooltip, annotation list and table, and nothing runs", async () => {
  const { page } = world.tab;
  await page.goto(`${world.service.url}/projects/${world.projectId}/insights/new`);
  await waitForPage(page, "New insight");
  const picker = page.getByLabel("Series 1 event");
  await eventuallyEqual(() => picker.locator("option").allTextContents(), ["All events", markup, scriptEnd, javascriptUrl]);

  await picker.selectOption(markup);
  await page.getByLabel("Breakdown by").selectOption("event");
  await page.getByLabel("Breakdown property").fill("browser");
  const names = [`${markup} · Total · ${scriptEnd}`, `${markup} · Total · ${javascriptUrl}`];
  await eventuallyEqual(() => page.locator(".chart-legend-name").allTextContents(), names);

  const canvas = page.locator(".chart-canvas canvas").first();
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const tooltip = page.locator(".chart-tooltip");
  await tooltip.waitFor();
  expect(await tooltip.locator(".chart-tooltip-name").allTextContents()).toEqual(names);
  await screenshotThemes(page, "insight-hostile-chart");

  await page.getByText("1 annotation in this range").click();
  expect(await page.locator(".chart-annotation-content").allTextContents()).toEqual([scriptEnd]);

  await page.getByRole("button", { name: "Table" }).click();
  expect((await shownTable(page)).rows.map((cells) => cells[0])).toEqual(names);
  await screenshotThemes(page, "insight-hostile-table");

  await expectNoScriptRan(page);
  expect(world.tab.problems).toEqual([]);
});

test("a hostile name saved as the insight's name and tag shows as text in the list", async () => {
  const { page } = world.tab;
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByLabel("Name").fill(markup);
  await page.getByLabel("Tags").fill(javascriptUrl);
  await page.locator("dialog").getByRole("button", { name: "Save" }).click();
  await waitForPage(page, markup);
  await page.goto(`${world.service.url}/projects/${world.projectId}/insights`);
  await waitForPage(page, "Insights");
  await page.locator(".insight-link").first().waitFor();
  expect(await page.locator(".insight-link").allTextContents()).toEqual([markup]);
  expect(await page.locator(".tag-button").allTextContents()).toEqual([javascriptUrl]);
  await expectNoScriptRan(page);
  expect(world.tab.problems).toEqual([]);
});
