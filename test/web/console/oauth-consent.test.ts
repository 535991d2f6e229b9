// The OAuth consent page in headless Chromium, as a person meets it: an application (a real
// client, oauth4webapi, with a loopback redirect URI served by this test) sends the browser to
// /oauth/authorize; the person logs in, sees who asks and for what, picks the organisation,
// scopes and a project, and approves; the application's loopback server receives the code and
// its state, and the token it buys reaches only that project. Denying sends access_denied.
// Account > Connected apps lists the application, and Revoke ends its token.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import * as oauth from "oauth4webapi";
import { createProject, signUp, strongPassword, v1, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { fillForm, openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { insecure, newPkce, registerApp, type OAuthApp } from "../../control/oauth/oauth-client.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let owner: SignedUpUser;
let app: OAuthApp;
let storefrontId = "";
let backofficeId = "";
let accessToken = "";

/** The application's loopback redirect target: it answers a page and hands each callback URL to the test. */
const callbacks: URL[] = [];
const loopback = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname !== "/callback") return new Response(null, { status: 404 });
    callbacks.push(url);
    return new Response("<!doctype html><title>Agent CLI</title><h1>You can close this tab</h1>", { headers: { "Content-Type": "text/html" } });
  },
});
const redirectUri = `http://127.0.0.1:${loopback.port}/callback`;

const authorizeUrl = (pkce: { challenge: string; state: string }) => {
  const url = new URL(app.as.authorization_endpoint!);
  for (const [name, value] of Object.entries({
    response_type: "code", client_id: app.client.client_id, redirect_uri: redirectUri, code_challenge: pkce.challenge,
    code_challenge_method: "S256", state: pkce.state, scope: "projects:read query:read",
  })) url.searchParams.set(name, value);
  return url.href;
};

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Olga Owner");
  storefrontId = (await createProject(owner, "Storefront")).project.id;
  backofficeId = (await createProject(owner, "Backoffice")).project.id;
  app = await registerApp(service, { client_name: "Agent CLI", redirect_uris: [redirectUri] });
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
  loopback.stop(true);
});

test("a person logs in, approves an org, scopes and one project, and the application's loopback receives the code and state", async () => {
  const { page } = tab;
  const pkce = await newPkce();
  await page.goto(authorizeUrl(pkce));
  await waitForPage(page, "Log in");
  expect(new URL(page.url()).searchParams.get("next")).toMatch(/^\/consent\/[0-9a-f-]{36}$/);
  await fillForm(page, { email: owner.email, password: strongPassword });
  await page.getByRole("button", { name: "Log in" }).click();

  await waitForPage(page, "Connect Agent CLI?");
  expect(await page.locator(".page-title").textContent()).toContain(`Agent CLI asks to act as you (${owner.email}). Afterwards you go back to 127.0.0.1:${loopback.port}.`);
  await page.waitForSelector("text=Its tokens will reach the programmatic API (/v1).");
  expect(await page.getByLabel("Organisation").locator("option").allTextContents()).toEqual(["Olga Owner's organisation (owner)"]);
  const checked = await page.locator('input[name="scope"]:checked').evaluateAll((boxes) => boxes.map((box) => (box as unknown as { value: string }).value));
  expect(checked).toEqual(["projects:read", "query:read"]);
  await page.getByRole("checkbox", { name: "projects:read", exact: true }).uncheck();
  await page.getByRole("checkbox", { name: "projects:write", exact: true }).check();
  await page.getByLabel("Only the projects chosen below").check();
  await page.getByRole("group", { name: "Projects the application reaches" }).getByLabel("Storefront").check();
  await screenshotThemes(page, "oauth-consent");

  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForSelector('h1:text-is("You can close this tab")');
  expect(tab.problems).toEqual([]);
  const callback = callbacks.at(-1)!;
  expect([callback.pathname, callback.searchParams.get("state"), callback.searchParams.get("iss")]).toEqual(["/callback", pkce.state, service.url]);
  const params = oauth.validateAuthResponse(app.as, app.client, callback, pkce.state);
  const tokens = await oauth.processAuthorizationCodeResponse(app.as, app.client,
    await oauth.authorizationCodeGrantRequest(app.as, app.client, oauth.None(), params, redirectUri, pkce.verifier, insecure));
  expect(tokens.scope).toBe("query:read projects:write");
  accessToken = tokens.access_token;
  const projects = await v1(service, accessToken, "GET", "/v1/projects");
  expect(projects.body.projects.map((project: { id: string }) => project.id)).toEqual([storefrontId]);
  expect((await v1(service, accessToken, "GET", `/v1/projects/${backofficeId}`)).status).toBe(404);
});

test("denying sends the browser back with access_denied and the state", async () => {
  const { page } = tab;
  const pkce = await newPkce();
  await page.goto(authorizeUrl(pkce));
  await waitForPage(page, "Connect Agent CLI?");
  await page.getByRole("button", { name: "Deny" }).click();
  await page.waitForSelector('h1:text-is("You can close this tab")');
  expect(Object.fromEntries(callbacks.at(-1)!.searchParams)).toEqual({ error: "access_denied", error_description: "the person declined", state: pkce.state, iss: service.url });
});

test("a redirect URI the application did not register gets our refusal page, and nothing reaches the loopback", async () => {
  // A tab of its own: the browser logs the page's 400 as an error, which the main tab must not collect.
  const refusal = await openConsoleTab(browser);
  try {
    const before = callbacks.length;
    const url = new URL(authorizeUrl(await newPkce()));
    url.searchParams.set("redirect_uri", `http://127.0.0.1:${loopback.port}/elsewhere`);
    const response = await refusal.page.goto(url.href);
    expect(response?.status()).toBe(400);
    await refusal.page.waitForSelector("text=The redirect_uri is not one this application registered.");
    expect([refusal.page.url(), callbacks.length]).toEqual([url.href, before]);
  } finally {
    await refusal.close();
  }
});

test("an application's name is shown as text, never run", async () => {
  const { page } = tab;
  const hostileName = "<img src=x onerror=window.__pwned=1>Agent";
  const hostile = await registerApp(service, { client_name: hostileName, redirect_uris: [redirectUri] });
  const pkce = await newPkce();
  const url = new URL(authorizeUrl(pkce));
  url.searchParams.set("client_id", hostile.client.client_id);
  await page.goto(url.href);
  await waitForPage(page, `Connect ${hostileName}?`);
  expect(await page.evaluate("window.__pwned")).toBeUndefined();
  expect(await page.locator(".page-title img").count()).toBe(0);
  await page.getByRole("button", { name: "Deny" }).click();
  await page.waitForSelector('h1:text-is("You can close this tab")');
});

test("Account > Connected apps lists the application; Revoke ends its token", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/account`);
  await waitForPage(page, "Account");
  await page.getByRole("navigation", { name: "Your account" }).getByRole("link", { name: "Connected apps" }).click();
  await waitForPage(page, "Connected apps");
  const row = page.locator("tr", { hasText: "Agent CLI" });
  // allTextContents does not wait: the list is fetched after the page's title is shown.
  await row.waitFor();
  expect(await row.locator("td").allTextContents()).toEqual([
    "Agent CLI", "Olga Owner's organisation", "query:readprojects:write", expect.any(String), expect.not.stringMatching(/^Never$/), "Revoke",
  ]);
  await screenshotThemes(page, "oauth-connections");
  await page.getByRole("button", { name: "Revoke Agent CLI" }).click();
  await page.getByRole("button", { name: "Revoke access" }).click();
  await page.waitForSelector("text=Agent CLI is disconnected.");
  await page.waitForSelector("text=No connected applications");
  expect((await v1(service, accessToken, "GET", "/v1/me")).status).toBe(401);
  expect(tab.problems).toEqual([]);
});
