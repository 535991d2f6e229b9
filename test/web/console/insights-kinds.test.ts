// Retention, paths, lifecycle, stickiness and revenue in the builder over a small seeded
// dataset: each opened from a shared link (the builder's URL state), drawn on a chart canvas
// (retention also as its heat table), and shown as a table with the numbers POST /query
// answers for the same document.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { screenshotThemes, waitForPage } from "../../helpers/console-browser.ts";
import { event, eventuallyEqual, regionQuery, sendEvents, shownNumber, shownTable, startInsightsWorld, type InsightsWorld } from "./insights-fixture.ts";

let world: InsightsWorld;
const range = { from: "-3d", to: "yesterday" };

beforeAll(async () => {
  world = await startInsightsWorld();
  await sendEvents(world, [
    event("visit", "ann", 3),
    event("visit", "ben", 3),
    event("visit", "ann", 2),
    event("visit", "cat", 2),
    event("visit", "ben", 1),
    event("visit", "ann", 1),
    event("$pageview", "ann", 2, { $pathname: "/" }, 30),
    event("$pageview", "ann", 2, { $pathname: "/pricing" }, 31),
    event("signed_up", "ann", 2, {}, 32),
    event("$pageview", "ben", 2, { $pathname: "/" }, 30),
    event("$pageview", "ben", 2, { $pathname: "/docs" }, 31),
    event("purchase", "ann", 3, { amount: 1200, currency: "EUR" }, 40),
    event("purchase", "ben", 2, { amount: 800, currency: "EUR" }, 40),
    event("purchase", "cat", 2, { amount: 500, currency: "USD" }, 40),
    event("purchase", "cat", 1, { amount: 300 }, 40),
  ]);
}, 120_000);
afterAll(() => world?.close());

/** Opens the builder on `query` (and `viz`) as a shared link would, in the chart view. */
async function openShared(query: unknown, viz?: unknown): Promise<void> {
  const params = new URLSearchParams({ q: JSON.stringify(query) });
  if (viz) params.set("viz", JSON.stringify(viz));
  await world.tab.page.goto(`${world.service.url}/projects/${world.projectId}/insights/new?${params}`);
  await waitForPage(world.tab.page, "New insight");
}

const chartCanvas = () => world.tab.page.locator(".result-panel .chart-canvas canvas").first().waitFor();
const showTable = () => world.tab.page.getByRole("button", { name: "Table" }).click();
const rowsAsShown = async (parse: (cells: string[]) => unknown[]) => (await shownTable(world.tab.page)).rows.map(parse);
const lineViz = { display: "line", show_legend: true, show_values: false, y_scale: "linear", stacked_percent: false };
const euros = (minor: number, currency: string) => new Intl.NumberFormat("en-US", { style: "currency", currency }).format(minor / 100);

test("retention: the heat table shows each cohort's shares, the line chart draws, the table shows the counts", async () => {
  const query = { ir_version: 1, date_range: range, insight: { kind: "retention", interval: "day", periods: 3, series: [{ event: "visit" }] } };
  const { result } = await regionQuery(world, query);
  expect(result.cohorts.map((cohort: any) => [cohort.size, cohort.values])).toEqual([[2, [2, 1, 2]], [2, [2, 1]], [2, [2]]]);
  await openShared(query);
  const heat = world.tab.page.locator(".heat-table");
  await heat.waitFor();
  expect(await heat.locator("tbody tr").evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)))).toEqual(
    result.cohorts.map((cohort: any) => [cohort.cohort, String(cohort.size), ...cohort.values.map((value: number) => `${Math.round((value / cohort.size) * 100)}%`), ...Array(3 - cohort.values.length).fill("")]),
  );
  await screenshotThemes(world.tab.page, "insight-retention-heat");

  await openShared(query, lineViz);
  await chartCanvas();
  await showTable();
  await eventuallyEqual(
    () => rowsAsShown((cells) => [cells[0], ...cells.slice(1).map((cell) => (cell === "" ? null : shownNumber(cell)))]),
    result.cohorts.map((cohort: any) => [cohort.cohort, cohort.size, ...cohort.values, ...Array(3 - cohort.values.length).fill(null)]),
  );
  expect(world.tab.problems).toEqual([]);
});

test("paths: a Sankey of the steps, and a table of each step's persons", async () => {
  const query = { ir_version: 1, date_range: range, insight: { kind: "paths", exclude_events: ["visit", "purchase"] } };
  const { result } = await regionQuery(world, query);
  expect(result.edges.length).toBe(3);
  await openShared(query);
  await chartCanvas();
  await screenshotThemes(world.tab.page, "insight-paths-sankey");
  await showTable();
  await eventuallyEqual(
    () => rowsAsShown((cells) => [cells[0], cells[1], shownNumber(cells[2]!)]),
    result.edges.map((edge: any) => [`Step ${edge.source_step + 1}: ${edge.source}`, `Step ${edge.target_step + 1}: ${edge.target}`, edge.persons]),
  );
  expect(world.tab.problems).toEqual([]);
});

test("lifecycle: stacked bars, and a table of each status per day", async () => {
  const query = { ir_version: 1, date_range: range, insight: { kind: "lifecycle", interval: "day", series: [{ event: "visit" }] } };
  const { result } = await regionQuery(world, query);
  await openShared(query);
  await chartCanvas();
  await screenshotThemes(world.tab.page, "insight-lifecycle");
  await showTable();
  const names = { new: "New", returning: "Returning", resurrecting: "Resurrecting", dormant: "Dormant" } as Record<string, string>;
  await eventuallyEqual(
    () => rowsAsShown((cells) => [cells[0], ...cells.slice(1).map(shownNumber)]),
    result.rows.map((row: any) => [names[row.status], row.values.reduce((sum: number, value: number) => sum + value, 0), ...row.values]),
  );
  expect(world.tab.problems).toEqual([]);
});

test("stickiness: bars, and a table of persons by the number of days they came", async () => {
  const query = { ir_version: 1, date_range: range, insight: { kind: "stickiness", interval: "day", series: [{ event: "visit" }] } };
  const { result } = await regionQuery(world, query);
  expect(result.persons).toEqual([1, 1, 1]);
  await openShared(query);
  await chartCanvas();
  await showTable();
  await eventuallyEqual(async () => {
    const table = await shownTable(world.tab.page);
    return [table.head, table.rows.map((cells) => [cells[0], ...cells.slice(1).map(shownNumber)])];
  }, [["Series", "1 day", "2 days", "3 days"], [["Persons", ...result.persons]]]);
  expect(world.tab.problems).toEqual([]);
});

test("revenue: a line per currency, and a table of money in each currency (no currency: the project's)", async () => {
  const query = { ir_version: 1, date_range: range, insight: { kind: "revenue", interval: "day", series: [{ event: "purchase" }] } };
  const { result } = await regionQuery(world, query);
  expect(result.rows.map((row: any) => [row.currency, row.total])).toEqual([["EUR", 2000], ["USD", 500], [null, 300]]);
  await openShared(query);
  await chartCanvas();
  expect(await world.tab.page.locator(".chart-legend-name").allTextContents()).toEqual(["EUR", "USD", "No currency (as EUR)"]);
  await screenshotThemes(world.tab.page, "insight-revenue");

  // The chart follows the theme: its colours are read again when <html data-theme> changes.
  const swatch = world.tab.page.locator(".chart-legend-swatch").first();
  const swatchColour = () => swatch.evaluate((element) => (globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor);
  expect(await swatchColour()).toBe("rgb(82, 80, 216)");
  await world.tab.page.emulateMedia({ colorScheme: "dark" });
  await eventuallyEqual(swatchColour, "rgb(134, 132, 245)");
  await world.tab.page.emulateMedia({ colorScheme: "light" });
  await showTable();
  await eventuallyEqual(
    () => rowsAsShown((cells) => cells),
    result.rows.map((row: any) => {
      const currency = row.currency ?? "EUR";
      return [row.currency ?? "No currency (as EUR)", euros(row.total, currency), ...row.values.map((value: number) => euros(value, currency))];
    }),
  );
  expect(world.tab.problems).toEqual([]);
});
