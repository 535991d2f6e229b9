// The Cohorts pages in headless Chromium against the real service: a behavioural cohort built
// in the criteria builder (a nested or-group included), previewed before saving, created,
// calculated, and its size equal to what the API answers; a static cohort from a CSV file of
// distinct ids (bad files refused in words, a good one matched); deleting refused while a flag
// names the cohort (the 409 in words), and allowed after. A hostile cohort name, and hostile
// ids in the file, show literally with nothing run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Locator, Page } from "playwright-core";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, screenshotThemes, waitForPage, type ConsoleTab, type PageDocument } from "../../helpers/console-browser.ts";
import { createConsoleProject, signUpInContext, type ConsoleProject } from "../../helpers/console-project.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../../ingest/helpers.ts";

let service: TestService;
let browser: Browser;
let tab: ConsoleTab;
let project: ConsoleProject;

const hostileName = "<img src=x onerror=window.__pwned=1> buyers";
const hostileId = "<img src=x onerror=window.__pwned=2>";

let clock = Date.now() - 3_600_000;
const at = (overrides: NativeEvent) => nativeEvent({ timestamp: rfc3339((clock += 1000)), properties: {}, ...overrides });
const purchases = (distinctId: string, count: number) => Array.from({ length: count }, () => at({ distinct_id: distinctId, event: "purchase" }));

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  tab = await openConsoleTab(browser);
  const orgId = await signUpInContext(service, tab.context, "cora@example.com", "Cora");
  project = await createConsoleProject(service, tab.context, orgId, { name: "Shop" });
  await sendAccepted(service.url, project.key, [
    at({ distinct_id: "buyer-a", event: "$set", $set: { plan: "pro", country: "DE" } }),
    at({ distinct_id: "buyer-b", event: "$set", $set: { plan: "free", country: "NO" } }),
    at({ distinct_id: "buyer-c", event: "$set", $set: { plan: "pro", country: "NO" } }),
    ...purchases("buyer-a", 3),
    ...purchases("buyer-b", 2),
    ...purchases("buyer-c", 1),
    at({ distinct_id: "browser-d", event: "$pageview" }),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const app = (path = "") => `${service.url}/app/projects/${project.id}/cohorts${path}`;
const getCohort = async (id: string) => {
  const reply = await tab.context.request.get(app(`/${id}`));
  return { status: reply.status(), body: reply.status() === 200 ? await reply.json() : null };
};
const preview = async (definition: unknown) => {
  const reply = await project.region("POST", "/cohorts/preview", { definition, sample_size: 10 });
  expect(reply.status).toBe(200);
  return reply.body as { size: number; sample: { id: string }[] };
};
const condition = (page: Page, number: number) => page.getByRole("group", { name: `Condition ${number}`, exact: true });
const conditionKind = (page: Page, number: number) => page.getByRole("combobox", { name: `Condition ${number}`, exact: true });
const previewIds = (page: Page) =>
  page.locator("section[aria-labelledby=preview-title] tbody tr td:first-child a").evaluateAll((links) => links.map((link) => link.getAttribute("href")!.split("/").at(-1)));

async function previewShows(page: Page, size: number) {
  await page.locator("section[aria-labelledby=preview-title]").getByRole("button", { name: "Preview" }).click();
  const text = `${size} ${size === 1 ? "person matches" : "persons match"}`;
  await page.waitForFunction((wanted) => {
    const document = (globalThis as unknown as { document: PageDocument }).document;
    return !document.querySelector("section[aria-labelledby=preview-title] [aria-busy]") && document.querySelector(".preview-size")?.textContent === wanted;
  }, text);
}

const repeatBuyers = { type: "performed", event: "purchase", count_operator: "gte", count: 2, days: 30 };
const expectedDefinition = {
  type: "and",
  values: [
    repeatBuyers,
    { type: "or", values: [{ type: "person", key: "plan", operator: "eq", value: "pro" }, { type: "person", key: "country", operator: "in", value: ["SE", "NO"] }] },
  ],
};
let dynamicId = "";

test("a behavioural cohort is built in the builder (a nested or-group too) and previewed before it is saved", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/cohorts`);
  await waitForPage(page, "Cohorts");
  await page.waitForSelector("text=No cohorts yet");
  await page.getByRole("link", { name: "New cohort" }).click();
  await waitForPage(page, "New cohort");
  await page.getByLabel("Name", { exact: true }).fill(hostileName);

  const first = condition(page, 1);
  expect(await conditionKind(page, 1).inputValue()).toBe("performed");
  await first.getByLabel("Event").fill("purchase");
  await first.getByLabel("Times").fill("2");
  await first.getByLabel("In the last (days)").fill("30");
  await previewShows(page, 2);
  const repeat = await preview({ type: "and", values: [repeatBuyers] });
  expect(repeat.size).toBe(2);
  expect(await previewIds(page)).toEqual(repeat.sample.map((person) => person.id));

  // And (plan is pro, or country is one of SE and NO): a nested group.
  await page.getByRole("group", { name: "Definition" }).getByRole("button", { name: "Add group" }).last().click();
  const group = page.getByRole("group", { name: "Group from condition 2" });
  expect(await group.getByLabel("Match").inputValue()).toBe("or");
  await conditionKind(page, 2).selectOption("person");
  await condition(page, 2).getByLabel("Property").fill("plan");
  await condition(page, 2).getByLabel("Value").fill("pro");
  await group.getByRole("button", { name: "Add condition" }).click();
  await conditionKind(page, 3).selectOption("person");
  await condition(page, 3).getByLabel("Property").fill("country");
  await condition(page, 3).getByLabel("Operator").selectOption("in");
  await condition(page, 3).getByLabel("Values (one per line)").fill("SE\nNO");
  await previewShows(page, 2);
  const nested = await preview(expectedDefinition);
  expect(nested.size).toBe(2);
  expect(await previewIds(page)).toEqual(nested.sample.map((person) => person.id));
  await screenshotThemes(page, "cohort-builder");

  // A condition left unfinished is named before anything is sent.
  await page.getByRole("group", { name: "Definition" }).getByRole("button", { name: "Add condition" }).last().click();
  await page.getByRole("button", { name: "Create cohort" }).click();
  await page.waitForSelector("text=Condition 4: enter an event.");
  await page.getByRole("button", { name: "Remove condition 4" }).click();

  await page.getByRole("button", { name: "Create cohort" }).click();
  await waitForPage(page, hostileName);
  dynamicId = new URL(page.url()).pathname.split("/").at(-1)!;
  const saved = await getCohort(dynamicId);
  expect([saved.status, saved.body.kind, saved.body.name, saved.body.definition, saved.body.calculation]).toEqual([200, "dynamic", hostileName, expectedDefinition, null]);
  expect(await page.locator("img").count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
});

test("Calculate now records the size the region counts, shown as the API answers it", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: "Calculate now" }).click();
  await page.waitForSelector(".calc-badge-ok");
  const { body } = await getCohort(dynamicId);
  expect(body.calculation).toEqual({ environment: "production", status: "ok", calculated_at: expect.any(String), cohort_version: 1, error: null, size: 2 });
  expect(await page.locator(".calculation-size").textContent()).toBe("2");
  expect((await preview(expectedDefinition)).size).toBe(body.calculation.size);
  await screenshotThemes(page, "cohort-calculated");

  // A changed definition is saved as a new version, and the calculation is out of date until calculated again.
  await condition(page, 1).getByLabel("Times").fill("3");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.waitForSelector(".calc-badge-stale");
  expect((await getCohort(dynamicId)).body.version).toBe(2);
  await page.getByRole("button", { name: "Calculate now" }).click();
  await page.waitForSelector(".calc-badge-ok");
  const recalculated = (await getCohort(dynamicId)).body.calculation;
  expect([recalculated.cohort_version, recalculated.size]).toEqual([2, 1]);
  expect(await page.locator(".calculation-size").textContent()).toBe("1");

  await page.getByRole("link", { name: "← Cohorts" }).click();
  await waitForPage(page, "Cohorts");
  const row = page.locator("table.data-table tbody tr").first();
  // The list is drawn once its request answers: read the row once it is there.
  await row.locator("td").first().waitFor();
  expect(await row.locator("td").allTextContents()).toEqual([hostileName, "Dynamic", "1", expect.stringMatching(/ago|now/), "Calculated"]);
  await screenshotThemes(page, "cohorts-list");
  expect(tab.problems).toEqual([]);
});

let staticId = "";
const chooseFile = (input: Locator, name: string, content: string | Buffer) =>
  input.setInputFiles({ name, mimeType: "text/csv", buffer: typeof content === "string" ? Buffer.from(content) : content });

test("a static cohort's members come from a CSV file: bad files are refused in words, a good one is matched and counted", async () => {
  const { page } = tab;
  await page.getByRole("link", { name: "New cohort" }).click();
  await waitForPage(page, "New cohort");
  await page.getByRole("radio", { name: /Static/ }).check();
  expect(await page.getByRole("group", { name: "Definition" }).count()).toBe(0);
  await page.getByLabel("Name", { exact: true }).fill("Beta testers");
  await page.getByRole("button", { name: "Create cohort" }).click();
  await waitForPage(page, "Beta testers");
  staticId = new URL(page.url()).pathname.split("/").at(-1)!;

  const file = page.getByLabel("CSV file of distinct ids");
  const add = page.getByRole("button", { name: "Add these persons" });
  await chooseFile(file, "broken.csv", 'distinct_id\nbuyer-a\n"buyer-b\nbuyer-c\n');
  await page.waitForSelector("text=broken.csv: Line 3: a quoted field is never closed.");
  expect(await add.isDisabled()).toBe(true);
  await chooseFile(file, "archive.csv", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]));
  await page.waitForSelector("text=archive.csv: This is not a CSV text file: it holds binary data.");
  await chooseFile(file, "latin1.csv", Buffer.from([0x69, 0x64, 0x0a, 0x6a, 0xf6, 0x72, 0x67, 0x0a]));
  await page.waitForSelector("text=latin1.csv: The file is not UTF-8 text.");
  await chooseFile(file, "empty.csv", "distinct_id\n");
  await page.waitForSelector("text=empty.csv: The file has a header but no distinct ids.");
  expect(await add.isDisabled()).toBe(true);

  await chooseFile(file, "beta.csv", `distinct_id,note\r\nbuyer-a,first\r\n"buyer-b","has ""quotes"", and a comma"\r\n${hostileId},nobody\r\nbuyer-a,again\r\n`);
  await page.waitForSelector('text=beta.csv: 3 distinct ids under the header “distinct_id”, 1 repeated one left out.');
  await add.click();
  await page.waitForSelector("text=2 of 3 distinct ids matched a person; 2 persons were added. The cohort has 2 persons in production.");
  expect(await page.locator(".not-found-ids li").allTextContents()).toEqual([hostileId]);
  await page.waitForSelector(".calculation-size:text-is('2')");
  const { body } = await getCohort(staticId);
  expect([body.kind, body.definition, body.calculation.status, body.calculation.size]).toEqual(["static", null, "ok", 2]);
  expect((await preview({ type: "and", values: [{ type: "cohort", cohort_id: staticId, operator: "in" }] })).size).toBe(2);
  expect(await page.locator("img").count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  await screenshotThemes(page, "cohort-static-upload");

  // The same file again changes no one; removing takes them out.
  await add.click();
  await page.waitForSelector("text=2 of 3 distinct ids matched a person; 0 persons were added (the others were members already).");
  await page.getByLabel("These persons").selectOption("remove");
  await page.getByRole("button", { name: "Remove these persons" }).click();
  await page.waitForSelector("text=2 of 3 distinct ids matched a person; 2 persons were removed. The cohort has 0 persons in production.");
  expect((await getCohort(staticId)).body.calculation.size).toBe(0);
  expect(tab.problems).toEqual([]);
});

test("deleting a cohort a flag names is refused with the reason in words; once the flag lets go, it is deleted", async () => {
  const { page } = tab;
  const flag = await tab.context.request.post(`${service.url}/app/projects/${project.id}/flags`, {
    data: { key: "beta-flag", name: "Beta flag", rules: [{ properties: [{ type: "cohort", cohort_id: staticId }] }] },
  });
  expect(flag.status()).toBe(201);
  const refused = await tab.context.request.delete(app(`/${staticId}`));
  expect([refused.status(), await refused.json()]).toEqual([409, { error: { code: "conflict", message: 'cohort "Beta testers" is named by flag beta-flag; change those first' } }]);

  await page.getByRole("button", { name: "Delete cohort" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this cohort?" });
  await dialog.getByRole("button", { name: "Delete" }).click();
  await dialog.getByText('It cannot be deleted yet. Cohort "Beta testers" is named by flag beta-flag; change those first.').waitFor();
  await screenshotThemes(page, "cohort-delete-refused");
  expect((await getCohort(staticId)).status).toBe(200);
  await dialog.getByRole("button", { name: "Cancel" }).click();

  const flagId = (await flag.json()).id;
  expect((await tab.context.request.delete(`${service.url}/app/projects/${project.id}/flags/${flagId}`)).status()).toBe(200);
  await page.getByRole("button", { name: "Delete cohort" }).click();
  await dialog.getByRole("button", { name: "Delete" }).click();
  await waitForPage(page, "Cohorts");
  expect((await getCohort(staticId)).status).toBe(404);
  await page.locator("table.data-table tbody tr td:first-child a").first().waitFor();
  expect(await page.locator("table.data-table tbody tr td:first-child a").allTextContents()).toEqual([hostileName]);
  // The refused DELETE is the one failed request the browser logs.
  expect(tab.problems).toEqual(["console error: Failed to load resource: the server responded with a status of 409 (Conflict)"]);
});
