// Anyone holding a project's public key can send any event name, property, distinct id or
// person property, and anyone with a seat can name things. This test fills a project with
// markup and script payloads through the real APIs, then visits every console page that shows
// them in headless Chromium: each page must show the payload literally, make no element of
// it, run none of it (a page-level hook catches any script run, dialog or CSP report) and log
// no error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createProject, signUp } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

/** Each payload sets window.__pwned when it runs, however it gets to run. */
const payloads = {
  image: "<img src=x onerror=window.__pwned=1>",
  script: "</script><script>window.__pwned=1</script>",
  link: "javascript:window.__pwned=1",
  svg: '<svg onload="window.__pwned=1"></svg>',
} as const;

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let dialogs = 0;
const ids: Record<string, string> = {};

async function ingest(key: string, batch: object[]): Promise<unknown> {
  const response = await fetch(`${service.url}/ingest/eu/batch`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ api_key: key, sent_at: new Date().toISOString(), batch }),
  });
  return response.json();
}

function hostileEvent(event: string, distinctId: string, extra: object = {}) {
  return {
    uuid: Bun.randomUUIDv7(),
    event,
    timestamp: new Date().toISOString(),
    distinct_id: distinctId,
    properties: { [payloads.image]: payloads.svg, $current_url: payloads.link, plan: payloads.script, note: payloads.image },
    lib: { name: "web", version: "1.0.0" },
    ...extra,
  };
}

beforeAll(async () => {
  service = await startTestService();
  const owner = await signUp(service, payloads.image);
  const { project, public_keys } = await createProject(owner, payloads.script);
  ids.project = project.id;
  ids.org = owner.orgId;
  const key = public_keys.find((candidate: { environment: string }) => candidate.environment === "production").key;
  const app = `/app/projects/${project.id}`;

  const accepted = await ingest(key, [
    hostileEvent(payloads.image, payloads.image, { $set: { name: payloads.script, email: payloads.image } }),
    hostileEvent(payloads.script, payloads.image),
    hostileEvent(payloads.link, payloads.svg),
    hostileEvent("$pageview", payloads.image),
  ]);
  expect(accepted).toEqual({ accepted: 4, rejected: [], quota_limited: [] });
  // Refused events become ingestion warnings, with the refused event as the example.
  const refused = (await ingest(key, [{ ...hostileEvent(payloads.image, payloads.image), properties: payloads.script }])) as { rejected: unknown[] };
  expect(refused.rejected.length).toBe(1);

  const insight = await owner.client.post(`${app}/insights`, {
    name: payloads.image,
    query: { ir_version: 1, date_range: { from: "-7d" }, insight: { kind: "trends", interval: "day", series: [{ event: payloads.image }], breakdown: { type: "event", property: "plan" } } },
  });
  ids.insight = insight.body.id;
  const dashboard = await owner.client.post(`${app}/dashboards`, { name: payloads.script, description: payloads.image });
  ids.dashboard = dashboard.body.id;
  await owner.client.post(`${app}/dashboards/${ids.dashboard}/tiles`, { kind: "insight", insight_id: ids.insight });
  await owner.client.post(`${app}/dashboards/${ids.dashboard}/tiles`, { kind: "text", body: `${payloads.image}\n${payloads.script}\n[link](${payloads.link})` });
  await owner.client.post(`${app}/annotations`, { content: payloads.image, kind: "release", occurred_at: new Date(Date.now() - 86_400_000).toISOString() });
  const flag = await owner.client.post(`${app}/flags`, { key: "hostile", name: payloads.image, description: payloads.script, payload: { html: payloads.image } });
  ids.flag = flag.body.id;
  const cohort = await owner.client.post(`${app}/cohorts`, {
    kind: "dynamic",
    name: payloads.image,
    description: payloads.script,
    definition: { type: "and", values: [{ type: "performed", event: payloads.image, count_operator: "gte", count: 1, days: 30 }] },
  });
  ids.cohort = cohort.body.id;

  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  await tab.context.addCookies([{ ...owner.client.sessionCookie(), url: service.url }]);
  tab.page.on("dialog", (dialog) => {
    dialogs++;
    void dialog.dismiss();
  });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** Waits for `text` to be shown on the page, as text (what a person reads: the body's rendered text). */
const shown = (page: Page, text: string) =>
  page.waitForFunction((wanted) => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText.includes(wanted), text);

async function expectInert(page: Page): Promise<void> {
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(await page.locator("img[src=x], svg[onload], a[href^='javascript:' i]").count()).toBe(0);
  expect(dialogs).toBe(0);
  expect(tab.problems).toEqual([]);
}

interface Visit {
  page: string;
  path: () => string;
  /** Payloads the page must show as text. */
  texts: string[];
  /** What a person does on the page before reading it (open a row, run a query). */
  act?: (page: Page) => Promise<void>;
}

const project = () => `/projects/${ids.project}`;

const visits: Visit[] = [
  { page: "Get started", path: () => `${project()}/setup`, texts: [payloads.script] },
  { page: "Live events", path: () => `${project()}/live`, texts: [payloads.image, payloads.script, payloads.link] },
  { page: "Insights list", path: () => `${project()}/insights`, texts: [payloads.image] },
  { page: "Insight", path: () => `${project()}/insights/${ids.insight}`, texts: [payloads.image, payloads.script] },
  { page: "Dashboard", path: () => `${project()}/dashboards/${ids.dashboard}`, texts: [payloads.script, payloads.image, `[link](${payloads.link})`] },
  { page: "Persons", path: () => `${project()}/persons`, texts: [payloads.script] },
  {
    page: "Person profile",
    path: () => `${project()}/persons`,
    texts: [payloads.image, payloads.script, payloads.svg],
    act: async (page) => {
      await page.getByText(payloads.script, { exact: false }).first().click();
    },
  },
  { page: "Cohorts", path: () => `${project()}/cohorts`, texts: [payloads.image] },
  { page: "Feature flags", path: () => `${project()}/flags`, texts: [payloads.image] },
  { page: "Feature flag", path: () => `${project()}/flags/${ids.flag}`, texts: [payloads.image, payloads.script] },
  {
    page: "Tracking plan",
    path: () => `${project()}/catalog`,
    texts: [payloads.image, payloads.script, payloads.link],
    act: async (page) => {
      await page.getByRole("button", { name: /^Sync from/ }).click();
    },
  },
  { page: "SQL", path: () => `${project()}/sql?sql=${encodeURIComponent("SELECT event, distinct_id FROM events ORDER BY event")}`, texts: [payloads.image, payloads.script] },
  { page: "Ingestion warnings", path: () => `${project()}/ingestion-warnings`, texts: [payloads.script] },
  { page: "Project settings", path: () => `${project()}/settings`, texts: [payloads.script] },
  { page: "Organisation", path: () => `/orgs/${ids.org}/settings`, texts: [payloads.image] },
  { page: "Account", path: () => "/account", texts: [payloads.image] },
];

for (const visit of visits) {
  test(`${visit.page}: the data's markup and scripts are shown as text and none of it runs`, async () => {
    const { page } = tab;
    await page.goto(`${service.url}${visit.path()}`);
    await visit.act?.(page);
    for (const text of visit.texts) await shown(page, text);
    await expectInert(page);
  });
}
