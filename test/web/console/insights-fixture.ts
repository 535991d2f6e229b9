// What the insights browser tests share: the service and Chromium, a signed-in person with a
// UTC project, events sent to its ingest, the region's own answer to a Query IR document
// (through a region token from /app/projects/{id}/region-token, as the console gets one), and
// reading the numbers a result table shows.
import { expect } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { strongPassword } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, shownWithinMs, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { nativeEvent, sendAccepted, type NativeEvent } from "../../ingest/helpers.ts";

export const hostile = ["<img src=x onerror=window.__pwned=1>", "javascript:alert(1)", "</script><script>window.__pwned=1</script>"] as const;

export interface InsightsWorld {
  service: TestService;
  browser: Browser;
  tab: ConsoleTab;
  projectId: string;
  projectKey: string;
  close(): Promise<void>;
}

let people = 0;

export async function startInsightsWorld(projectName = "Insights"): Promise<InsightsWorld> {
  const service = await startTestService();
  const browser = await launchChromium();
  const tab = await openConsoleTab(browser);
  const email = `analyst${++people}@example.com`;
  const signedUp = await tab.context.request.post(`${service.url}/app/auth/signup`, { data: { email, name: "Ana Lyst", password: strongPassword } });
  expect(signedUp.status()).toBe(201);
  const orgId = (await signedUp.json()).orgs[0].id;
  const created = await tab.context.request.post(`${service.url}/app/orgs/${orgId}/projects`, { data: { name: projectName, region: "eu", timezone: "UTC", currency: "EUR" } });
  expect(created.status()).toBe(201);
  const { project, public_keys: keys } = await created.json();
  return {
    service,
    browser,
    tab,
    projectId: project.id,
    projectKey: keys.find((key: { environment: string }) => key.environment === "production").key,
    async close() {
      await browser.close();
      await service.close();
    },
  };
}

const dayMs = 86_400_000;
/** Noon UTC `days` days before today, as RFC 3339. */
export const daysAgoAtNoon = (days: number, minutes = 0) => {
  const today = new Date();
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - days * dayMs + 12 * 3_600_000 + minutes * 60_000).toISOString();
};

/** One event; `at` is days ago (noon UTC) plus minutes. */
export const event = (name: string, person: string, daysAgo: number, properties: Record<string, unknown> = {}, minutes = 0): NativeEvent =>
  nativeEvent({ event: name, distinct_id: person, timestamp: daysAgoAtNoon(daysAgo, minutes), properties });

export const sendEvents = (world: InsightsWorld, events: NativeEvent[]) => sendAccepted(world.service.url, world.projectKey, events);

/** The region's answer to `query`, asked as the console asks it. */
export async function regionQuery(world: InsightsWorld, query: unknown, includeSql = false): Promise<any> {
  const issued = await world.tab.context.request.post(`${world.service.url}/app/projects/${world.projectId}/region-token`, { data: { environment: "production" } });
  expect(issued.status()).toBe(200);
  const { token, region_api_url: regionUrl } = await issued.json();
  const response = await fetch(`${regionUrl}/query`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify({ query, include_sql: includeSql }) });
  expect(response.status).toBe(200);
  return response.json();
}

/** The builder's Query IR document, read from its URL. */
export const urlQuery = (page: Page) => JSON.parse(new URL(page.url()).searchParams.get("q")!);

/** The shown result table: header texts and each row's cell texts. */
export async function shownTable(page: Page): Promise<{ head: string[]; rows: string[][] }> {
  const table = page.locator(".result-panel table.data-table");
  await table.waitFor();
  return table.evaluate((element) => ({
    head: [...element.querySelectorAll("thead th")].map((cell) => cell.textContent ?? ""),
    rows: [...element.querySelectorAll("tbody tr")].map((row) => [...row.querySelectorAll("td")].map((cell) => cell.textContent ?? "")),
  }));
}

/** A shown number ("1,234", "–" for none) as the number it says. */
export const shownNumber = (text: string) => (text === "–" ? null : Number(text.replaceAll(",", "")));
/** A shown percentage ("66.7%") as a ratio, to the one decimal shown. */
export const shownPercent = (text: string) => (text === "–" ? null : Number(text.replace("%", "")) / 100);
/** A ratio as the table rounds it (one decimal of a percent). */
export const roundedRatio = (ratio: number | null) => (ratio === null ? null : Math.round(ratio * 1000) / 1000);

/**
 * Reads `read()` until it equals `expected` (the page runs queries a moment after each edit),
 * and asserts the last reading: a mismatch fails with both shown.
 */
export async function eventuallyEqual(read: () => Promise<unknown>, expected: unknown, withinMs = shownWithinMs): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last = await read();
  while (!Bun.deepEquals(last, expected) && Date.now() < deadline) {
    await Bun.sleep(100);
    last = await read();
  }
  expect(last).toEqual(expected);
}

/** The page asserts nothing ran from hostile data. */
export async function expectNoScriptRan(page: Page): Promise<void> {
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(await page.locator("img").count()).toBe(0);
}
