// Sessions in the web console, in headless Chromium against the real service: the browser's own
// session is marked, the others show their device; signing one out makes its cookie refused,
// and "sign out all other sessions" ends the rest while this browser stays signed in.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { signUp, strongPassword, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { ConsoleClient } from "../../helpers/client.ts";
import { openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let user: SignedUpUser;

const firefoxAgent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0";
const hostileAgent = "<img src=x onerror=window.__pwned=1>";

async function loggedInClient(userAgent: string): Promise<ConsoleClient> {
  const client = new ConsoleClient(service.url, userAgent);
  expect((await client.post("/app/auth/login", { email: user.email, password: strongPassword })).status).toBe(200);
  return client;
}

beforeAll(async () => {
  service = await startTestService();
  user = await signUp(service, "Sam Sessions");
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  expect((await tab.context.request.post(`${service.url}/app/auth/login`, { data: { email: user.email, password: strongPassword } })).status()).toBe(200);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

test("with two sessions, this browser's is marked and the other's device is named; signing the other out makes its cookie refused", async () => {
  await user.client.post("/app/auth/logout");
  const other = await loggedInClient(firefoxAgent);
  const { page } = tab;
  await page.goto(`${service.url}/account/sessions`);
  await waitForPage(page, "Sessions");
  await page.waitForSelector("text=Loading your sessions…", { state: "detached" });
  const { sessions } = (await other.get("/app/auth/sessions")).body;
  expect(sessions).toEqual([
    { id: expect.any(String), current: true, created_at: expect.any(String), expires_at: expect.any(String), last_seen_at: expect.any(String), location: null, user_agent: firefoxAgent },
    { id: expect.any(String), current: false, created_at: expect.any(String), expires_at: expect.any(String), last_seen_at: expect.any(String), location: null, user_agent: expect.stringContaining("HeadlessChrome") },
  ]);
  const rows = page.locator("tbody tr");
  expect(await rows.count()).toBe(2);
  const own = rows.filter({ hasText: "This browser" });
  expect(await own.locator(".session-device-name").textContent()).toBe("Headless Chrome on LinuxThis browser");
  expect(await own.locator("td").nth(3).textContent()).toBe("Now");
  expect(await own.getByRole("button").count()).toBe(0);
  const firefox = rows.filter({ hasText: "Firefox on Windows" });
  expect(await firefox.locator("td").allTextContents()).toEqual([`Firefox on Windows${firefoxAgent}`, "Unknown", expect.any(String), expect.stringMatching(/now|second|minute/), "Sign out"]);
  await screenshotThemes(page, "account-sessions");

  await firefox.getByRole("button", { name: "Sign out the Firefox on Windows session" }).click();
  await page.waitForSelector("text=The Firefox on Windows session was signed out.");
  expect(await rows.count()).toBe(1);
  expect((await other.get("/app/me")).status).toBe(401);
  const mine = await tab.context.request.get(`${service.url}/app/auth/sessions`);
  expect((await mine.json()).sessions.map((session: { current: boolean }) => session.current)).toEqual([true]);
});

test("signing out every other session ends them all, hostile user agents shown as text, and this browser stays signed in", async () => {
  const others = [await loggedInClient(firefoxAgent), await loggedInClient(hostileAgent)];
  const { page } = tab;
  await page.reload();
  await waitForPage(page, "Sessions");
  await page.waitForSelector("tbody tr >> nth=2");
  expect(await page.locator(".session-agent", { hasText: hostileAgent }).textContent()).toBe(hostileAgent);
  expect(await page.locator("img").count()).toBe(0);

  await page.getByRole("button", { name: "Sign out all other sessions" }).click();
  await page.waitForSelector("text=The 2 other sessions must log in again. This browser stays signed in.");
  await page.getByRole("button", { name: "Sign out others" }).click();
  await page.waitForSelector("text=2 other sessions were signed out.");
  for (const client of others) expect((await client.get("/app/me")).status).toBe(401);
  expect((await tab.context.request.get(`${service.url}/app/me`)).status()).toBe(200);
  expect(await page.getByRole("button", { name: "Sign out all other sessions" }).isDisabled()).toBe(true);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(tab.problems).toEqual([]);
});
