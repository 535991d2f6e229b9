// Erasing a person in the web console, in headless Chromium against the real service: the
// owner opens a person's profile, "Erase this person" asks first (naming the person and every
// distinct id, hostile ones shown as text), the request's progress shows while the region
// works, and once completed the certificate: its facts, its download (the API's own JWS) and
// its signature verified by the public route. Project settings list the request with its
// certificate. A member sees why they cannot erase, and no list.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { createConsoleProject, logInContext, signUpInContext, type ConsoleProject } from "../../helpers/console-project.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { nativeEvent, rfc3339, sendAccepted } from "../../ingest/helpers.ts";
import { replaceErase } from "../../control/erasure/fixture.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let project: ConsoleProject;
let adaId: string;
/** Opens the region's erase once the test has seen the request running. */
let letRegionErase!: () => void;

const hostileId = "<img src=x onerror=window.__pwned=1>";

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  const orgId = await signUpInContext(service, tab.context, "olga@example.com", "Olga");
  project = await createConsoleProject(service, tab.context, orgId, { name: "Shop" });
  let clock = Date.now() - 3_600_000;
  const at = (event: Record<string, unknown>) => nativeEvent({ timestamp: rfc3339((clock += 1000)), properties: {}, ...event });
  await sendAccepted(service.url, project.key, [
    at({ distinct_id: hostileId, event: "$pageview" }),
    at({ distinct_id: "user-ada", event: "$identify", properties: { $anon_distinct_id: hostileId }, $set: { name: "Ada Lovelace", email: "ada@example.com" } }),
    at({ distinct_id: "user-ada", event: "purchased", properties: { amount: 42 } }),
    at({ distinct_id: "keeper", event: "$pageview" }),
  ]);
  const { body } = await project.region("GET", "/persons?search=user-ada");
  adaId = body.results[0].id;
  const regionMayErase = new Promise<void>((resolve) => (letRegionErase = resolve));
  replaceErase(service, async (request, onProgress, real) => {
    onProgress?.("persons", 0, 6);
    await regionMayErase;
    return real(request, onProgress);
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

test("the owner erases a person from their profile: confirmation, progress, then a certificate that downloads and verifies", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/persons/${adaId}`);
  await waitForPage(page, "Ada Lovelace");
  await page.getByRole("button", { name: "Erase this person" }).click();
  const dialog = page.getByRole("dialog", { name: "Erase Ada Lovelace?" });
  await dialog.waitFor();
  expect((await dialog.getByRole("list", { name: "Distinct ids to erase" }).locator("li").allTextContents()).sort()).toEqual([hostileId, "user-ada"].sort());
  expect(await dialog.textContent()).toContain(`Person ${adaId}`);
  await screenshotThemes(page, "erasure-confirm");

  await dialog.getByRole("button", { name: "Erase permanently" }).click();
  await page.getByText("Erasing persons (0 of 6)").waitFor();
  const [listed] = (await (await tab.context.request.get(`${service.url}/app/projects/${project.id}/erasure-requests`)).json()).erasure_requests;
  expect([listed.status, listed.subject_count]).toEqual(["running", 1]);
  await screenshotThemes(page, "erasure-progress");

  letRegionErase();
  await page.getByText("This person's data is erased.").waitFor();
  // What the profile showed is gone with them.
  await waitForPage(page, "Erased person");
  expect([await page.locator("#properties-title, #distinct-ids-title, #events-title").count(), await page.getByText("ada@example.com").count()]).toEqual([0, 0]);
  await page.getByRole("button", { name: "Download certificate" }).waitFor();
  const served = await (await tab.context.request.get(`${service.url}/app/projects/${project.id}/erasure-requests/${listed.id}/certificate`)).json();
  const facts = Object.fromEntries(await page.locator(".erasure-certificate .fact").evaluateAll((rows) => rows.map((row) => [row.querySelector("dt")!.textContent, row.querySelector("dd")!.textContent])));
  expect(facts["Request"]).toBe(listed.id);
  expect(facts["Region and environment"]).toBe("eu · production");
  expect(facts["Persons erased"]).toBe("1");
  expect(facts["Identifiers (as SHA-256 hashes)"]).toBe(String(served.payload.identifier_hashes.length));
  expect(facts["Manifest digest"]).toBe(served.payload.manifest_digest);

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download certificate" }).click()]);
  expect(download.suggestedFilename()).toBe(`erasure-certificate-${listed.id}.jws`);
  expect(readFileSync((await download.path())!, "utf8")).toBe(served.certificate);
  await page.getByRole("button", { name: "Verify signature" }).click();
  await page.getByText("The signature is valid").waitFor();
  await screenshotThemes(page, "erasure-completed");

  // The person is gone from the region.
  const { body } = await project.region("GET", "/persons?search=user-ada");
  expect(body.results).toEqual([]);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(tab.problems).toEqual([]);
});

test("project settings list the request as completed, with its certificate", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/settings`);
  await waitForPage(page, "Project settings");
  const section = page.locator("section[aria-labelledby=erasure-requests-title]");
  const rows = section.locator("table.data-table tbody tr");
  await rows.first().waitFor();
  expect(await rows.count()).toBe(1);
  expect(await rows.first().locator("td").nth(1).textContent()).toBe("production");
  expect(await rows.first().locator("td").nth(2).textContent()).toBe("1 erased");
  expect(await rows.first().locator("td").nth(3).textContent()).toBe("Completed");
  await section.getByRole("button", { name: /^Certificate of request/ }).click();
  const dialog = page.getByRole("dialog", { name: "Erasure certificate" });
  await dialog.getByRole("button", { name: "Verify signature" }).click();
  await dialog.getByText("The signature is valid").waitFor();
  await screenshotThemes(page, "erasure-settings-certificate");
  await dialog.getByRole("button", { name: "Close" }).click();
  expect(tab.problems).toEqual([]);
});

test("a member sees why they cannot erase, on the profile and in settings", async () => {
  const member = await openConsoleTab(browser);
  try {
    await signUpInContext(service, member.context, "mia@example.com", "Mia");
    const invited = await tab.context.request.post(`${service.url}/app/orgs/${project.orgId}/invitations`, { data: { email: "mia@example.com", role: "member" } });
    expect(invited.status()).toBe(201);
    const accepted = await member.context.request.post(`${service.url}/app/invitations/accept`, { data: { token: service.lastMail("mia@example.com", "invitation").token } });
    expect(accepted.status()).toBe(200);
    await logInContext(service, member.context, "mia@example.com");
    const { page } = member;
    const { body } = await project.region("GET", "/persons?search=keeper");
    await page.goto(`${service.url}/projects/${project.id}/persons/${body.results[0].id}`);
    await waitForPage(page, "keeper");
    const erase = page.getByRole("button", { name: "Erase this person" });
    expect(await erase.isDisabled()).toBe(true);
    expect(await erase.getAttribute("aria-describedby")).toBe("erase-person-note");
    expect(await page.textContent("#erase-person-note")).toBe("Only admins and owners can erase a person's data. You are a member.");
    await page.goto(`${service.url}/projects/${project.id}/settings`);
    await waitForPage(page, "Project settings");
    expect(await page.textContent("#erasure-requests-role-note")).toBe("Only admins and owners can see and make erasure requests. You are a member.");
    expect(await page.locator("section[aria-labelledby=erasure-requests-title] table").count()).toBe(0);
    expect(member.problems).toEqual([]);
  } finally {
    await member.close();
  }
});
