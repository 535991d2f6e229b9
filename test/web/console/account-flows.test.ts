// A person's account in the web console, in headless Chromium against the real service: sign
// up, confirm the address through the emailed link, log out, log in (a wrong password first),
// and reset the password through the emailed link. Every page is screenshotted in both themes
// when CONSOLE_SCREENSHOTS is set.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { strongPassword } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { fillForm, openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;

const email = "ann@example.com";
const newPassword = "amber-lantern-48-softly";

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const me = async () => {
  const answer = await tab.context.request.get(`${service.url}/app/me`);
  return { status: answer.status(), body: answer.status() === 200 ? await answer.json() : null };
};

test("a new visitor is sent to log in, signs up, and is asked to create a first project with a reminder to confirm the address", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/`);
  await waitForPage(page, "Log in");
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/login?next=%2F");
  await screenshotThemes(page, "login");

  await page.getByRole("link", { name: "Create an account", exact: true }).click();
  await waitForPage(page, "Create your account");
  await fillForm(page, { name: "Ann Example", email, password: strongPassword });
  await screenshotThemes(page, "signup");
  await page.click("button[type=submit]");

  await waitForPage(page, "Create a project");
  expect(new URL(page.url()).pathname).toBe("/projects/new");
  expect(await page.textContent(".email-banner")).toContain(`we sent a link to ${email}`);
  await screenshotThemes(page, "new-project");
  expect((await me()).body.user).toMatchObject({ email, name: "Ann Example", email_verified: false });
});

test("the emailed confirmation link confirms the address, and the reminder is gone; a second use says so, or that the link is spent once signed out", async () => {
  const { page } = tab;
  const { link } = service.lastMail(email, "verify_email");
  expect(link).toStartWith(`${service.url}/verify-email?token=`);
  await page.goto(link);
  await page.waitForSelector("text=Your email address is confirmed.");
  await screenshotThemes(page, "verify-email");
  expect((await me()).body.user.email_verified).toBe(true);

  await page.getByRole("link", { name: "Continue to the console" }).click();
  await waitForPage(page, "Create a project");
  expect(await page.locator(".email-banner").count()).toBe(0);

  await page.goto(link);
  await page.waitForSelector("text=Your email address is already confirmed.");
  const signedOut = await openConsoleTab(browser);
  await signedOut.page.goto(link);
  await signedOut.page.waitForSelector("text=This link has expired or was already used.");
  await screenshotThemes(signedOut.page, "verify-email-spent");
  await signedOut.close();
});

test("logging out ends the session; a wrong password is refused with a message; the right one signs in again", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/new`);
  await waitForPage(page, "Create a project");
  await page.getByRole("button", { name: "Log out" }).click();
  await waitForPage(page, "Log in");
  expect((await me()).status).toBe(401);

  await fillForm(page, { email, password: "not-the-password-at-all" });
  await page.click("button[type=submit]");
  expect(await page.textContent("[role=alert]", { timeout: 15_000 })).toBe("Email or password is incorrect.");
  await screenshotThemes(page, "login-refused");

  await fillForm(page, { email, password: strongPassword });
  await page.click("button[type=submit]");
  await waitForPage(page, "Create a project");
  expect((await me()).status).toBe(200);
});

test("a forgotten password is reset through the emailed link: every session ends, and only the new password logs in", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: "Log out" }).click();
  await waitForPage(page, "Log in");
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await waitForPage(page, "Reset your password");
  await fillForm(page, { email });
  await page.click("button[type=submit]");
  await page.waitForSelector(`text=If an account exists for ${email}`);
  await screenshotThemes(page, "forgot-password");

  const { link } = service.lastMail(email, "password_reset");
  expect(link).toStartWith(`${service.url}/reset-password?token=`);
  await page.goto(link);
  await waitForPage(page, "Choose a new password");
  await fillForm(page, { password: newPassword, confirm: "something-else-entirely" });
  await page.click("button[type=submit]");
  expect(await page.textContent("[role=alert]")).toBe("The two passwords differ.");
  await fillForm(page, { password: newPassword, confirm: newPassword });
  await screenshotThemes(page, "reset-password");
  await page.click("button[type=submit]");
  await page.waitForSelector("text=Your password is changed.");
  await screenshotThemes(page, "reset-password-done");

  await page.getByRole("link", { name: "Log in", exact: true }).click();
  await waitForPage(page, "Log in");
  await fillForm(page, { email, password: strongPassword });
  await page.click("button[type=submit]");
  expect(await page.textContent("[role=alert]")).toBe("Email or password is incorrect.");
  await fillForm(page, { email, password: newPassword });
  await page.click("button[type=submit]");
  await waitForPage(page, "Create a project");
  expect(tab.problems).toEqual([]);
});

test("a page whose chunk cannot be loaded says so and offers a reload, instead of a blank screen", async () => {
  const broken = await openConsoleTab(browser);
  await broken.context.route(/\/assets\/forgot-password-[a-z0-9]+\.js$/, (route) => route.abort());
  await broken.page.goto(`${service.url}/forgot-password`);
  await broken.page.waitForSelector("text=This page could not be loaded");
  expect(await broken.page.getByRole("button", { name: "Reload the console" }).isVisible()).toBe(true);
  await screenshotThemes(broken.page, "page-unavailable");
  await broken.close();
});
