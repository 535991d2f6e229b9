// Revenue integrations reaching a region node in another process-like service through the
// internal API (a gate in between takes the region down deterministically): region_synced is
// false while the region cannot be reached and true once the periodic sync has run; a deletion
// missed by the region is caught up then; a rotation takes effect at the node at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { Gate } from "../helpers/region-gate.ts";
import { createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { call } from "../helpers/client.ts";
import { syncPendingIntegrations } from "../../server/control/integrations/integration-sync.ts";

const secret = "internal-secret-for-tests";
const authorization = "Bearer remote-rc-value";

let gate: Gate;
let control: TestService;
let regionNode: TestService;
let owner: SignedUpUser;
let pat: string;
let project: any;

beforeAll(async () => {
  gate = new Gate();
  control = await startTestService({ REGIONS: "eu,us", REMOTE_REGIONS: `us=${gate.url}/region/us`, REGION_SECRET: secret });
  regionNode = await startTestService({ REGIONS: "us", REGION_SECRET: secret, CONTROL_PLANE_URL: control.url });
  gate.target = regionNode.url;
  owner = await signUp(control, "Owner");
  pat = (await createToken(owner, ["projects:write"])).secret;
  const created = await v1(control, pat, "POST", `/v1/orgs/${owner.orgId}/projects`, { name: "Remote", region: "us" });
  expect(created.status).toBe(201);
  project = created.body.project;
});
afterAll(async () => {
  gate.open();
  await control.close();
  await regionNode.close();
  gate.server.stop(true);
});

const base = () => `/v1/projects/${project.id}/integrations`;
/** A notification delivered to the node's ingest surface, at the webhook URL's path. */
async function deliver(webhookUrl: string): Promise<number> {
  const body = JSON.stringify({ api_version: "1.0", event: { id: crypto.randomUUID(), type: "TEST", event_timestamp_ms: Date.now() } });
  const response = await fetch(regionNode.url + new URL(webhookUrl).pathname, { method: "POST", headers: { authorization }, body });
  await response.body?.cancel();
  return response.status;
}

describe("integrations in a remote region", () => {
  test("pushed through the internal API; rotate-token makes the old URL 404 at the node at once", async () => {
    const created = await v1(control, pat, "POST", base(), { provider: "revenuecat", secret: authorization });
    expect([created.status, created.body.region_synced]).toEqual([201, true]);
    expect(created.body.webhook_url.startsWith(`${control.url}/ingest/us/wh/revenuecat/`)).toBe(true);
    expect(await deliver(created.body.webhook_url)).toBe(200);
    const rotated = await v1(control, pat, "POST", `${base()}/${created.body.id}/rotate-token`);
    expect([rotated.status, rotated.body.region_synced]).toEqual([200, true]);
    expect(await deliver(created.body.webhook_url)).toBe(404);
    expect(await deliver(rotated.body.webhook_url)).toBe(200);
  });

  test("a region that is down: region_synced false, then true after the retry; a missed deletion is caught up", async () => {
    const kept = await v1(control, pat, "POST", base(), { provider: "revenuecat", secret: authorization, name: "Kept" });
    const doomed = await v1(control, pat, "POST", base(), { provider: "revenuecat", secret: authorization, name: "Doomed" });
    gate.down = true;
    let renamed;
    try {
      renamed = await v1(control, pat, "PATCH", `${base()}/${kept.body.id}`, { name: "Renamed", status: "disabled" });
      expect([renamed.status, renamed.body.region_synced, renamed.body.status]).toEqual([200, false, "disabled"]);
      expect((await v1(control, pat, "GET", `${base()}/${kept.body.id}`)).body.region_synced).toBe(false);
      const created = await v1(control, pat, "POST", base(), { provider: "revenuecat", secret: authorization, name: "Late" });
      expect([created.status, created.body.region_synced]).toEqual([201, false]);
      expect((await v1(control, pat, "DELETE", `${base()}/${doomed.body.id}`)).status).toBe(204);
      // The node still has the old state: the change has not reached it.
      expect(await deliver(kept.body.webhook_url)).toBe(200);
      expect(await deliver(doomed.body.webhook_url)).toBe(200);
      expect(await deliver(created.body.webhook_url)).toBe(404);
      await syncPendingIntegrations(control.ctx);
      expect((await v1(control, pat, "GET", `${base()}/${kept.body.id}`)).body.region_synced).toBe(false);
    } finally {
      gate.down = false;
    }
    await syncPendingIntegrations(control.ctx);
    const list = (await v1(control, pat, "GET", base())).body.integrations;
    expect(list.every((item: any) => item.region_synced)).toBe(true);
    expect(list.map((item: any) => item.name)).not.toContain("Doomed");
    expect(await deliver(kept.body.webhook_url)).toBe(404);
    expect(await deliver(doomed.body.webhook_url)).toBe(404);
    const late = list.find((item: any) => item.name === "Late");
    expect(await deliver(late.webhook_url)).toBe(200);
  });

  test("the internal routes refuse calls without the region secret", async () => {
    const put = await call(regionNode.url, "PUT", "/region/us/internal/integrations", { body: { integrations: [], replace: true } });
    expect([put.status, put.body]).toEqual([401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }]);
    const removal = await call(regionNode.url, "DELETE", `/region/us/internal/integrations/${crypto.randomUUID()}`, { headers: { "x-region-secret": "guess" } });
    expect(removal.status).toBe(401);
    const malformed = await call(regionNode.url, "PUT", "/region/us/internal/integrations", { body: { integrations: [{ id: "x" }], replace: false }, headers: { "x-region-secret": secret } });
    expect(malformed.status).toBe(400);
  });
});
