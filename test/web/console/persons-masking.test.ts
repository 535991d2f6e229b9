// Personal data on the Persons pages as a member sees it: the region masks it for a token
// without persons.pii, and the page shows each masked value as masked, says why (the role),
// and shows every other value as the API gives it. The owner, whose token holds persons.pii,
// sees the same person unmasked. Searching by a personal-data property is refused in words.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, screenshotThemes, waitForCount, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { createConsoleProject, logInContext, regionCaller, signUpInContext, type ConsoleProject } from "../../helpers/console-project.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { nativeEvent, sendAccepted } from "../../ingest/helpers.ts";

let service: TestService;
let browser: Browser;
let owner: ConsoleTab;
let member: ConsoleTab;
let project: ConsoleProject;
let memberRegion: ConsoleProject["region"];
let personId = "";

const memberEmail = "max@example.com";

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  owner = await openConsoleTab(browser);
  member = await openConsoleTab(browser);
  const orgId = await signUpInContext(service, owner.context, "olga@example.com", "Olga");
  project = await createConsoleProject(service, owner.context, orgId, { name: "Private" });
  await signUpInContext(service, member.context, memberEmail, "Max");
  const invited = await owner.context.request.post(`${service.url}/app/orgs/${orgId}/invitations`, { data: { email: memberEmail, role: "member" } });
  expect(invited.status()).toBe(201);
  const accepted = await member.context.request.post(`${service.url}/app/invitations/accept`, { data: { token: service.lastMail(memberEmail, "invitation").token } });
  expect(accepted.status()).toBe(200);
  await logInContext(service, member.context, memberEmail);
  memberRegion = regionCaller(service, member.context, project.id);

  await sendAccepted(service.url, project.key, [
    nativeEvent({
      distinct_id: "user-mia", event: "$identify",
      $set: { email: "mia@example.com", name: "Mia Hansen", work_email: "mia@corp.example", plan: "team", city: "Oslo", contact: "mia@example.org", seats: 3 },
      properties: { referrer_ip: "192.0.2.7", page: "/settings", owner: { phoneNumber: "+47 555 0101", role: "admin" } },
    }),
  ]);
  const { results } = (await project.region("GET", "/persons?search=user-mia")).body;
  personId = results[0].id;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const propertyRows = async (page: Page) =>
  Object.fromEntries(await page.locator("section[aria-labelledby=properties-title] table tbody tr").evaluateAll((rows) => rows.map((row) => [row.querySelector("th")!.textContent, row.querySelector("td")!.textContent])));

test("a member sees personal data masked as the API masks it for them, and why", async () => {
  const { page } = member;
  const answer = await memberRegion("GET", `/persons/${personId}`);
  expect(answer.status).toBe(200);
  expect(answer.body.properties).toEqual({ email: "[masked]", name: "[masked]", work_email: "[masked]", plan: "team", city: "Oslo", contact: "[masked]", seats: 3 });

  await page.goto(`${service.url}/projects/${project.id}/persons/${personId}`);
  await waitForPage(page, "user-mia");
  await page.waitForSelector("section[aria-labelledby=properties-title] table");
  expect(await propertyRows(page)).toEqual(Object.fromEntries(Object.entries(answer.body.properties).map(([key, value]) => [key, value === "[masked]" ? "masked" : String(value)])));
  expect(await page.locator("section[aria-labelledby=properties-title] table .masked-value").count()).toBe(4);
  const note = await page.locator("section[aria-labelledby=properties-title] .alert").textContent();
  expect(note).toContain("they are personal data");
  expect(note).toContain("Your role in this project (member) does not include seeing personal data; admins and owners do.");

  // The event's properties are masked the same way, nested ones too; its raw JSON is the API's.
  const events = await memberRegion("GET", `/persons/${personId}/events`);
  expect(events.body.results[0].properties).toEqual({ referrer_ip: "[masked]", page: "/settings", owner: { phoneNumber: "[masked]", role: "admin" } });
  await page.getByRole("button", { name: "Show all of $identify" }).click();
  expect(JSON.parse((await page.getByLabel("Raw JSON of $identify").textContent())!)).toEqual(events.body.results[0]);
  expect(await page.locator("section[aria-labelledby=events-title] .alert").first().textContent()).toContain("Some event properties are shown as masked");
  await screenshotThemes(page, "person-masked");

  // A member has persons:write: unmerging is offered (there is one id, so nothing to select).
  expect(await page.getByRole("checkbox").count()).toBe(0);
  expect(member.problems).toEqual([]);
});

test("the owner sees the same person unmasked, with no note", async () => {
  const { page } = owner;
  await page.goto(`${service.url}/projects/${project.id}/persons/${personId}`);
  await waitForPage(page, "Mia Hansen");
  await page.waitForSelector("section[aria-labelledby=properties-title] table");
  expect(await propertyRows(page)).toEqual({ email: "mia@example.com", name: "Mia Hansen", work_email: "mia@corp.example", plan: "team", city: "Oslo", contact: "mia@example.org", seats: "3" });
  expect(await page.locator(".masked-value").count()).toBe(0);
  expect(await page.locator("section[aria-labelledby=properties-title] .alert").count()).toBe(0);
  expect(owner.problems).toEqual([]);
});

test("a member searching by a personal-data property is told it needs the personal-data permission", async () => {
  const { page } = member;
  const refused = await memberRegion("GET", "/persons?property=email&value=mia%40example.com");
  expect([refused.status, refused.body]).toEqual([403, { error: { code: "forbidden", message: "searching by personal-data properties needs persons.pii" } }]);
  await page.goto(`${service.url}/projects/${project.id}/persons?property=email&value=${encodeURIComponent("mia@example.com")}`);
  await waitForPage(page, "Persons");
  await page.waitForSelector("text=Searching by personal-data properties needs persons.pii.");
  // A property that is not personal data finds her, masked as before.
  await page.goto(`${service.url}/projects/${project.id}/persons?property=plan&value=team`);
  await waitForCount(page, "table.data-table tbody tr", 1);
  expect(await page.locator("table.data-table tbody tr td:first-child a").textContent()).toBe("user-mia");
  expect(await page.getByLabel("Property", { exact: true }).inputValue()).toBe("plan");
});
