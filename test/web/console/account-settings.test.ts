// The account page in the web console, in headless Chromium against the real service: the
// profile with the address's state (the link mailed again), the organisations with their
// settings, and changing the password: a wrong current password, two new ones that differ and
// a common one are refused with their reasons; the right one changes it, every other session
// ends, this browser stays signed in, and only the new password logs in.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { signUp, strongPassword, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { call, ConsoleClient } from "../../helpers/client.ts";
import { fillForm, openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let user: SignedUpUser;

const hostileName = "</script><script>window.__pwned=1</script>";
const newPassword = "copper-meadow-62-gently";

const logInStatus = async (password: string) => (await call(service.url, "POST", "/app/auth/login", { body: { email: user.email, password } })).status;

beforeAll(async () => {
  service = await startTestService();
  user = await signUp(service, hostileName);
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  expect((await tab.context.request.post(`${service.url}/app/auth/login`, { data: { email: user.email, password: strongPassword } })).status()).toBe(200);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

test("the profile shows the name as text and the address unconfirmed, with the link mailed again on asking", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/account`);
  await waitForPage(page, "Account");
  expect(await page.locator(".fact dd").first().textContent()).toBe(hostileName);
  expect(await page.textContent(".email-line")).toContain(`${user.email} Not confirmed`);
  const mailed = service.mail().filter((mail) => mail.to === user.email && mail.kind === "verify_email").length;
  await page.locator(".email-line").getByRole("button", { name: "Send the link again" }).click();
  await page.waitForSelector("text=Sent: check your inbox.");
  expect(service.mail().filter((mail) => mail.to === user.email && mail.kind === "verify_email").length).toBe(mailed + 1);
  expect(await page.locator("section[aria-labelledby=organisations-title] tbody td").allTextContents()).toEqual([`${hostileName}'s organisation`, "owner", "Settings"]);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  await screenshotThemes(page, "account");

  await page.getByRole("link", { name: `${hostileName}'s organisation settings` }).click();
  await waitForPage(page, "Organisation settings");
  expect(new URL(page.url()).pathname).toBe(`/orgs/${user.orgId}/settings`);
});

test("a wrong current password, new passwords that differ and a common one are refused with their reasons; nothing changes", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/account`);
  await waitForPage(page, "Account");
  expect(await page.textContent("#password-title + p")).toBe("Changing it signs out every other session; this browser stays signed in.");
  expect(await page.textContent("section[aria-labelledby=password-title] .field-hint")).toBe("At least 10 characters. Common and breached passwords are refused.");

  await fillForm(page, { current_password: "not-my-password-at-all", new_password: newPassword, confirm: newPassword });
  await page.getByRole("button", { name: "Change password" }).click();
  await page.waitForSelector("[role=alert] >> text=Current password is incorrect.");

  await fillForm(page, { current_password: strongPassword, new_password: newPassword, confirm: `${newPassword}!` });
  await page.getByRole("button", { name: "Change password" }).click();
  await page.waitForSelector("[role=alert] >> text=The two new passwords differ.");

  await fillForm(page, { current_password: strongPassword, new_password: "1234567890", confirm: "1234567890" });
  await page.getByRole("button", { name: "Change password" }).click();
  await page.waitForSelector("[role=alert] >> text=New_password is too common: it appears in lists of breached passwords.");
  await screenshotThemes(page, "account-password-refused");
  expect(await logInStatus(strongPassword)).toBe(200);
});

test("the right current password changes it: the other session ends, this browser stays signed in, and only the new password logs in", async () => {
  const other = new ConsoleClient(service.url);
  expect((await other.post("/app/auth/login", { email: user.email, password: strongPassword })).status).toBe(200);
  const { page } = tab;
  await fillForm(page, { current_password: strongPassword, new_password: newPassword, confirm: newPassword });
  await page.getByRole("button", { name: "Change password" }).click();
  await page.waitForSelector("text=Your password is changed. Every other session was signed out.");
  expect(await page.inputValue("[name=current_password]")).toBe("");

  expect((await other.get("/app/me")).status).toBe(401);
  expect((await user.client.get("/app/me")).status).toBe(401);
  expect((await tab.context.request.get(`${service.url}/app/me`)).status()).toBe(200);
  expect([await logInStatus(strongPassword), await logInStatus(newPassword)]).toEqual([401, 200]);

  await page.getByRole("navigation", { name: "Your account" }).getByRole("link", { name: "Sessions" }).click();
  await waitForPage(page, "Sessions");
  await page.waitForSelector("text=This browser");
  // The browser's session and the one the log-in check above just made.
  expect(await page.locator("tbody tr").count()).toBe(2);
  expect(tab.problems.filter((problem) => !/status of (400|401)/.test(problem))).toEqual([]);
});
