// Onboarding in the web console, in headless Chromium against the real service: a signed-up
// person creates a first project (region, time zone, currency), sees its key and snippets for
// posthog-js, posthog-node, Segment's analytics-node and curl with the right host and key,
// sends the curl snippet's event and watches "waiting" turn to "received" live. The project's
// name is hostile markup, and is shown as text with no script run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { strongPassword } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { fillForm, openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;

const hostileName = "<img src=x onerror=window.__pwned=1>";
const projectPath = /^\/projects\/([0-9a-f-]{36})\/setup$/;

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  const signedUp = await tab.context.request.post(`${service.url}/app/auth/signup`, { data: { email: "ona@example.com", name: "Ona", password: strongPassword } });
  expect(signedUp.status()).toBe(201);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

let projectId = "";
let productionKey = "";

const codeOf = (label: string) => tab.page.getByLabel(label, { exact: true }).textContent();

test("a first project is created with its region, time zone and currency, and opens on its setup page", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/`);
  await waitForPage(page, "Create a project");
  await fillForm(page, { name: hostileName });
  await page.getByText("United States").click();
  await page.selectOption("select[name=timezone]", "Europe/Berlin");
  await page.selectOption("select[name=currency]", "EUR");
  await page.click("button[type=submit]");

  await waitForPage(page, "Send your first event");
  projectId = new URL(page.url()).pathname.match(projectPath)![1]!;
  const project = await (await tab.context.request.get(`${service.url}/app/projects/${projectId}`)).json();
  expect([project.name, project.region, project.timezone, project.currency]).toEqual([hostileName, "us", "Europe/Berlin", "EUR"]);
  const { keys } = await (await tab.context.request.get(`${service.url}/app/projects/${projectId}/keys`)).json();
  productionKey = keys.find((key: { environment: string }) => key.environment === "production").key;
});

test("the hostile project name is shown as text, and no script of it runs", async () => {
  const { page } = tab;
  expect(await page.textContent(".switcher-project-label")).toBe(hostileName);
  expect(await page.textContent(".page-lede")).toContain(`the ${hostileName} project`);
  expect(await page.locator("img").count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
});

test("the key and every snippet carry the production key and the region's ingest URL", async () => {
  const { page } = tab;
  const ingestUrl = `${service.url}/ingest/us`;
  expect(await codeOf("production public key")).toBe(productionKey);
  expect(await codeOf("Ingest URL")).toBe(ingestUrl);
  await screenshotThemes(page, "setup-waiting");

  const snippets: Record<string, string> = {};
  for (const label of ["posthog-js", "posthog-node", "Segment analytics-node", "curl"]) {
    await page.getByRole("tab", { name: label }).click();
    snippets[label] = (await codeOf(`${label} snippet`))!;
  }
  expect(snippets["posthog-js"]).toContain(`posthog.init("${productionKey}", {\n  api_host: "${ingestUrl}",`);
  expect(snippets["posthog-node"]).toContain(`new PostHog("${productionKey}", { host: "${ingestUrl}" })`);
  expect(snippets["Segment analytics-node"]).toContain(`writeKey: "${productionKey}",\n  host: "${service.url}",\n  path: "/ingest/us/v1/batch",`);
  expect(snippets.curl).toContain(`curl -X POST '${ingestUrl}/capture/'`);
  expect(snippets.curl).toContain(productionKey);
  await screenshotThemes(page, "setup-curl");

  // The tabs follow the arrow keys, as WAI-ARIA's tabs pattern has it.
  await page.getByRole("tab", { name: "curl" }).focus();
  await page.keyboard.press("ArrowRight");
  const selected = page.getByRole("tab", { selected: true, name: "posthog-js" });
  expect([await selected.count(), await selected.evaluate((tab) => tab.matches(":focus"))]).toEqual([1, true]);
  await page.getByRole("tab", { name: "curl" }).click();
});

test("the curl snippet's event, sent as written, turns 'waiting' into 'received' live; a reload shows it at once", async () => {
  const { page } = tab;
  await page.waitForSelector("text=Waiting for the first event…");
  const curl = (await codeOf("curl snippet"))!;
  const [, url] = curl.match(/curl -X POST '([^']+)'/)!;
  const [, body] = curl.match(/-d '([^']+)'/)!;
  const sent = await fetch(url!, { method: "POST", headers: { "Content-Type": "application/json" }, body });
  expect(sent.status).toBe(200);

  await page.waitForSelector("text=First event received");
  expect(await page.textContent(".first-event-detail")).toContain("hello_world from user-42 at");
  await screenshotThemes(page, "setup-received");

  await page.reload();
  await page.waitForSelector("text=First event received");
  expect(tab.problems).toEqual([]);
});

test("the project switcher lists the organisation's projects and offers a new one", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: "Switch project" }).click();
  const current = page.locator(".switcher-panel [aria-current=page]");
  expect(await current.textContent()).toBe(`${hostileName}us`);
  await screenshotThemes(page, "project-switcher");
  await page.getByRole("link", { name: "New project" }).click();
  await waitForPage(page, "Create a project");
  expect(new URL(page.url()).searchParams.get("org")).toBe((await (await tab.context.request.get(`${service.url}/app/projects/${projectId}`)).json()).org_id);
});
