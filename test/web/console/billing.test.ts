// An organisation's billing page in headless Chromium against the real service: without a
// payment provider (the self-hosted plan, buttons disabled saying billing is not configured),
// then on a service configured with Stripe (STRIPE_* at start: the shipped StripePaymentProvider
// talking to the fake Stripe API, since Stripe cannot be reached here; the subscription is paid
// through checkout and Stripe's signed webhooks): the usage bars, a cap that makes capture sample and the page explaining it, the owner raising
// the cap through the form, a plan change in place, the portal on the provider's page, and an admin seeing the
// cap read-only with the reason.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { addMember, createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { screenshotThemes, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { nativeBody, nativeEvents, ok, postIngest } from "../../ingest/helpers.ts";
import type { FakeStripeApi } from "../../helpers/fake-stripe-api.ts";
import { lastProration, startStripeForService, stripeServiceEnv, subscribe } from "../../helpers/stripe-provider-fixture.ts";
import { signedInTab } from "./signed-in-tab.ts";

const hourMs = 3_600_000;
/** A deployment without a payment provider (the self-hosted plan). */
let selfHosted: TestService;
let stripe: FakeStripeApi;
/** A deployment that charges through Stripe. */
let service: TestService;
let browser: Browser;
let owner: SignedUpUser;
let admin: SignedUpUser;
let ownerTab: ConsoleTab;
let apiKey: string;

beforeAll(async () => {
  selfHosted = await startTestService();
  stripe = startStripeForService();
  service = await startTestService(stripeServiceEnv(stripe));
  owner = await signUp(service, "Bea Owner");
  admin = await addMember(service, owner, "admin");
  apiKey = (await createProject(owner, "Shop")).public_keys[0].key;
  browser = await launchChromium();
  ownerTab = await signedInTab(browser, service, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await selfHosted?.close();
  await stripe?.stop();
});

const openBilling = async (tab: ConsoleTab) => {
  await tab.page.goto(`${service.url}/orgs/${owner.orgId}/billing`);
  await waitForPage(tab.page, "Billing");
  await tab.page.waitForSelector("text=Loading billing…", { state: "detached" });
};
const section = (tab: ConsoleTab, id: string) => tab.page.locator(`section[aria-labelledby=${id}-title]`);

test("without a payment provider: the self-hosted plan, no limits, and buttons that say billing is not configured", async () => {
  const selfHostedOwner = await signUp(selfHosted, "Sam Self-hosted");
  const tab = await signedInTab(browser, selfHosted, selfHostedOwner);
  const { page } = tab;
  await page.goto(`${selfHosted.url}/orgs/${selfHostedOwner.orgId}/settings`);
  await waitForPage(page, "Organisation settings");
  await page.getByRole("link", { name: "Plan, usage and spend cap" }).click();
  await waitForPage(page, "Billing");
  await page.waitForSelector("text=Loading billing…", { state: "detached" });
  await page.waitForSelector("text=This deployment has no payment provider: every organisation is on the self-hosted plan, without limits or invoices.");
  const plan = section(tab, "billing-plan");
  expect(await plan.locator(".role-note").textContent()).toBe(
    "Billing is not configured on this deployment: no payment provider is set up (STRIPE_SECRET_KEY and the plans' prices; see docs/billing.md).",
  );
  expect(await plan.getByRole("button", { name: "Change plan" }).isDisabled()).toBe(true);
  expect(await plan.getByRole("button", { name: "Manage billing" }).isDisabled()).toBe(true);
  expect(await section(tab, "billing-cap").locator(".role-note").textContent()).toBe("The self-hosted plan has no price, so it takes no spend cap.");
  expect(await section(tab, "billing-usage").locator(".usage-meter-head").allTextContents()).toEqual(["Events0 (no limit)", "Replay recordings0 (no limit)"]);
  expect(await section(tab, "billing-ingest").locator(".settings-description").textContent()).toBe("Every accepted event is stored.");
  await screenshotThemes(page, "billing-self-hosted");
  expect(tab.problems).toEqual([]);
  await tab.close();
});

test("with Stripe: usage against the included volumes, a cap that samples and why, the owner raising it, a plan change, the portal", async () => {
  // A starter subscription paid for an hour ago: 2,000 events in that hour project past the included million.
  const subscription = await subscribe(service.url, stripe, owner, owner.orgId, "starter", Math.floor((Date.now() - hourMs) / 1000));
  for (let sent = 0; sent < 2000; sent += 1000) {
    const reply = await postIngest(service.url, nativeBody(apiKey, nativeEvents(1000)));
    expect([reply.status, reply.body]).toEqual([200, ok(1000)]);
  }
  expect((await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 2900 })).status).toBe(200);

  const { page } = ownerTab;
  await openBilling(ownerTab);
  expect(await section(ownerTab, "billing-usage").locator(".usage-meter-head").allTextContents()).toEqual([
    "Events2,000 of 1,000,000 included",
    "Replay recordings0 of 5,000 included",
  ]);
  const ingest = section(ownerTab, "billing-ingest");
  expect(await ingest.locator(".fact dd").first().textContent()).toBe("Sampling");
  expect(await ingest.getByRole("alert").or(ingest.getByRole("status")).textContent()).toContain("The projected usage passes the spend cap, so capture keeps");
  await screenshotThemes(page, "billing-sampling");

  const cap = section(ownerTab, "billing-cap");
  await cap.getByLabel("New cap (USD)").fill("500.00");
  await cap.getByRole("button", { name: "Save cap" }).click();
  await page.waitForSelector("text=The spend cap is saved; capture follows it within a minute.");
  expect((await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body).toMatchObject({ spend_cap_minor: 50_000, ingest: { stage: "full", keep_ratio: 1 } });
  await ingest.locator("text=Every accepted event is stored.").waitFor();

  // A live subscription changes plan in place (Stripe prorates), and the page shows the new plan.
  const plan = section(ownerTab, "billing-plan");
  await plan.getByLabel("Plan to move to").selectOption("scale");
  await plan.getByRole("button", { name: "Change plan" }).click();
  await section(ownerTab, "billing-plan").locator(".fact dd", { hasText: /^Scale$/ }).waitFor();
  expect(await section(ownerTab, "billing-plan").locator(".fact dd").allTextContents()).toEqual(["Scale", "$499.00 a month", "active", expect.stringMatching(/ to /)]);
  const item = (stripe.subscriptions.get(subscription.id)!.items as { data: { price: { id: string } }[] }).data[0]!;
  expect({ price: item.price.id, prorated: lastProration(stripe).amount_minor > 0 }).toEqual({ price: "price_scale", prorated: true });
  // The customer's portal is Stripe's page (answered here by the browser: Stripe cannot be reached).
  await page.route("https://billing.stripe.com/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<title>Stripe portal</title>" }));
  await section(ownerTab, "billing-plan").getByRole("button", { name: "Manage billing" }).click();
  await page.waitForURL(/^https:\/\/billing\.stripe\.com\//);
  const portalSession = stripe.portalSessions.at(-1)!;
  expect({ url: page.url(), customer: String(portalSession.customer) }).toEqual({ url: String(portalSession.url), customer: String(subscription.customer) });
  expect(ownerTab.problems).toEqual([]);
});

test("an admin reads billing but the plan and cap controls are disabled with the reason", async () => {
  const tab = await signedInTab(browser, service, admin);
  await openBilling(tab);
  expect(await section(tab, "billing-cap").locator(".role-note").textContent()).toBe("Only owners can set the spend cap. You are an admin.");
  expect(await section(tab, "billing-cap").getByRole("button", { name: "Save cap" }).isDisabled()).toBe(true);
  expect(await section(tab, "billing-plan").locator(".role-note").textContent()).toBe("Only owners can change the plan or manage billing. You are an admin.");
  expect(await section(tab, "billing-plan").getByRole("button", { name: "Change plan" }).isDisabled()).toBe(true);
  await screenshotThemes(tab.page, "billing-admin");
  expect(tab.problems).toEqual([]);
  await tab.close();
});
