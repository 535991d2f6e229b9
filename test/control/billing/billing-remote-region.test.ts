// Billing across the internal API: a region in another process counts what it stored and
// answers POST /internal/usage (region secret; at most usageProjectsPerRequestMax projects), and
// the spend cap's keep ratio reaches its capture through PUT /internal/ingest-policy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { call } from "../../helpers/client.ts";
import { nativeBody, nativeEvents, ok, postIngest } from "../../ingest/helpers.ts";
import { usageProjectsPerRequestMax } from "../../../server/region/usage-routes.ts";
import type { FakeStripeApi } from "../../helpers/fake-stripe-api.ts";
import { startStripeForService, stripeServiceEnv, subscribe } from "../../helpers/stripe-provider-fixture.ts";

const secret = "internal-secret-for-billing-tests";
const hourMs = 3_600_000;

let stripe: FakeStripeApi;
let control: TestService;
let regionNode: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  regionNode = await startTestService({ REGIONS: "us", REGION_SECRET: secret });
  stripe = startStripeForService();
  control = await startTestService({ REGIONS: "eu,us", REMOTE_REGIONS: `us=${regionNode.url}/region/us`, REGION_SECRET: secret, ...stripeServiceEnv(stripe) });
  owner = await signUp(control, "Remote owner");
});
afterAll(async () => {
  await control.close();
  await regionNode.close();
  await stripe.stop();
});

const usage = (body: unknown, headers: Record<string, string> = { "x-region-secret": secret }) =>
  call(regionNode.url, "POST", "/region/us/internal/usage", { body, headers });

describe("POST /internal/usage", () => {
  test("needs the region secret (401) and a valid body (400); takes up to usageProjectsPerRequestMax projects", async () => {
    const body = { project_ids: ["p1"], from_ms: 0, to_ms: Date.now() };
    expect((await usage(body, {})).status).toBe(401);
    expect((await usage(body, { "x-region-secret": "guess" })).status).toBe(401);
    for (const bad of [{ ...body, from_ms: -1 }, { ...body, project_ids: "p1" }, { project_ids: ["p1"] }, { ...body, extra: true }]) {
      expect((await usage(bad)).status).toBe(400);
    }
    const ids = Array.from({ length: usageProjectsPerRequestMax + 1 }, (_, index) => `p${index}`);
    expect((await usage({ ...body, project_ids: ids })).status).toBe(400);
    const most = await usage({ ...body, project_ids: ids.slice(0, usageProjectsPerRequestMax) });
    expect([most.status, most.body.usage.length, most.body.usage[0]]).toEqual([200, usageProjectsPerRequestMax, { project_id: "p0", events_received: 0, events_stored: 0, replay_recordings: 0 }]);
  });
});

describe("billing with a remote region", () => {
  test("usage is read from the remote region's counters, and the cap's keep ratio reaches its capture", async () => {
    const { project, public_keys } = await createProject(owner, "Remote", "us");
    // A starter subscription paid for an hour ago (Stripe's times are whole seconds).
    const paidAtSeconds = Math.floor((Date.now() - hourMs) / 1000);
    const periodStartMs = paidAtSeconds * 1000;
    await subscribe(control.url, stripe, owner, owner.orgId, "starter", paidAtSeconds);
    expect((await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body.period.start).toBe(new Date(periodStartMs).toISOString());
    for (let sent = 0; sent < 2000; sent += 1000) {
      const reply = await postIngest(regionNode.url, nativeBody(public_keys[0].key, nativeEvents(1000)), { region: "us" });
      expect([reply.status, reply.body]).toEqual([200, ok(1000)]);
    }
    expect((await usage({ project_ids: [project.id], from_ms: periodStartMs, to_ms: Date.now() + hourMs })).body).toEqual({
      usage: [{ project_id: project.id, events_received: 2000, events_stored: 2000, replay_recordings: 0 }],
    });
    const capped = await owner.client.patch(`/app/orgs/${owner.orgId}/billing/cap`, { spend_cap_minor: 2900 });
    expect(capped.status).toBe(200);
    const overview = (await owner.client.get(`/app/orgs/${owner.orgId}/billing`)).body;
    expect({ ...overview.usage, read_at: null }).toEqual({ events: 2000, events_received: 2000, replay_recordings: 0, read_at: null, unreachable_regions: [] });
    expect(overview.ingest.stage).toBe("sampling");
    expect(regionNode.nodes.get("us")!.keepRatio(project.id)).toBe(overview.ingest.keep_ratio);
    const limited = await postIngest(regionNode.url, nativeBody(public_keys[0].key, nativeEvents(1)), { region: "us" });
    expect(limited.body.quota_limited).toEqual(["events"]);
  });
});

describe("a region that does not answer", () => {
  test("the overview still answers, naming the region whose usage is missing", async () => {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    const lonely = await startTestService({ REGIONS: "eu,us", REMOTE_REGIONS: "us=http://127.0.0.1:9/region/us", REGION_SECRET: secret });
    try {
      const user = await signUp(lonely, "Lonely owner");
      const created = await user.client.post(`/app/orgs/${user.orgId}/projects`, { name: "Unreachable", region: "us" });
      expect(created.status).toBe(201);
      const overview = await user.client.get(`/app/orgs/${user.orgId}/billing`);
      expect([overview.status, { ...overview.body.usage, read_at: null }, overview.body.ingest]).toEqual([
        200,
        { events: 0, events_received: 0, replay_recordings: 0, read_at: null, unreachable_regions: ["us"] },
        { stage: "full", keep_ratio: 1 },
      ]);
    } finally {
      await lonely.close();
    }
  });
});
