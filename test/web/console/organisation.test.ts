// An organisation's settings in the web console, in headless Chromium against the real
// service: opened from the project switcher, renamed (to hostile markup, shown as text), a
// member invited by email who accepts through the mailed link, their role changed, removed;
// an invitation revoked; a refused invitation's reason shown; a viewer sees why they may not
// manage members and leaves.
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
let projectId = "";

const hostileName = "<img src=x onerror=window.__pwned=1>";
const invitee = "ben@example.com";

async function logIn(consoleTab: ConsoleTab, email: string) {
  const reply = await consoleTab.context.request.post(`${service.url}/app/auth/login`, { data: { email, password: strongPassword } });
  expect(reply.status()).toBe(200);
}

const members = async () => (await owner.client.get(`/app/orgs/${owner.orgId}/members`)).body;
const openOrgSettings = async (page: Page) => {
  await page.goto(`${service.url}/orgs/${owner.orgId}/settings`);
  await waitForPage(page, "Organisation settings");
  await page.waitForSelector("text=Loading the members…", { state: "detached" });
};
const memberRow = (page: Page, text: string) => page.locator("section[aria-labelledby=members-title] tbody tr", { hasText: text });

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Olga Owner");
  projectId = (await createProject(owner, "Storefront")).project.id;
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  await logIn(tab, owner.email);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

test("the project switcher links each organisation's settings; renaming shows the new name as text, the switcher's too", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${projectId}/setup`);
  await waitForPage(page, "Send your first event");
  await page.getByRole("button", { name: "Switch project" }).click();
  await page.getByRole("link", { name: "Olga Owner's organisation settings" }).click();
  await waitForPage(page, "Organisation settings");
  expect(new URL(page.url()).pathname).toBe(`/orgs/${owner.orgId}/settings`);
  await page.waitForSelector("text=Loading the members…", { state: "detached" });
  await screenshotThemes(page, "organisation-settings");

  await page.getByLabel("Organisation name").fill(hostileName);
  await page.getByRole("button", { name: "Save name" }).click();
  await page.waitForSelector("text=The organisation is renamed.");
  const { orgs } = (await owner.client.get("/app/orgs")).body;
  expect(orgs).toEqual([{ id: owner.orgId, name: hostileName, slug: expect.any(String), role: "owner", created_at: expect.any(String) }]);
  expect(await page.textContent(".page-lede")).toBe(`${hostileName}: its name, members and invitations.`);
  expect(await page.locator("img").count()).toBe(0);

  await page.goto(`${service.url}/projects/${projectId}/setup`);
  await waitForPage(page, "Send your first event");
  expect(await page.textContent(".switcher-org-label")).toBe(hostileName);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
});

test("the only owner's own row says why it cannot be changed, and Leave is disabled", async () => {
  const { page } = tab;
  await openOrgSettings(page);
  const row = memberRow(page, owner.email);
  expect(await row.locator("td").allTextContents()).toEqual(["Olga Owneryou", owner.email, "ownerThe only owner: make another member an owner first.", expect.any(String), "Leave"]);
  expect(await row.getByRole("button", { name: "Leave" }).isDisabled()).toBe(true);
});

test("inviting by email mails a link; the invitee accepts through it and is listed as a member", async () => {
  const { page } = tab;
  await page.getByLabel("Email address").fill(invitee);
  await page.getByLabel("Role", { exact: true }).selectOption("member");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.waitForSelector(`text=An invitation was mailed to ${invitee}.`);
  expect((await members()).invitations).toEqual([
    { id: expect.any(String), org_id: owner.orgId, email: invitee, role: "member", status: "pending", expires_at: expect.any(String), created_at: expect.any(String) },
  ]);
  expect(await page.locator("section[aria-labelledby=invitations-title] tbody tr td").allTextContents()).toEqual([invitee, "member", expect.any(String), expect.any(String), "Revoke"]);
  await screenshotThemes(page, "organisation-invited");

  const inviteeTab = await openConsoleTab(browser);
  expect((await inviteeTab.context.request.post(`${service.url}/app/auth/signup`, { data: { email: invitee, name: "Ben", password: strongPassword } })).status()).toBe(201);
  const { link } = service.lastMail(invitee, "invitation");
  await inviteeTab.page.goto(link);
  await inviteeTab.page.getByRole("button", { name: "Accept invitation" }).click();
  await inviteeTab.page.waitForSelector(`text=You joined ${hostileName}.`);
  await inviteeTab.close();

  const after = await members();
  expect(after).toEqual({
    members: [
      { id: expect.any(String), user_id: owner.userId, name: "Olga Owner", email: owner.email, role: "owner", created_at: expect.any(String) },
      { id: expect.any(String), user_id: expect.any(String), name: "Ben", email: invitee, role: "member", created_at: expect.any(String) },
    ],
    invitations: [],
  });
  await openOrgSettings(page);
  expect(await memberRow(page, invitee).locator("td").first().textContent()).toBe("Ben");
});

test("inviting an address that is already a member is refused with the API's reason; a pending invitation can be revoked", async () => {
  const { page } = tab;
  await page.getByLabel("Email address").fill(invitee);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.waitForSelector("[role=alert] >> text=This address already belongs to a member.");

  await page.getByLabel("Email address").fill("carl@example.com");
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.waitForSelector("text=An invitation was mailed to carl@example.com.");
  await page.getByRole("button", { name: "Revoke the invitation to carl@example.com" }).click();
  await page.waitForSelector("text=No pending invitations");
  expect((await members()).invitations).toEqual([]);
  const accepted = await owner.client.post("/app/invitations/accept", { token: service.lastMail("carl@example.com", "invitation").token });
  expect(accepted.status).toBe(404);
});

test("changing a member's role and removing them take effect in the API at once", async () => {
  const { page } = tab;
  await page.getByLabel("Role of Ben").selectOption("admin");
  await page.waitForSelector("text=Ben is now an admin.");
  const ben = (await members()).members.find((member: { email: string }) => member.email === invitee);
  expect(ben).toEqual({ id: expect.any(String), user_id: expect.any(String), name: "Ben", email: invitee, role: "admin", created_at: expect.any(String) });
  expect(await page.getByLabel("Role of Ben").inputValue()).toBe("admin");
  expect(await page.locator("select[aria-label='Role of Ben'] option").allTextContents()).toEqual(["viewer", "member", "admin", "owner"]);

  await page.getByRole("button", { name: "Remove Ben" }).click();
  await page.waitForSelector("text=ben@example.com loses access to the organisation's projects at once");
  await screenshotThemes(page, "organisation-remove");
  await page.getByRole("button", { name: "Remove member" }).click();
  await page.waitForSelector("text=Ben was removed from the organisation.");
  expect((await members()).members.map((member: { email: string }) => member.email)).toEqual([owner.email]);
  expect(await memberRow(page, invitee).count()).toBe(0);
  expect(tab.problems.filter((problem) => !problem.includes("status of 409 (Conflict)"))).toEqual([]);
});

test("a viewer sees the members without controls and why, no invitations, and can leave", async () => {
  const viewer = await addMember(service, owner, "viewer");
  const viewerTab = await openConsoleTab(browser);
  await logIn(viewerTab, viewer.email);
  const { page } = viewerTab;
  await openOrgSettings(page);
  expect(await page.textContent("#org-general-role-note")).toBe("Only admins and owners can rename the organisation. You are a viewer.");
  expect(await page.textContent("#members-role-note")).toBe("Only admins and owners can change roles or remove members. You are a viewer.");
  expect(await page.textContent("#invitations-role-note")).toBe("Only admins and owners can see and send invitations. You are a viewer.");
  expect(await page.locator("select").count()).toBe(0);
  expect(await page.getByRole("button", { name: "Send invitation" }).count()).toBe(0);
  expect(await page.getByRole("button", { name: /^Remove/ }).count()).toBe(0);
  expect(await page.getByLabel("Organisation name").isDisabled()).toBe(true);
  await screenshotThemes(page, "organisation-viewer");

  await memberRow(page, viewer.email).getByRole("button", { name: "Leave" }).click();
  await page.getByRole("button", { name: "Leave organisation" }).click();
  await waitForPage(page, "Create a project");
  expect((await viewer.client.get("/app/orgs")).body.orgs.map((org: { id: string }) => org.id)).not.toContain(owner.orgId);
  expect((await members()).members.map((member: { email: string }) => member.email)).toEqual([owner.email]);
  expect(viewerTab.problems).toEqual([]);
  await viewerTab.close();
});

test("an organisation the person does not belong to is not found", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/orgs/0193a0b1-0000-7000-8000-000000000000/settings`);
  await page.waitForSelector("text=Organisation not found");
  await page.getByRole("link", { name: "See your organisations" }).waitFor();
});
