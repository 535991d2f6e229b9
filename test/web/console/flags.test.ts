// Feature flags in the web console, in headless Chromium against the real service: a flag is
// created and configured in the browser (a property condition, a 50% rollout, two variants with
// JSON payloads) and the API stores exactly that; the page's evaluation for a distinct id is
// what the region answers SDKs; an invalid split and an invalid payload are explained where
// they are; and the production gate holds for a member without flags.production.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { addMember, createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { fillForm, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { isoPattern } from "../../helpers/client.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { apiAs, signedInTab } from "./signed-in-tab.ts";

let service: TestService;
let browser: Browser;
let owner: SignedUpUser;
let tab: ConsoleTab;
let project: any;
let publicKeys: any[];

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  owner = await signUp(service, "Flag owner");
  ({ project, public_keys: publicKeys } = await createProject(owner, "Shop", "eu"));
  tab = await signedInTab(browser, service, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const flagKey = "checkout-redesign";
let flagId = "";
const productionKey = () => publicKeys.find((key) => key.environment === "production").key;
const flagsPath = () => `/app/projects/${project.id}/flags`;

/** What the region answers an SDK for one distinct id (our own POST /flags). */
async function regionAnswer(distinctId: string, personProperties: Record<string, unknown> = {}) {
  const response = await fetch(`${service.url}/ingest/eu/flags`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ api_key: productionKey(), distinct_id: distinctId, person_properties: personProperties, flag_keys_to_evaluate: [flagKey] }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { flags: Record<string, any> }).flags[flagKey];
}

async function evaluateInPage(page: Page, distinctId: string, properties: string) {
  await page.getByLabel("Distinct id", { exact: true }).fill(distinctId);
  await page.getByLabel("Person properties (JSON, optional)", { exact: true }).fill(properties);
  await page.getByRole("button", { name: "Evaluate", exact: true }).click();
  const result = page.getByRole("region", { name: "Evaluation result" });
  await result.locator(`code:text-is(${JSON.stringify(distinctId)})`).waitFor();
  const field = (name: string) => result.locator(`dd[data-field="${name}"]`).textContent();
  return { enabled: await field("enabled"), variant: await field("variant"), payload: await field("payload"), reason: await field("reason") };
}

test("an empty list offers to create a flag; the new flag opens in its editor", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/flags`);
  await waitForPage(page, "Feature flags");
  await page.waitForSelector("text=No feature flags yet");
  expect(await page.locator('.nav-item[aria-current="page"]').textContent()).toBe("Feature flags");
  await screenshotThemes(page, "flags-empty");
  await page.getByRole("button", { name: "Create a flag" }).click();
  await fillForm(page, { key: flagKey, name: "Checkout redesign", description: "The one-page checkout" });
  await page.getByLabel("MultivariateVariants with splits and payloads; starts as control 50 / test 50.").check();
  await page.getByRole("button", { name: "Create flag" }).click();
  await waitForPage(page, "Checkout redesign");
  flagId = new URL(page.url()).pathname.split("/").at(-1)!;
  expect(await page.getByLabel("Flag key").textContent()).toBe(flagKey);
  expect(await page.getByRole("tab", { selected: true }).textContent()).toBe("production");
});

test("a property condition, a 50% rollout and two variants with payloads, saved in the browser, are what the API stores", async () => {
  const { page } = tab;
  const set = page.getByRole("region", { name: "Condition set 1" });
  await set.getByRole("button", { name: "Add condition" }).click();
  await page.getByLabel("Set 1 condition 1 property", { exact: true }).fill("plan");
  await page.getByLabel("Set 1 condition 1 operator", { exact: true }).selectOption("eq");
  await page.getByLabel("Set 1 condition 1 value", { exact: true }).fill("pro");
  await page.getByLabel("Condition set 1 rollout percentage", { exact: true }).fill("50");
  await page.getByLabel("Variant 1 payload", { exact: true }).fill('{"color": "blue"}');
  await page.getByLabel("Variant 2 payload", { exact: true }).fill('{"color": "green", "sizes": [1, 2]}');
  await page.getByRole("switch", { name: "Serve this flag in production" }).check();
  await page.getByRole("button", { name: "Save production" }).click();
  await page.waitForSelector("text=Saved. The region gets the new configuration");
  await page.waitForSelector("text=Published to the region");
  await screenshotThemes(page, "flag-editor");

  const stored = await apiAs(tab, service, "GET", `${flagsPath()}/${flagId}`);
  const created = {
    enabled: false, payload: null, rules: [{ properties: [], rollout_percentage: null, variant: null }], salt: "", stickiness: "distinct_id",
    variants: [{ key: "control", name: null, rollout_percentage: 50, payload: null }, { key: "test", name: null, rollout_percentage: 50, payload: null }],
    version: 1, updated_at: expect.stringMatching(isoPattern), updated_by: owner.userId,
  };
  expect(stored).toEqual({
    status: 200,
    body: {
      id: flagId, project_id: project.id, key: flagKey, name: "Checkout redesign", kind: "multivariate", tags: [],
      environments: {
        development: { environment: "development", ...created },
        production: {
          environment: "production", enabled: true, payload: null,
          rules: [{ properties: [{ type: "person", key: "plan", operator: "eq", value: "pro" }], rollout_percentage: 50, variant: null }],
          salt: "", stickiness: "distinct_id",
          variants: [{ key: "control", name: null, rollout_percentage: 50, payload: { color: "blue" } }, { key: "test", name: null, rollout_percentage: 50, payload: { color: "green", sizes: [1, 2] } }],
          version: 2, updated_at: expect.stringMatching(isoPattern), updated_by: owner.userId,
        },
        staging: { environment: "staging", ...created },
      },
      created_at: expect.stringMatching(isoPattern), updated_at: expect.stringMatching(isoPattern), archived_at: null, created_by: owner.userId,
      description: "The one-page checkout", experiment_id: null, owner_id: null,
    },
  });
  // The newest production publication carries it, and the region took it.
  const { body } = await apiAs(tab, service, "GET", `${flagsPath()}/publications?environment=production`);
  expect(body.publications[0]).toMatchObject({ environment: "production", status: "published", error: null });
  expect(tab.problems).toEqual([]);
});

test("evaluating a distinct id in the page shows what the region answers for that id", async () => {
  const { page } = tab;
  // The first of a few ids the 50% rollout lets in, found by asking the region as an SDK would.
  let inside = "";
  for (let i = 0; i < 20 && inside === ""; i++) if ((await regionAnswer(`user-${i}`, { plan: "pro" })).enabled) inside = `user-${i}`;
  expect(inside).not.toBe("");
  const shown = await evaluateInPage(page, inside, '{"plan": "pro"}');
  const answer = await regionAnswer(inside, { plan: "pro" });
  expect(answer).toMatchObject({ enabled: true, reason: { code: "condition_match", condition_index: 0 } });
  expect(shown).toEqual({
    enabled: "true",
    variant: answer.variant,
    payload: JSON.stringify(answer.payload, null, 2),
    reason: `${answer.reason.description} ${answer.reason.code}`,
  });
  await screenshotThemes(page, "flag-evaluate");

  // Without the plan the condition fails: off, with the region's reason.
  const outside = await evaluateInPage(page, "visitor-7", "");
  const off = await regionAnswer("visitor-7");
  expect(off).toMatchObject({ enabled: false, variant: null, payload: null, reason: { code: "no_condition_match" } });
  expect(outside).toEqual({ enabled: "false", variant: "none", payload: "none", reason: `${off.reason.description} ${off.reason.code}` });
});

test("an invalid variant split and an invalid JSON payload are explained beside the variants, and nothing is saved", async () => {
  const { page } = tab;
  const before = (await apiAs(tab, service, "GET", `${flagsPath()}/${flagId}`)).body;
  await page.getByLabel("Variant 1 split percentage", { exact: true }).fill("40");
  await page.getByLabel("Variant 2 payload", { exact: true }).fill('{"color": ');
  expect(await page.locator(".split-total").textContent()).toBe("Total 90% (must be 100%)");
  await page.getByRole("button", { name: "Save production" }).click();
  const variants = page.locator(".variants");
  await variants.locator("text=Variant splits must add up to 100% (they add up to 90%).").waitFor();
  const second = page.getByRole("listitem", { name: "Variant 2" });
  expect(await second.locator(".inline-problems").textContent()).toStartWith("The payload of variant test is not valid JSON: ");
  expect(await page.getByRole("listitem", { name: "Variant 1" }).locator(".inline-problems").count()).toBe(0);
  await screenshotThemes(page, "flag-invalid-variants");
  expect((await apiAs(tab, service, "GET", `${flagsPath()}/${flagId}`)).body).toEqual(before);

  // Put right, the same save goes through.
  await page.getByLabel("Variant 1 split percentage", { exact: true }).fill("50");
  await page.getByLabel("Variant 2 payload", { exact: true }).fill('{"color": "green", "sizes": [1, 2]}');
  await page.getByRole("button", { name: "Discard changes" }).click();
  expect(await page.getByLabel("Variant 1 split percentage", { exact: true }).inputValue()).toBe("50");
  expect(await page.locator(".inline-problems").count()).toBe(0);
});

test("the list shows the flag with its state per environment, publication and tags, and finds it by search", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/flags`);
  await waitForPage(page, "Feature flags");
  const row = page.locator("tbody tr", { hasText: flagKey });
  // allTextContents does not wait: the list is fetched after the page's title is shown.
  await row.waitFor();
  const cells = await row.locator("td").allTextContents();
  expect(cells).toEqual([
    `Checkout redesign${flagKey}`, "Multivariate",
    "On50% where 1 condition holdscontrol 50 / test 50", "Offeveryonecontrol 50 / test 50", "Offeveryonecontrol 50 / test 50",
    "Published", "—",
  ]);
  expect(await page.locator("thead th").allTextContents()).toEqual(["Flag", "Type", "production", "staging", "development", "Region", "Tags"]);
  await screenshotThemes(page, "flags-list");
  await page.getByLabel("Search flags").fill("nothing-like-it");
  await page.waitForSelector("text=No flag matches");
  await page.getByLabel("Search flags").fill("ONE-PAGE");
  await row.waitFor();
  await row.click();
  await waitForPage(page, "Checkout redesign");
});

test("a cohort condition is chosen from the project's cohorts, in a new condition set, and stored by id", async () => {
  const cohort = await owner.client.post(`/app/projects/${project.id}/cohorts`, {
    kind: "dynamic", name: "Pro users", definition: { type: "and", values: [{ type: "person", key: "plan", operator: "eq", value: "pro" }] },
  });
  expect(cohort.status).toBe(201);
  const { page } = tab;
  await page.reload();
  await waitForPage(page, "Checkout redesign");
  await page.getByRole("tab", { name: "development" }).click();
  await page.getByRole("button", { name: "Add condition set" }).click();
  const set = page.getByRole("region", { name: "Condition set 2" });
  await set.getByRole("button", { name: "Add condition" }).click();
  await page.getByLabel("Set 2 condition 1 type", { exact: true }).selectOption("cohort");
  await page.getByLabel("Set 2 condition 1 operator", { exact: true }).selectOption("not_in");
  await page.getByLabel("Set 2 condition 1 cohort", { exact: true }).selectOption({ label: "Pro users (dynamic)" });
  await page.getByLabel("Condition set 2 variant", { exact: true }).selectOption("test");
  await page.getByRole("button", { name: "Save development" }).click();
  await page.waitForSelector("text=Saved. The region gets the new configuration");
  const stored = (await apiAs(tab, service, "GET", `${flagsPath()}/${flagId}`)).body.environments.development;
  expect(stored.rules).toEqual([
    { properties: [], rollout_percentage: null, variant: null },
    { properties: [{ type: "cohort", cohort_id: cohort.body.id, operator: "not_in" }], rollout_percentage: 100, variant: "test" },
  ]);
  await screenshotThemes(page, "flag-cohort-condition");
  await page.getByRole("tab", { name: "production" }).click();
});

let member: SignedUpUser;
let memberTab: ConsoleTab;

test("a member without flags.production: production's controls are off with the reason, the kill switch works, staging is theirs", async () => {
  member = await addMember(service, owner, "member");
  memberTab = await signedInTab(browser, service, member);
  const { page } = memberTab;
  await page.goto(`${service.url}/projects/${project.id}/flags/${flagId}`);
  await waitForPage(page, "Checkout redesign");
  const gate = page.getByRole("note", { name: "Why some controls are off" });
  expect(await gate.locator("p").textContent()).toBe(
    "Making a flag live in production needs the flags.production scope, which only admins and owners hold; you are a member. You can still edit the other environments, and switch production off (the kill switch). Ask an admin to publish production changes.",
  );
  // Production is live: every save would leave it live, so its editor is locked.
  expect(await page.getByLabel("Set 1 condition 1 value", { exact: true }).isDisabled()).toBe(true);
  expect(await page.getByRole("switch", { name: "Serve this flag in production" }).isDisabled()).toBe(true);
  expect(await page.getByRole("button", { name: "Save production" }).isDisabled()).toBe(true);
  await screenshotThemes(page, "flag-production-gate");

  // The API draws the same line: a live production change is 403 for a member.
  const refused = await apiAs(memberTab, service, "PATCH", `${flagsPath()}/${flagId}/environments/production`, { rules: [] });
  expect(refused).toEqual({ status: 403, body: { error: { code: "missing_scope", message: expect.stringContaining("flags.production") } } });

  // The kill switch is open to them.
  await page.getByRole("button", { name: "Switch off in production" }).click();
  await page.waitForSelector("text=Off in production");
  expect((await apiAs(memberTab, service, "GET", `${flagsPath()}/${flagId}`)).body.environments.production).toMatchObject({ enabled: false, version: 3, updated_by: member.userId });
  // Off now: editing is open again, but switching it on stays with admins and owners.
  expect(await page.getByRole("switch", { name: "Serve this flag in production" }).isDisabled()).toBe(true);
  expect(await page.getByLabel("Set 1 condition 1 value", { exact: true }).isDisabled()).toBe(false);
  await page.waitForSelector("text=Switching it on is for admins and owners (flags.production).");

  // Staging is theirs to switch on.
  await page.getByRole("tab", { name: "staging" }).click();
  expect(await page.getByRole("note", { name: "Why some controls are off" }).count()).toBe(0);
  await page.getByRole("switch", { name: "Serve this flag in staging" }).check();
  await page.getByRole("button", { name: "Save staging" }).click();
  await page.waitForSelector("text=On in staging");
  expect((await apiAs(memberTab, service, "GET", `${flagsPath()}/${flagId}`)).body.environments.staging).toMatchObject({ enabled: true, version: 2, updated_by: member.userId });
  expect(memberTab.problems).toEqual([]);
});

test("a viewer sees flags but every control that changes them is off, with the reason", async () => {
  const viewer = await addMember(service, owner, "viewer");
  const viewerTab = await signedInTab(browser, service, viewer);
  const { page } = viewerTab;
  await page.goto(`${service.url}/projects/${project.id}/flags`);
  await waitForPage(page, "Feature flags");
  expect(await page.getByRole("button", { name: "New flag" }).isDisabled()).toBe(true);
  await page.waitForSelector("text=viewers can look at flags and experiments but not change them");
  await page.goto(`${service.url}/projects/${project.id}/flags/${flagId}`);
  await waitForPage(page, "Checkout redesign");
  await page.getByRole("tab", { name: "staging" }).click();
  expect(await page.getByRole("switch", { name: "Serve this flag in staging" }).isDisabled()).toBe(true);
  expect(await page.getByRole("button", { name: "Archive" }).isDisabled()).toBe(true);
  await viewerTab.close();
});

test("hostile names, descriptions, tags, payload strings and property values show literally, and nothing of them runs", async () => {
  const hostile = {
    name: "<img src=x onerror=window.__pwned=1>",
    description: "<script>window.__pwned=2</script>",
    tag: "<svg onload=window.__pwned=3>",
    payload: "<img src=x onerror=window.__pwned=4>",
    value: "<b onmouseover=window.__pwned=5>pro</b>",
  };
  const created = await owner.client.post(flagsPath(), {
    key: "hostile", name: hostile.name, description: hostile.description, tags: [hostile.tag], payload: hostile.payload,
    rules: [{ properties: [{ type: "person", key: "plan", operator: "eq", value: hostile.value }] }],
  });
  expect(created.status).toBe(201);
  expect((await owner.client.patch(`${flagsPath()}/${created.body.id}/environments/production`, { enabled: true })).status).toBe(200);
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/flags`);
  await waitForPage(page, "Feature flags");
  const row = page.locator("tbody tr", { hasText: "hostile" });
  expect(await row.locator(".flag-name").textContent()).toBe(hostile.name);
  expect(await row.locator(".tag").textContent()).toBe(hostile.tag);
  await row.locator(".flag-name").click();
  await waitForPage(page, hostile.name);
  expect(await page.textContent(".page-lede")).toBe(hostile.description);
  expect(await page.getByLabel("Set 1 condition 1 value", { exact: true }).inputValue()).toBe(hostile.value);
  expect(await page.getByLabel("Payload (JSON, optional)", { exact: true }).inputValue()).toBe(JSON.stringify(hostile.payload));
  const shown = await evaluateInPage(page, hostile.value, JSON.stringify({ plan: hostile.value }));
  expect(shown.payload).toBe(JSON.stringify(hostile.payload));
  await screenshotThemes(page, "flag-hostile");
  expect(await page.locator("img, script:not([src]), svg[onload], b").count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(tab.problems).toEqual([]);
});
