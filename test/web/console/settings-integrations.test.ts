// The project settings' "Revenue integrations" section in headless Chromium against the real
// service: the owner connects RevenueCat (a hostile name shown as text), copies the webhook URL
// that then takes a notification, edits and disables it (the URL answers 404), rotates the URL
// after confirming (the old one answers 404), connects Google Play with a price table after a
// bad one is refused with the API's message, and deletes an integration after confirming. The
// secret is never on the page. A member sees the controls disabled, with why.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { addMember, createProject, signUp, strongPassword, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let owner: SignedUpUser;
let project: { id: string; [field: string]: unknown };

const hostileName = "<img src=x onerror=window.__pwned=1>";
const authorization = "Bearer console-rc-secret-4242";

async function logIn(consoleTab: ConsoleTab, email: string) {
  const reply = await consoleTab.context.request.post(`${service.url}/app/auth/login`, { data: { email, password: strongPassword } });
  expect(reply.status()).toBe(200);
}

const openSettings = async (page: Page) => {
  await page.goto(`${service.url}/projects/${project.id}/settings`);
  await waitForPage(page, "Project settings");
  await page.waitForSelector("text=Revenue integrations");
};

const waitForDialog = (page: Page, title: string) => page.waitForSelector(`dialog[open] h2:text-is(${JSON.stringify(title)})`);
const dialog = (page: Page) => page.locator("dialog[open]");

/** A RevenueCat notification to `url`: the status the webhook answers. */
async function deliver(url: string): Promise<number> {
  const body = JSON.stringify({ api_version: "1.0", event: { id: crypto.randomUUID(), type: "TEST", event_timestamp_ms: Date.now() } });
  const response = await fetch(url, { method: "POST", headers: { authorization }, body });
  await response.arrayBuffer();
  return response.status;
}

const integrationsNow = async (): Promise<any[]> => (await owner.client.get(`/app/projects/${project.id}/integrations`)).body.integrations;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Olga Owner");
  project = (await createProject(owner, "Storefront")).project;
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  await logIn(tab, owner.email);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

test("connect RevenueCat, copy its webhook URL, edit and disable it, rotate the URL", async () => {
  const { page } = tab;
  await openSettings(page);
  await page.waitForSelector("text=No revenue integrations");
  await page.getByRole("button", { name: "Connect a provider" }).click();
  await waitForDialog(page, "Connect a revenue provider");
  await dialog(page).getByLabel("Provider").selectOption("revenuecat");
  await dialog(page).getByLabel("Name (optional)").fill(hostileName);
  await dialog(page).getByLabel("Authorization header value").fill(authorization);
  await screenshotThemes(page, "settings-integrations-connect");
  await dialog(page).getByRole("button", { name: "Connect" }).click();
  await waitForDialog(page, "RevenueCat is connected");
  const url = (await page.getByLabel("Webhook URL", { exact: true }).textContent())!;
  expect(url).toMatch(new RegExp(`^${service.url}/ingest/eu/wh/revenuecat/[A-Za-z0-9_-]{43}$`));
  expect(await dialog(page).textContent()).toContain("RevenueCat: Project settings → Integrations → Webhooks");
  await screenshotThemes(page, "settings-integrations-url");
  expect(await deliver(url)).toBe(200);
  await page.getByRole("button", { name: "Done" }).click();

  const card = page.getByRole("group", { name: `${hostileName} integration` });
  expect(await card.locator("h3").textContent()).toBe(hostileName);
  expect(await card.getByLabel(`Webhook URL of ${hostileName}`, { exact: true }).textContent()).toBe(url);
  expect(await card.locator(".key-meta").textContent()).toMatch(/^RevenueCat · Active · secret ending 4242 · created /);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(await page.locator("body").textContent()).not.toContain("console-rc-secret");
  await screenshotThemes(page, "settings-integrations-list");

  await card.getByRole("button", { name: `Edit ${hostileName}` }).click();
  await waitForDialog(page, `Edit ${hostileName}`);
  await dialog(page).getByLabel("Name (optional)").fill("RevenueCat live");
  await dialog(page).getByLabel("Status").selectOption("disabled");
  await dialog(page).getByRole("checkbox").check();
  await dialog(page).getByRole("button", { name: "Save" }).click();
  await page.getByRole("group", { name: "RevenueCat live integration" }).getByText("Disabled: its URL answers 404", { exact: false }).waitFor();
  const [saved] = await integrationsNow();
  expect(saved).toMatchObject({ name: "RevenueCat live", status: "disabled", config: { accept_sandbox: true }, secret_last4: "4242" });
  expect(await deliver(url)).toBe(404);
  expect((await owner.client.patch(`/app/projects/${project.id}/integrations/${saved.id}`, { status: "active" })).status).toBe(200);
  expect(await deliver(url)).toBe(200);
  await openSettings(page);

  await page.getByRole("button", { name: "Rotate the webhook URL of RevenueCat live" }).click();
  await waitForDialog(page, "Rotate the webhook URL?");
  await screenshotThemes(page, "settings-integrations-rotate");
  await dialog(page).getByRole("button", { name: "Rotate URL" }).click();
  await waitForDialog(page, "Webhook URL of RevenueCat live");
  const rotated = (await page.getByLabel("Webhook URL", { exact: true }).textContent())!;
  expect(rotated).not.toBe(url);
  expect(await deliver(url)).toBe(404);
  expect(await deliver(rotated)).toBe(200);
  await page.getByRole("button", { name: "Done" }).click();
});

test("Google Play with a price table: a bad table is refused with the API's message; then delete after confirming", async () => {
  const { page } = tab;
  await openSettings(page);
  await page.getByRole("button", { name: "Connect a provider" }).click();
  await waitForDialog(page, "Connect a revenue provider");
  await dialog(page).getByLabel("Provider").selectOption("play_store");
  await dialog(page).getByLabel("Package name").fill("com.example.app");
  await dialog(page).getByLabel("Prices (JSON)").fill('{"pro": {"amount_minor": 4.99, "currency": "EUR", "period": "month"}}');
  await dialog(page).getByRole("button", { name: "Connect" }).click();
  await dialog(page).getByText("config.products.pro.amount_minor must be a non-negative integer (minor units of currency)").waitFor();
  await dialog(page).getByLabel("Prices (JSON)").fill("{not json");
  await dialog(page).getByRole("button", { name: "Connect" }).click();
  await dialog(page).getByText("Prices must be JSON", { exact: false }).waitFor();
  await dialog(page).getByLabel("Prices (JSON)").fill('{"pro": {"amount_minor": 499, "currency": "EUR", "period": "month"}}');
  await dialog(page).getByRole("button", { name: "Connect" }).click();
  await waitForDialog(page, "Google Play is connected");
  await page.getByRole("button", { name: "Done" }).click();
  const play = (await integrationsNow()).find((item) => item.provider === "play_store");
  expect(play).toMatchObject({ has_secret: false, config: { package_name: "com.example.app", products: { pro: { amount_minor: 499, currency: "EUR", period: "month" } } } });

  await page.getByRole("button", { name: "Delete Google Play" }).click();
  await waitForDialog(page, "Delete this integration?");
  await dialog(page).getByRole("button", { name: "Delete integration" }).click();
  await page.getByRole("group", { name: "Google Play integration" }).waitFor({ state: "detached" });
  expect((await integrationsNow()).map((item) => item.provider)).toEqual(["revenuecat"]);
});

test("a member sees the integrations with the controls disabled, and why", async () => {
  const member = await addMember(service, owner, "member");
  const memberTab = await openConsoleTab(browser);
  try {
    await logIn(memberTab, member.email);
    await openSettings(memberTab.page);
    await memberTab.page.getByRole("group", { name: "RevenueCat live integration" }).waitFor();
    expect(await memberTab.page.getByRole("button", { name: "Connect a provider" }).isDisabled()).toBe(true);
    expect(await memberTab.page.getByRole("button", { name: "Rotate the webhook URL of RevenueCat live" }).isDisabled()).toBe(true);
    expect(await memberTab.page.getByLabel("Webhook URL of RevenueCat live", { exact: true }).textContent()).toMatch(/\/wh\/revenuecat\//);
    expect(await memberTab.page.locator("#revenue-integrations-role-note").textContent()).toContain("Only admins and owners can connect, change or delete revenue integrations. You are a member.");
  } finally {
    await memberTab.context.close();
  }
});
