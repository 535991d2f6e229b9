// A new team's first hour with the console, end to end in headless Chromium against the real
// service, each step done the way a person does it: sign up, confirm the address through the
// emailed link, create a project, run posthog-js on a web page with the snippet the console
// shows, watch the events arrive in Live events, build a trends insight with a breakdown and a
// funnel, save both, put them on a dashboard, reload it and read the same numbers POST /query
// answers, create a flag and evaluate it for a person, run SQL, invite a teammate who accepts,
// and reset a password through the emailed link.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { strongPassword } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { fillForm, openConsoleTab, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { funnelRows, queryRegion, shownTileRows, trendsRows } from "./dashboard-fixtures.ts";
import { eventuallyEqual, roundedRatio, shownNumber, shownPercent, shownTable, urlQuery } from "./insights-fixture.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { serveSnippetSite, type SnippetSite } from "../../helpers/snippet-site.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let site: SnippetSite | undefined;

const email = "lena@acme.example";
/**
 * posthog-js drops events from browsers that say they are automated (the user agent, and
 * navigator.webdriver, which the test's browser sets); a visitor's browser says neither.
 */
const visitorUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const notAutomated = 'Object.defineProperty(navigator, "webdriver", { get: () => false })';

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
}, 120_000);
afterAll(async () => {
  site?.stop();
  await browser?.close();
  await service?.close();
});

let projectId = "";
let orgId = "";
const saved: Record<"trends" | "funnel", { id: string; query: unknown }> = { trends: { id: "", query: null }, funnel: { id: "", query: null } };

/** POST {region_api_url}{path} with a region token of the signed-in person, as an API client would. */
async function region(path: string, body: unknown): Promise<any> {
  const issued = await tab.context.request.post(`${service.url}/app/projects/${projectId}/region-token`, { data: { environment: "production" } });
  const { token, region_api_url } = await issued.json();
  const response = await fetch(`${region_api_url}${path}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return response.json();
}

test("sign up, confirm the address through the emailed link, and create the first project", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/`);
  await waitForPage(page, "Log in");
  await page.getByRole("link", { name: "Create an account", exact: true }).click();
  await waitForPage(page, "Create your account");
  await fillForm(page, { name: "Lena Dubois", email, password: strongPassword });
  await page.click("button[type=submit]");
  await waitForPage(page, "Create a project");

  await page.goto(service.lastMail(email, "verify_email").link);
  await page.waitForSelector("text=Your email address is confirmed.");
  await page.getByRole("link", { name: "Continue to the console" }).click();
  await waitForPage(page, "Create a project");
  await fillForm(page, { name: "Acme Web" });
  await page.click("button[type=submit]");
  await waitForPage(page, "Send your first event");
  projectId = new URL(page.url()).pathname.split("/")[2]!;
  const project = await (await tab.context.request.get(`${service.url}/app/projects/${projectId}`)).json();
  expect([project.name, project.region]).toEqual(["Acme Web", "eu"]);
  orgId = project.org_id;
});

test("a web page running posthog-js with the console's snippet sends events that arrive live", async () => {
  const { page } = tab;
  const snippet = (await page.getByLabel("posthog-js snippet", { exact: true }).textContent())!;
  site = await serveSnippetSite(snippet);
  const visitor = await browser.newContext({ userAgent: visitorUserAgent });
  await visitor.addInitScript(notAutomated);
  const visit = await visitor.newPage();
  // Two visits, each a $pageview and the snippet's signed_up (in either order within a visit).
  for (let visitNumber = 1; visitNumber <= 2; visitNumber++) {
    let stored = 0;
    const bothStored = new Promise<void>((resolve) =>
      visit.on("response", (response) => {
        if (/\/ingest\/eu\/(i\/v0\/)?e\/?$/.test(new URL(response.url()).pathname) && response.status() === 200 && ++stored === 2) resolve();
      }),
    );
    await visit.goto(site.url);
    await bothStored;
    visit.removeAllListeners("response");
  }
  await page.waitForSelector("text=The project is set up and storing events");
  await visitor.close();
});

test("Live events shows what the page sent", async () => {
  const { page } = tab;
  await page.getByRole("link", { name: "Live events" }).click();
  await waitForPage(page, "Live events");
  await page.locator(".data-table tbody tr", { hasText: "signed_up" }).first().waitFor();
  await page.locator(".data-table tbody tr", { hasText: "$pageview" }).first().waitFor();
});

test("a trends insight with a breakdown and a funnel are built and saved, showing what POST /query answers", async () => {
  const { page } = tab;
  await page.getByRole("link", { name: "Insights" }).click();
  await waitForPage(page, "Insights");
  await page.goto(`${service.url}/projects/${projectId}/insights/new`);
  await waitForPage(page, "New insight");
  await page.getByLabel("Series 1 event").selectOption("$pageview");
  await page.getByLabel("Breakdown by").selectOption("event");
  await page.getByLabel("Breakdown property").fill("$browser");
  await page.getByRole("button", { name: "Table" }).click();
  await page.waitForURL((url) => url.searchParams.get("q")?.includes('"$browser"') ?? false);
  saved.trends.query = urlQuery(page);
  const trends = (await region("/query", { query: saved.trends.query })).result;
  expect(trends.rows.map((row: any) => [row.breakdown_value, row.total])).toEqual([["Chrome", 2]]);
  const trendsNumbers = async () => (await shownTable(page)).rows.map((cells) => cells.slice(1).map(shownNumber));
  await eventuallyEqual(trendsNumbers, trends.rows.map((row: any) => [row.total, ...row.values]));
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByLabel("Name").fill("Pageviews by browser");
  await page.locator("dialog").getByRole("button", { name: "Save" }).click();
  await waitForPage(page, "Pageviews by browser");
  saved.trends.id = new URL(page.url()).pathname.split("/").at(-1)!;

  await page.goto(`${service.url}/projects/${projectId}/insights/new`);
  await waitForPage(page, "New insight");
  await page.getByRole("tab", { name: "Funnel" }).click();
  await page.getByLabel("Step 1 event").selectOption("$pageview");
  await page.getByLabel("Step 2 event").selectOption("signed_up");
  await page.getByRole("button", { name: "Table" }).click();
  await page.waitForURL((url) => url.searchParams.get("q")?.includes('"signed_up"') ?? false);
  saved.funnel.query = urlQuery(page);
  const funnel = (await region("/query", { query: saved.funnel.query })).result;
  expect(funnel.steps.map((step: any) => step.count)).toEqual([1, 1]);
  const funnelNumbers = async () => (await shownTable(page)).rows.map((cells) => [cells[0], shownNumber(cells[1]!), shownPercent(cells[2]!), shownPercent(cells[3]!)]);
  await eventuallyEqual(funnelNumbers, funnel.steps.map((step: any) => [`${step.step + 1}. ${step.event}`, step.count, roundedRatio(step.conversion_from_previous), roundedRatio(step.conversion_from_first)]));
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByLabel("Name").fill("Sign-up funnel");
  await page.locator("dialog").getByRole("button", { name: "Save" }).click();
  await waitForPage(page, "Sign-up funnel");
  saved.funnel.id = new URL(page.url()).pathname.split("/").at(-1)!;
  expect(tab.problems).toEqual([]);
});

test("both insights on a new dashboard show, after a reload, what POST /query answers for each tile", async () => {
  const { page } = tab;
  await page.getByRole("link", { name: "Dashboards" }).click();
  await waitForPage(page, "Dashboards");
  await page.getByRole("button", { name: "New dashboard" }).first().click();
  await fillForm(page, { name: "Launch week" });
  await page.getByRole("button", { name: "Create dashboard" }).click();
  await waitForPage(page, "Launch week");
  const dashboardId = new URL(page.url()).pathname.split("/").at(-1)!;
  for (const name of ["Pageviews by browser", "Sign-up funnel"]) {
    await page.getByRole("button", { name: "Add insight" }).first().click();
    await page.getByRole("button", { name: new RegExp(`^${name}`) }).click();
    await page.locator(".tile-title", { hasText: name }).waitFor();
  }
  await page.reload();
  await waitForPage(page, "Launch week");
  const dashboard = await (await tab.context.request.get(`${service.url}/app/projects/${projectId}/dashboards/${dashboardId}`)).json();
  expect(dashboard.tiles.map((tile: any) => tile.insight_id)).toEqual([saved.trends.id, saved.funnel.id]);
  for (const tile of dashboard.tiles) {
    await page.locator(`[data-tile-id="${tile.id}"][data-tile-state="ready"] .tile-chart canvas`).first().waitFor();
    const result = await queryRegion(tab.context.request, service, projectId, tile.request);
    expect(await shownTileRows(page, tile.id)).toEqual(result.kind === "trends" ? trendsRows(result) : funnelRows(result));
  }
  expect(tab.problems).toEqual([]);
});

test("a flag made in the console is evaluated for a person as the SDKs get it", async () => {
  const { page } = tab;
  await page.getByRole("link", { name: "Feature flags" }).click();
  await waitForPage(page, "Feature flags");
  await page.getByRole("button", { name: "Create a flag" }).click();
  await fillForm(page, { key: "new-onboarding", name: "New onboarding" });
  await page.getByRole("button", { name: "Create flag" }).click();
  await page.getByRole("switch", { name: "Serve this flag in production" }).check();
  await page.getByRole("button", { name: "Save production" }).click();
  await page.waitForSelector("text=Published to the region");

  await page.getByLabel("Distinct id", { exact: true }).fill("lena-visitor");
  await page.getByRole("button", { name: "Evaluate", exact: true }).click();
  const result = page.getByRole("region", { name: "Evaluation result" });
  await result.locator('code:text-is("lena-visitor")').waitFor();
  const key = (await (await tab.context.request.get(`${service.url}/app/projects/${projectId}/keys`)).json()).keys.find((candidate: any) => candidate.environment === "production").key;
  const sdk: any = await (await fetch(`${service.url}/ingest/eu/flags`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ api_key: key, distinct_id: "lena-visitor" }) })).json();
  expect(sdk.flags["new-onboarding"].enabled).toBe(true);
  expect(await result.locator('dd[data-field="enabled"]').textContent()).toBe("true");
  expect(tab.problems).toEqual([]);
});

test("SQL runs a statement and shows the rows POST /sql answers", async () => {
  const { page } = tab;
  const sql = "SELECT event, count(*) AS n FROM events GROUP BY event ORDER BY event";
  await page.goto(`${service.url}/projects/${projectId}/sql?sql=${encodeURIComponent(sql)}`);
  await waitForPage(page, "SQL");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const answer = await region("/sql", { sql });
  const shownRows = () =>
    page.locator(".sql-results table").evaluate((table) => [...table.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((cell) => cell.textContent)));
  await eventuallyEqual(shownRows, answer.rows.map((row: unknown[]) => row.map(String)));
  expect(tab.problems).toEqual([]);
});

test("a teammate is invited from the organisation page and accepts through the emailed link", async () => {
  const { page } = tab;
  const invitee = "omar@acme.example";
  await page.goto(`${service.url}/orgs/${orgId}/settings`);
  await page.getByLabel("Email address").fill(invitee);
  await page.getByLabel("Role", { exact: true }).selectOption("member");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.locator("text=omar@acme.example").first().waitFor();

  const teammate = await openConsoleTab(browser);
  await teammate.page.goto(service.lastMail(invitee, "invitation").link);
  await waitForPage(teammate.page, "Join an organisation");
  await teammate.page.getByRole("link", { name: "Create an account" }).click();
  await waitForPage(teammate.page, "Create your account");
  await fillForm(teammate.page, { name: "Omar Khan", email: invitee, password: strongPassword });
  await teammate.page.click("button[type=submit]");
  await waitForPage(teammate.page, "Join an organisation");
  await teammate.page.getByRole("button", { name: "Accept invitation" }).click();
  await teammate.page.waitForSelector("text=You joined");
  const members = await (await tab.context.request.get(`${service.url}/app/orgs/${orgId}/members`)).json();
  expect(members.members.map((member: any) => [member.email, member.role]).sort()).toEqual([[email, "owner"], [invitee, "member"]]);
  expect(teammate.problems).toEqual([]);
  await teammate.close();
});

test("a forgotten password is reset through the emailed link, and the new one signs in", async () => {
  const { page } = tab;
  const newPassword = "amber-lantern-48-softly";
  await page.getByRole("button", { name: "Log out" }).click();
  await waitForPage(page, "Log in");
  await page.getByRole("link", { name: "Forgot password?" }).click();
  // The login form has an email field too: fill only once the reset page has replaced it.
  await waitForPage(page, "Reset your password");
  await fillForm(page, { email });
  await page.click("button[type=submit]");
  await page.waitForSelector(`text=If an account exists for ${email}`);
  await page.goto(service.lastMail(email, "password_reset").link);
  await waitForPage(page, "Choose a new password");
  await fillForm(page, { password: newPassword, confirm: newPassword });
  await page.click("button[type=submit]");
  await page.waitForSelector("text=Your password is changed.");
  await page.getByRole("link", { name: "Log in", exact: true }).click();
  await waitForPage(page, "Log in");
  await fillForm(page, { email, password: newPassword });
  await page.click("button[type=submit]");
  await page.waitForURL((url) => url.pathname.startsWith(`/projects/${projectId}`));
  expect(tab.problems).toEqual([]);
});
