// Personal access tokens in the web console, in headless Chromium against the real service:
// one is created with a hostile name, chosen scopes, one project and an expiry; its secret is
// shown once and works against GET /v1/me; revoking it makes /v1 answer 401. A person who is a
// viewer in an organisation is offered only the read scopes there.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { addMember, createProject, signUp, strongPassword, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { call, bearer } from "../../helpers/client.ts";
import { openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let owner: SignedUpUser;
let projectId = "";
let secret = "";

const hostileName = "javascript:alert(1)<img src=x onerror=window.__pwned=1>";
const dayMs = 86_400_000;

async function logIn(consoleTab: ConsoleTab, email: string) {
  const reply = await consoleTab.context.request.post(`${service.url}/app/auth/login`, { data: { email, password: strongPassword } });
  expect(reply.status()).toBe(200);
}

const v1Me = (token: string) => call(service.url, "GET", "/v1/me", { headers: bearer(token) });

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Olga Owner");
  projectId = (await createProject(owner, "Storefront")).project.id;
  await createProject(owner, "Backoffice");
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  await logIn(tab, owner.email);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

test("the account's tab bar leads to the tokens, which start empty", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${projectId}/setup`);
  await waitForPage(page, "Send your first event");
  await page.getByRole("link", { name: "Your account" }).click();
  await waitForPage(page, "Account");
  await page.getByRole("navigation", { name: "Your account" }).getByRole("link", { name: "Tokens" }).click();
  await waitForPage(page, "Tokens");
  expect(new URL(page.url()).pathname).toBe("/account/tokens");
  await page.waitForSelector("text=No tokens");
  expect(await page.locator(".account-tab[aria-current=page]").textContent()).toBe("Tokens");
});

test("a token is created with its scopes, one project and an expiry; the secret is shown once and works against /v1/me", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByLabel("Token name").fill(hostileName);
  await page.getByRole("checkbox", { name: "projects:read", exact: true }).check();
  await page.getByRole("checkbox", { name: "query:read", exact: true }).check();
  await page.getByRole("checkbox", { name: "members.write", exact: true }).check();
  await page.getByLabel("Only the projects chosen below").check();
  await page.getByRole("group", { name: "Projects the token reaches" }).getByLabel("Storefront").check();
  await page.getByLabel("Expires after").selectOption("90");
  await screenshotThemes(page, "account-token-form");
  const before = Date.now();
  await page.getByRole("button", { name: "Create token" }).last().click();

  await page.waitForSelector('dialog[open] h2:text-is("Copy the token now")');
  secret = (await page.getByLabel("Personal access token", { exact: true }).textContent())!;
  expect(secret).toMatch(/^svc_pat_[A-Za-z0-9]{40}$/);
  await screenshotThemes(page, "account-token-secret");

  const me = await v1Me(secret);
  expect(me.status).toBe(200);
  const token = {
    id: expect.any(String), name: hostileName, org_id: owner.orgId, prefix: secret.slice(0, 14), scopes: ["projects:read", "query:read", "members.write"],
    project_ids: [projectId], created_at: expect.any(String), expires_at: expect.any(String), last_used_at: expect.any(String), revoked_at: null,
  };
  expect(me.body).toEqual({
    token,
    user: { id: owner.userId, email: owner.email, name: "Olga Owner", email_verified: false, created_at: expect.any(String) },
    org: { id: owner.orgId, name: "Olga Owner's organisation", slug: expect.any(String), role: "owner", created_at: expect.any(String) },
    scopes: ["projects:read", "query:read", "members.write"],
  });
  const expiresIn = Date.parse(me.body.token.expires_at) - before;
  expect(expiresIn).toBeGreaterThan(90 * dayMs - 60_000);
  expect(expiresIn).toBeLessThan(90 * dayMs + 60_000);
  expect((await call(service.url, "GET", "/v1/projects", { headers: bearer(secret) })).body.projects.map((project: { name: string }) => project.name)).toEqual(["Storefront"]);

  await page.getByRole("button", { name: "Done" }).click();
  expect(await page.locator("body").textContent()).not.toContain(secret);
  const cells = await page.locator("tbody tr td").allTextContents();
  expect(cells).toEqual([
    `${hostileName}${secret.slice(0, 14)}…`, "Olga Owner's organisation", "projects:readquery:readmembers.write", "Storefront", "Never", expect.any(String), "Revoke",
  ]);
  await screenshotThemes(page, "account-tokens");
  expect(await page.locator("img").count()).toBe(0);
  expect(await page.locator("a[href^='javascript']").count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();

  await page.reload();
  await waitForPage(page, "Tokens");
  expect(await page.locator("tbody tr td").nth(4).textContent()).toMatch(/now|second|minute/);
});

test("revoking the token makes /v1 refuse it with 401", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: `Revoke ${hostileName}` }).click();
  await page.getByRole("button", { name: "Revoke token" }).click();
  await page.waitForSelector(`text=${hostileName} is revoked.`);
  await page.waitForSelector("text=No tokens");
  const refused = await v1Me(secret);
  expect([refused.status, refused.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="svc-analytics"']);
  expect((await owner.client.get("/app/tokens")).body).toEqual({ tokens: [] });
});

test("a token needs a scope; a viewer is offered only the read scopes of their role", async () => {
  const viewer = await addMember(service, owner, "viewer");
  const viewerTab = await openConsoleTab(browser);
  await logIn(viewerTab, viewer.email);
  const { page } = viewerTab;
  await page.goto(`${service.url}/account/tokens`);
  await waitForPage(page, "Tokens");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByLabel("Token name").fill("Read-only export");
  await page.getByRole("button", { name: "Create token" }).last().click();
  await page.waitForSelector("dialog[open] [role=alert] >> text=Choose at least one scope.");

  await page.locator("dialog[open] select[name=org]").selectOption(owner.orgId);
  const offered = await page.locator("dialog[open] input[name=scope]").evaluateAll((boxes) => boxes.map((box) => (box as unknown as { value: string }).value));
  expect(offered).toEqual(["projects", "org", "query", "insights", "dashboards", "cohorts", "catalog", "flags", "experiments", "replays", "persons", "alerts", "ai", "annotations", "usage"].map((domain) => `${domain}:read`));
  await screenshotThemes(page, "account-token-viewer");
  await page.getByRole("button", { name: "Choose every read scope" }).click();
  await page.getByRole("button", { name: "Create token" }).last().click();
  await page.waitForSelector('dialog[open] h2:text-is("Copy the token now")');
  const viewerSecret = (await page.getByLabel("Personal access token", { exact: true }).textContent())!;
  const me = await v1Me(viewerSecret);
  expect([me.status, me.body.org.id, me.body.token.scopes.length, me.body.token.project_ids]).toEqual([200, owner.orgId, 15, null]);
  expect(viewerTab.problems.filter((problem) => !problem.includes("status of 400"))).toEqual([]);
  expect(tab.problems).toEqual([]);
});
