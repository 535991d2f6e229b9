// The revenue builder's measures over subscription events sent through native ingest: MRR
// movements chosen in the builder (the document in the URL names the measure and the project's
// currency, and no series), drawn as stacked bars whose tooltip and table show the numbers
// POST /query answers; then churn rate as percentages. The numbers are also checked by hand.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { screenshotThemes, waitForPage } from "../../helpers/console-browser.ts";
import { event, eventuallyEqual, regionQuery, sendEvents, shownTable, startInsightsWorld, urlQuery, type InsightsWorld } from "./insights-fixture.ts";

let world: InsightsWorld;
const range = { from: "-4d", to: "yesterday" };

const subscription = (name: string, person: string, daysAgo: number, id: string, mrr: number, minutes = 0) => event(name, person, daysAgo, { subscription_id: id, mrr, currency: "EUR" }, minutes);

beforeAll(async () => {
  world = await startInsightsWorld("Subscriptions");
  await sendEvents(world, [
    // Paying before the range: 6,500 at its start.
    subscription("$subscription_started", "ann", 6, "sub_a", 1000),
    subscription("$subscription_started", "ben", 6, "sub_b", 2000),
    subscription("$subscription_started", "dan", 6, "sub_d", 500),
    subscription("$subscription_started", "eve", 6, "sub_e", 3000),
    subscription("$subscription_upgraded", "ann", 3, "sub_a", 1500),
    subscription("$subscription_started", "cat", 2, "sub_c", 1000),
    subscription("$subscription_downgraded", "eve", 2, "sub_e", 1000),
    subscription("$subscription_expired", "ben", 2, "sub_b", 0),
    subscription("$subscription_started", "ben", 1, "sub_b2", 2500),
    subscription("$subscription_cancelled", "dan", 1, "sub_d", 500),
    subscription("$subscription_expired", "dan", 1, "sub_d", 0, 5),
  ]);
}, 120_000);
afterAll(() => world?.close());

const page = () => world.tab.page;
const euros = (minor: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" }).format(minor / 100);
const percent = (ratio: number) => new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 }).format(ratio);
const rowsShown = async () => (await shownTable(page())).rows;
const byLabel = (result: any) => Object.fromEntries(result.rows.map((row: any) => [row.label, row.total]));

test("MRR movements: chosen in the builder, stacked bars and a table of the engine's numbers; then churn rate", async () => {
  const revenue = { ir_version: 1, date_range: range, insight: { kind: "revenue", interval: "day", series: [{ event: "$charge" }] } };
  await page().goto(`${world.service.url}/projects/${world.projectId}/insights/new?${new URLSearchParams({ q: JSON.stringify(revenue) })}`);
  await waitForPage(page(), "New insight");
  expect(await page().getByRole("region", { name: "Revenue events" }).count()).toBe(1);
  expect(await page().getByLabel("Convert to EUR").isChecked()).toBe(false);

  await page().getByLabel("Revenue measure").selectOption("mrr_movements");
  const movements = { ir_version: 1, date_range: range, insight: { kind: "revenue", interval: "day", revenue_measure: "mrr_movements", currency: "EUR" } };
  await eventuallyEqual(async () => urlQuery(page()), movements);
  expect(await page().getByRole("region", { name: "Revenue events" }).count()).toBe(0);
  expect(await page().getByLabel("Convert to EUR").isChecked()).toBe(true);

  const { result } = await regionQuery(world, movements);
  expect(byLabel(result)).toEqual({ new: 1000, expansion: 500, contraction: -2000, churned: -2500, reactivated: 2500, net: -500 });
  expect(result.rows.every((row: any) => row.currency === "EUR")).toBe(true);

  await page().locator(".result-panel .chart-canvas canvas").first().waitFor();
  await eventuallyEqual(() => page().locator(".chart-legend-name").allTextContents(), ["New", "Expansion", "Contraction", "Churned", "Reactivated", "Net"]);
  // The chart's own numbers: its tooltip over each day names every movement and its amount.
  const canvas = await page().locator(".result-panel .chart-canvas").first().boundingBox();
  const days = result.buckets.length;
  for (let day = 0; day < days; day++) {
    await page().mouse.move(canvas!.x + canvas!.width * ((day + 0.5) / days), canvas!.y + canvas!.height / 2);
    await eventuallyEqual(
      () => page().locator(".chart-tooltip").last().evaluate((element) => [...element.querySelectorAll(".chart-tooltip-row")].map((row) => `${row.querySelector(".chart-tooltip-name")?.textContent}: ${row.querySelector(".chart-tooltip-value")?.textContent}`)),
      result.rows.map((row: any) => `${{ new: "New", expansion: "Expansion", contraction: "Contraction", churned: "Churned", reactivated: "Reactivated", net: "Net" }[row.label as string]}: ${euros(row.values[day])}`),
    );
  }
  await screenshotThemes(page(), "insight-revenue-movements");

  await page().getByRole("button", { name: "Table" }).click();
  const names = ["New", "Expansion", "Contraction", "Churned", "Reactivated", "Net"];
  await eventuallyEqual(rowsShown, result.rows.map((row: any, at: number) => [names[at], euros(row.total), ...row.values.map(euros)]));
  await screenshotThemes(page(), "insight-revenue-movements-table");

  await page().getByLabel("Revenue measure").selectOption("churn_rate");
  const churn = { ...movements, insight: { ...movements.insight, revenue_measure: "churn_rate" } };
  await eventuallyEqual(async () => urlQuery(page()), churn);
  const churned = (await regionQuery(world, churn)).result;
  // Four paying at the range's start, dan not at its end; 2,500 of 6,500 lost to contraction and churn.
  expect(byLabel(churned)).toEqual({ customer_churn: 0.25, revenue_churn: 0.384615 });
  await eventuallyEqual(rowsShown, churned.rows.map((row: any, at: number) => [["Customer churn", "Revenue churn"][at], percent(row.total), ...row.values.map(percent)]));
  await page().getByRole("button", { name: "Chart" }).click();
  await page().locator(".result-panel .chart-canvas canvas").first().waitFor();
  await eventuallyEqual(() => page().locator(".chart-legend-name").allTextContents(), ["Customer churn", "Revenue churn"]);
  await screenshotThemes(page(), "insight-revenue-churn");

  // Turning the conversion off asks per currency; back to revenue brings one series back, unconverted.
  await page().getByLabel("Convert to EUR").uncheck();
  await eventuallyEqual(async () => urlQuery(page()).insight, { kind: "revenue", interval: "day", revenue_measure: "churn_rate" });
  await page().getByLabel("Revenue measure").selectOption("revenue");
  await eventuallyEqual(async () => urlQuery(page()).insight, { kind: "revenue", interval: "day", series: [{ event: null }] });
  expect(await page().getByRole("region", { name: "Revenue events" }).count()).toBe(1);
  expect(world.tab.problems).toEqual([]);
}, 120_000);
