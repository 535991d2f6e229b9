// Billing with no payment provider configured (the self-hosted default), over real HTTP: the
// overview shows the self-hosted plan without limits (usage is still metered), the cap is
// refused for want of a price, checkout, portal and the provider webhook answer 503
// billing_not_configured naming the settings, and every route keeps tenancy and roles.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { call, isoPattern, type Reply } from "../../helpers/client.ts";
import { nativeEvents, sendAccepted } from "../../ingest/helpers.ts";
import { billingNotConfiguredMessage } from "../../../server/control/billing/billing-writes.ts";

let service: TestService;
let owner: SignedUpUser;
let admin: SignedUpUser;
let viewer: SignedUpUser;
let stranger: SignedUpUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Olivia Owner");
  admin = await addMember(service, owner, "admin");
  viewer = await addMember(service, owner, "viewer");
  stranger = await signUp(service, "Stranger");
  const { public_keys } = await createProject(owner, "Web");
  await sendAccepted(service.url, public_keys[0].key, nativeEvents(3));
});
afterAll(async () => {
  await service.close();
});

const expectError = (reply: Reply, status: number, code: string, message: unknown = expect.any(String)) =>
  expect({ status: reply.status, body: reply.body }).toEqual({ status, body: { error: { code, message } } });

function calendarMonth() {
  const now = new Date();
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    source: "calendar_month",
  };
}

const selfHostedOverview = (orgId: string, events: number) => ({
  org_id: orgId,
  currency: "usd",
  plan: { name: "self_hosted", price_minor: 0, events: null, replay_recordings: null },
  subscription: null,
  period: calendarMonth(),
  usage: { events, events_received: events, replay_recordings: 0, read_at: expect.stringMatching(isoPattern), unreachable_regions: [] },
  invoice: { current_minor: 0, projected_minor: 0 },
  spend_cap_minor: null,
  spend_cap_min_minor: null,
  spend_cap_max_minor: null,
  ingest: { stage: "full", keep_ratio: 1 },
  payment_provider: { configured: false, name: null, has_customer: false },
});

describe("GET /app/orgs/{org_id}/billing", () => {
  test("the self-hosted plan without limits, with the events stored this month", async () => {
    const reply = await owner.client.get(`/app/orgs/${owner.orgId}/billing`);
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 200, body: selfHostedOverview(owner.orgId, 3) });
  });

  test("any member reads it (a viewer too)", async () => {
    const reply = await viewer.client.get(`/app/orgs/${owner.orgId}/billing`);
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 200, body: selfHostedOverview(owner.orgId, 3) });
  });

  test("another organisation's and a malformed id are 404; no session is 401", async () => {
    expectError(await stranger.client.get(`/app/orgs/${owner.orgId}/billing`), 404, "not_found", "organisation not found");
    expectError(await owner.client.get("/app/orgs/not-a-uuid/billing"), 404, "not_found", "organisation not found");
    expectError(await call(service.url, "GET", `/app/orgs/${owner.orgId}/billing`), 401, "unauthorized");
  });
});

describe("PATCH /app/orgs/{org_id}/billing/cap", () => {
  test("the self-hosted plan takes no cap: 400 saying why", async () => {
    expectError(await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 5000 }), 400, "validation",
      "the self-hosted plan has no price, so it takes no spend cap (a payment provider must be configured: docs/billing.md)");
  });

  test("admins and viewers lack billing.write (403); strangers 404; bodies are validated", async () => {
    expectError(await admin.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 5000 }), 403, "missing_scope");
    expectError(await viewer.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 5000 }), 403, "missing_scope");
    expectError(await stranger.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 5000 }), 404, "not_found");
    for (const body of [{}, { spend_cap_minor: "5000" }, { spend_cap_minor: 50.5 }, { spend_cap_minor: 5000, extra: 1 }]) {
      expectError(await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, body), 400, "validation");
    }
  });
});

describe("checkout, portal and the provider webhook without a provider", () => {
  test("checkout and portal answer 503 billing_not_configured naming the settings", async () => {
    const checkout = await owner.client.post(`/app/orgs/${owner.orgId}/billing/checkout`, { plan: "growth" });
    expectError(checkout, 503, "billing_not_configured", billingNotConfiguredMessage);
    expect(checkout.body.error.message).toContain("STRIPE_SECRET_KEY");
    expect(checkout.body.error.message).toContain("STRIPE_PRICE_GROWTH");
    expectError(await owner.client.post(`/app/orgs/${owner.orgId}/billing/portal`), 503, "billing_not_configured", billingNotConfiguredMessage);
  });

  test("an unknown plan is 400 before anything else; admins 403; strangers 404", async () => {
    expectError(await owner.client.post(`/app/orgs/${owner.orgId}/billing/checkout`, { plan: "enterprise" }), 400, "validation", "plan must be one of starter, growth, scale");
    expectError(await owner.client.post(`/app/orgs/${owner.orgId}/billing/checkout`, {}), 400, "validation");
    expectError(await admin.client.post(`/app/orgs/${owner.orgId}/billing/checkout`, { plan: "growth" }), 403, "missing_scope");
    expectError(await admin.client.post(`/app/orgs/${owner.orgId}/billing/portal`), 403, "missing_scope");
    expectError(await stranger.client.post(`/app/orgs/${owner.orgId}/billing/checkout`, { plan: "growth" }), 404, "not_found");
    expectError(await stranger.client.post(`/app/orgs/${owner.orgId}/billing/portal`), 404, "not_found");
  });

  test("the provider webhook answers 503 billing_not_configured", async () => {
    const reply = await call(service.url, "POST", "/billing/webhooks/stripe", { rawBody: "{}", headers: { "content-type": "application/json" } });
    expectError(reply, 503, "billing_not_configured", billingNotConfiguredMessage);
  });
});
