// Experiments in the web console, in headless Chromium against the real service: an experiment
// is created from a multivariate flag, its launch refused until it has a primary metric (the
// API's reason shown), metrics and a guardrail defined in the browser, the plan calculator
// answering what the plan API answers, the launch, exposures and conversions sent through
// ingest for seeded persons, results shown with the results API's numbers and interval bars,
// and a ship refused by the harmed guardrail with its block reason, then shipped past it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { fillForm, screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { nativeEvent, sendAccepted } from "../../ingest/helpers.ts";
import { formatEffect, formatMetricValue, guardrailWords, significanceWords } from "../../../web/console/pages/experiments/stats-format.ts";
import { apiAs, signedInTab } from "./signed-in-tab.ts";

let service: TestService;
let browser: Browser;
let owner: SignedUpUser;
let tab: ConsoleTab;
let project: any;
let publicKeys: any[];
let flag: any;

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  owner = await signUp(service, "Experimenter");
  ({ project, public_keys: publicKeys } = await createProject(owner, "Shop", "eu"));
  flag = (await owner.client.post(`/app/projects/${project.id}/flags`, {
    key: "checkout", name: "Checkout", kind: "multivariate", variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }],
  })).body;
  tab = await signedInTab(browser, service, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const base = () => `/app/projects/${project.id}`;
let experimentId = "";
const experimentPath = () => `${base()}/experiments/${experimentId}`;

test("an experiment is created from the multivariate flag's page and opens as a draft", async () => {
  const { page } = tab;
  await page.goto(`${service.url}/projects/${project.id}/experiments`);
  await waitForPage(page, "Experiments");
  await page.waitForSelector("text=No experiments yet");
  // From the flag's page: its link opens "New experiment" on it.
  await page.goto(`${service.url}/projects/${project.id}/flags/${flag.id}`);
  await waitForPage(page, "Checkout");
  await page.getByRole("link", { name: "Run an experiment on it" }).click();
  await page.getByRole("dialog", { name: "New experiment" }).waitFor();
  await fillForm(page, { name: "One-page checkout", key: "one-page-checkout", hypothesis: "Fewer steps, more purchases." });
  expect(await page.getByLabel("Flag", { exact: true }).inputValue()).toBe(flag.id);
  await page.getByRole("button", { name: "Create experiment" }).click();
  await waitForPage(page, "One-page checkout");
  experimentId = new URL(page.url()).pathname.split("/").at(-1)!;
  expect((await apiAs(tab, service, "GET", experimentPath())).body).toMatchObject({
    flag_id: flag.id, flag_key: "checkout", key: "one-page-checkout", environment: "production", status: "draft", hypothesis: "Fewer steps, more purchases.",
    control_variant: "control", variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }], primary_metric: null,
  });
  expect(await page.textContent(".experiment-status")).toBe("Draft");
});

test("launching without a primary metric is refused, and the page shows the API's reason", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: "Launch", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Launch the experiment" });
  await dialog.getByRole("button", { name: "Launch" }).click();
  const refusal = await apiAs(tab, service, "POST", `${experimentPath()}/launch?dry_run=true`, {});
  expect(refusal.status).toBe(400);
  await dialog.getByRole("alert").waitFor();
  expect(await dialog.getByRole("alert").textContent()).toBe(`Launch refused: Launching needs a primary metric (primary_metric_id).`);
  expect(refusal.body.error.message).toBe("launching needs a primary metric (primary_metric_id)");
  await screenshotThemes(page, "experiment-launch-refused");
  await dialog.getByRole("button", { name: "Cancel" }).click();
});

test("metrics and a guardrail are defined and chosen in the browser", async () => {
  const { page } = tab;
  const newMetric = async (fields: Record<string, string>, kind: string, direction: string) => {
    await page.getByRole("button", { name: "New metric" }).click();
    const dialog = page.getByRole("dialog", { name: "New metric" });
    await dialog.getByLabel("Measures").selectOption(kind);
    for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
    await dialog.getByLabel("Better when it").selectOption(direction);
    await dialog.getByRole("button", { name: "Create metric" }).click();
    await dialog.waitFor({ state: "hidden" });
  };
  await newMetric({ Name: "Purchases", Key: "purchase", Event: "purchase_completed" }, "proportion", "increase");
  await newMetric({ Name: "Errors", Key: "errors", Event: "error_shown" }, "mean", "decrease");
  const { metrics } = (await apiAs(tab, service, "GET", `${base()}/metrics`)).body;
  const id = (key: string) => metrics.find((metric: any) => metric.key === key).id;
  await page.getByLabel("Primary metric", { exact: true }).selectOption(id("purchase"));
  await page.getByRole("button", { name: "Add guardrail" }).click();
  await page.getByLabel("Guardrail 1 metric", { exact: true }).selectOption(id("errors"));
  await page.getByLabel("Guardrail 1 margin kind", { exact: true }).selectOption("absolute");
  await page.getByLabel("Guardrail 1 margin", { exact: true }).fill("0.5");
  await page.getByRole("button", { name: "Save metrics" }).click();
  await page.waitForSelector("text=Metrics saved.");
  expect((await apiAs(tab, service, "GET", experimentPath())).body).toMatchObject({
    primary_metric: { metric_id: id("purchase"), key: "purchase", kind: "proportion", name: "Purchases", higher_is_better: true },
    secondary_metrics: [],
    guardrails: [{ metric_id: id("errors"), margin: 0.5, margin_kind: "absolute", key: "errors", kind: "mean", name: "Errors" }],
  });
});

test("the plan calculator shows the sample size and duration the plan API answers", async () => {
  const { page } = tab;
  const plan = page.getByRole("region", { name: "Plan" });
  await plan.getByLabel("Baseline rate (%)").fill("10");
  await plan.getByLabel("Minimum detectable effect").fill("10");
  await plan.getByLabel("Traffic per day (persons, all variants)").fill("1000");
  await plan.getByRole("button", { name: "Calculate" }).click();
  const answer = plan.getByRole("definition").first();
  await answer.waitFor();
  const expected = (await apiAs(tab, service, "POST", `${base()}/experiments/plan`, {
    metric: { kind: "proportion", baseline_rate: 0.1 }, mde: 0.1, mde_kind: "relative", alpha: 0.05, power: 0.8, variants: 2, daily_units: 1000,
  })).body.plan;
  expect(expected).toMatchObject({ units_per_variant: 14749, total_units: 29498, days: 30 });
  const shown = async (field: string) => plan.locator(`dd[data-field="${field}"]`).textContent();
  expect([await shown("units_per_variant"), await shown("total_units"), await shown("days")]).toEqual([String(expected.units_per_variant), String(expected.total_units), `${expected.days} days`]);
  await screenshotThemes(page, "experiment-plan");
});

test("launched, then exposures and conversions through ingest: the results the API answers, with interval bars and words", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: "Launch", exact: true }).click();
  await page.getByRole("dialog", { name: "Launch the experiment" }).getByRole("button", { name: "Launch" }).click();
  await page.waitForSelector(".experiment-status:text-is('Running')");
  const experiment = (await apiAs(tab, service, "GET", experimentPath())).body;
  // A copy: toMatchObject writes its matchers into the object it checks.
  expect(structuredClone(experiment)).toMatchObject({ status: "running", start_at: expect.any(String) });
  expect((await apiAs(tab, service, "GET", `${base()}/flags/${flag.id}`)).body.environments.production.enabled).toBe(true);

  // 20 seeded persons per variant: control 5 purchases and 0-1 errors each; test 12 purchases and 4-5 errors each.
  const production = publicKeys.find((key) => key.environment === "production").key;
  const at = (offsetMs: number) => new Date(Date.parse(experiment.start_at) + offsetMs).toISOString();
  const events = [];
  for (const [variant, purchases, errorBase] of [["control", 5, 0], ["test", 12, 4]] as const) {
    for (let i = 0; i < 20; i++) {
      const distinct_id = `${variant}-person-${i}`;
      events.push(nativeEvent({ distinct_id, event: "$feature_flag_called", timestamp: at(100), properties: { $feature_flag: "checkout", $feature_flag_response: variant } }));
      if (i < purchases) events.push(nativeEvent({ distinct_id, event: "purchase_completed", timestamp: at(200) }));
      for (let e = 0; e < errorBase + (i % 2); e++) events.push(nativeEvent({ distinct_id, event: "error_shown", timestamp: at(300 + e) }));
    }
  }
  await sendAccepted(service.url, production, events);

  await page.getByRole("button", { name: "Recompute now" }).click();
  const results = page.getByRole("region", { name: "Results" });
  await results.locator('[data-field="exposed"]:text-is("20")').first().waitFor();
  const answer = (await apiAs(tab, service, "GET", `${experimentPath()}/results`)).body;
  const { stats } = answer;
  expect(stats.exposures.units_per_variant).toEqual({ control: 20, test: 20 });
  expect(stats.metrics.errors.guardrail.test.status).toBe("harmed");

  const exposed = await results.getByRole("region", { name: "Exposures" }).locator('[data-field="exposed"]').allTextContents();
  expect(exposed).toEqual(["20", "20"]);
  for (const [key, role] of [["purchase", "Primary metric"], ["errors", "Guardrail"]] as const) {
    const metric = stats.metrics[key];
    const card = results.getByRole("region", { name: `${role} ${key}` });
    for (const variant of ["control", "test"]) {
      const row = card.locator(`tr[data-variant="${variant}"]`);
      const cell = (field: string) => row.locator(`[data-field="${field}"]`).textContent();
      const summary = metric.variants[variant];
      expect(await cell("units")).toBe(String(summary.units));
      if (metric.kind === "proportion") expect(await cell("conversions")).toBe(String(summary.conversions));
      expect(await cell("value")).toBe(formatMetricValue(summary.value, metric.kind));
    }
    const test = card.locator('tr[data-variant="test"]');
    const comparison = metric.comparisons.test;
    expect(await test.locator('[data-field="effect"]').textContent()).toBe(formatEffect(comparison, metric.kind));
    const verdict = await test.locator('[data-field="verdict"]').textContent();
    expect(verdict).toBe(key === "errors"
      ? guardrailWords("test", metric.guardrail.test)
      : significanceWords("test", comparison, true));
    // One interval bar per treatment, spanning the interval the API answers.
    expect(await card.locator("svg .interval-row").count()).toBe(1);
    expect(await card.locator("svg .interval-row title").textContent()).toBe(`test against control: ${formatEffect(comparison, metric.kind)}`);
  }
  expect(await results.locator("text=A guardrail is harmed").count()).toBe(1);
  await screenshotThemes(page, "experiment-results");
});

test("shipping the harmed variant is refused with the block reason; shipping past the block is recorded", async () => {
  const { page } = tab;
  await page.getByRole("button", { name: "Ship a variant" }).click();
  const dialog = page.getByRole("dialog", { name: "Ship a variant" });
  await dialog.getByLabel("Variant to ship").selectOption("test");
  await dialog.getByRole("button", { name: "Ship" }).click();
  await dialog.getByRole("alert").waitFor();
  const refused = await apiAs(tab, service, "POST", `${experimentPath()}/ship?dry_run=true`, { variant: "test" });
  expect(refused).toEqual({ status: 409, body: { error: { code: "experiment_blocked", message: "guardrail metrics significantly harmed: errors (ship with override_block to ship anyway)" } } });
  expect(await dialog.getByRole("alert").textContent()).toBe("Shipping is blocked: Guardrail metrics significantly harmed: errors (ship with override_block to ship anyway).");
  await screenshotThemes(page, "experiment-ship-blocked");
  await dialog.getByLabel("Ship anyway, past the harmed guardrail (the decision records it)").check();
  await dialog.getByLabel("Reason (kept with the decision)").fill("Revenue matters more");
  await dialog.getByRole("button", { name: "Ship" }).click();
  await page.waitForSelector(".experiment-status:text-is('Shipped')");
  expect((await apiAs(tab, service, "GET", experimentPath())).body).toMatchObject({
    status: "shipped", shipped_variant: "test", decision: { variant: "test", override_block: true, harmed_guardrails: ["errors"], reason: "Revenue matters more" },
  });
  await page.waitForSelector("text=It was shipped past harmed guardrails (errors).");
  // The refusals this file asked for (the launch's 400, the ship's 409) are the only errors logged.
  expect(tab.problems).toEqual([
    "console error: Failed to load resource: the server responded with a status of 400 (Bad Request)",
    "console error: Failed to load resource: the server responded with a status of 409 (Conflict)",
  ]);
});
