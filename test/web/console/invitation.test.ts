// An invitation accepted through its emailed link in the web console, in headless Chromium:
// the invitee has no account yet, signs up from the invitation page, comes back to it,
// accepts, and opens the organisation's project.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createProject, signUp, strongPassword, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { fillForm, openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let owner: SignedUpUser;
let orgName = "";
let projectId = "";

const invitee = "ben@example.com";

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Olga Owner");
  orgName = (await owner.client.patch(`/app/orgs/${owner.orgId}`, { name: "Acme Analytics" })).body.name;
  projectId = (await createProject(owner, "Storefront")).project.id;
  expect((await owner.client.post(`/app/orgs/${owner.orgId}/invitations`, { email: invitee, role: "member" })).status).toBe(201);
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

test("the emailed link asks a signed-out invitee to log in or sign up, and brings them back to accept", async () => {
  const { page } = tab;
  const { link } = service.lastMail(invitee, "invitation");
  expect(link).toStartWith(`${service.url}/invitations/accept?token=`);
  await page.goto(link);
  await waitForPage(page, "Join an organisation");
  await screenshotThemes(page, "invitation-signed-out");

  await page.getByRole("link", { name: "Create an account" }).click();
  await waitForPage(page, "Create your account");
  await fillForm(page, { name: "Ben", email: invitee, password: strongPassword });
  await page.click("button[type=submit]");

  await waitForPage(page, "Join an organisation");
  expect(page.url()).toBe(link);
  expect(await page.textContent(".form-text")).toContain(`You are signed in as ${invitee}.`);
  await screenshotThemes(page, "invitation-signed-in");
});

test("accepting joins the organisation, and its project opens", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: "Accept invitation" }).click();
  await page.waitForSelector(`text=You joined ${orgName}.`);
  await screenshotThemes(page, "invitation-accepted");
  const { orgs } = await (await tab.context.request.get(`${service.url}/app/orgs`)).json();
  expect(orgs.map((org: { name: string; role: string }) => [org.name, org.role]).sort()).toEqual([["Acme Analytics", "member"], ["Ben's organisation", "owner"]]);

  await page.getByRole("link", { name: `Open ${orgName}` }).click();
  await waitForPage(page, "Send your first event");
  expect(new URL(page.url()).pathname).toBe(`/projects/${projectId}/setup`);
  expect(await page.textContent(".switcher-project-label")).toBe("Storefront");
  expect(tab.problems).toEqual([]);
});
