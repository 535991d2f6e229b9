// The tracking plan with a region served by another process (RemoteRegionLink over the internal
// API, through a gate that can take the region down): a sync reads the node's data, plan
// changes reach the node's ingest checks, a region that cannot answer makes a sync 503, and a
// plan the node missed is pushed again by the periodic sync. The internal routes need the
// region secret and a valid body.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { Gate } from "../helpers/region-gate.ts";
import { createToken, regionTokenFor, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, isoPattern } from "../helpers/client.ts";
import { nativeBody, nativeEvent, ok, postIngest } from "../ingest/helpers.ts";
import { pushPendingCatalogs } from "../../server/control/catalog/catalog-publication.ts";
import { regionSecretHeader } from "../../server/region/region-link.ts";

const secret = "internal-secret-for-catalog-tests";

let gate: Gate;
let control: TestService;
let regionNode: TestService;
let owner: SignedUpUser;
let pat: string;
let projectId: string;
let path: string;
let key: string;

beforeAll(async () => {
  gate = new Gate();
  control = await startTestService({ REGIONS: "eu,us", REMOTE_REGIONS: `us=${gate.url}/region/us`, REGION_SECRET: secret });
  regionNode = await startTestService({ REGIONS: "us", REGION_SECRET: secret, CONTROL_PLANE_URL: control.url });
  gate.target = regionNode.url;
  owner = await signUp(control, "Remote catalog owner");
  pat = (await createToken(owner, ["query:read", "catalog:read"])).secret;
  const created = await owner.client.post(`/app/orgs/${owner.orgId}/projects`, { name: "Remote catalog", region: "us" });
  expect(created.status).toBe(201);
  projectId = created.body.project.id;
  path = `/app/projects/${projectId}/catalog`;
  key = created.body.public_keys.find((entry: { environment: string }) => entry.environment === "production").key;
});
afterAll(async () => {
  gate.down = false;
  await control.close();
  await regionNode.close();
  gate.server.stop(true);
});

const sendToNode = async (events: ReturnType<typeof nativeEvent>[]) => {
  const reply = await postIngest(regionNode.url, nativeBody(key, events), { region: "us" });
  expect([reply.status, reply.body]).toEqual([200, ok(events.length)]);
};
const nodeViolations = async () => {
  const token = await regionTokenFor(control, pat, projectId, ["query:read"]);
  const reply = await call(regionNode.url, "GET", "/region/us/ingestion/warnings?reason=plan_violation", { headers: bearer(token) });
  expect(reply.status).toBe(200);
  return reply.body.results.map((entry: { message: string; count: number }) => [entry.message, entry.count]);
};

describe("a remote region", () => {
  test("a sync reads the node's data through the internal API", async () => {
    expect((await owner.client.post(`${path}/events`, { name: "checkout" })).status).toBe(201);
    await sendToNode([nativeEvent({ event: "checkout", properties: { total: 3 } }), nativeEvent({ event: "surprise", properties: { ok: true } })]);
    const reply = await owner.client.post(`${path}/sync`);
    expect([reply.status, reply.body]).toEqual([200, {
      discovered: 2, environment: "production", implemented: ["checkout"], unplanned: ["surprise"], updated: 2, synced_at: expect.stringMatching(isoPattern),
    }]);
    const discovery = await call(regionNode.url, "GET", "/region/us/catalog/discovery", { headers: bearer(await regionTokenFor(control, pat, projectId, ["catalog:read"])) });
    expect([discovery.status, discovery.body.events.map((event: { name: string }) => event.name)]).toEqual([200, ["checkout", "surprise"]]);
  });

  test("plan changes reach the node's ingest: with warnings on, an event outside the plan is counted there", async () => {
    const on = await owner.client.patch(`${path}/settings`, { warn_on_violations: true });
    expect([on.status, on.body.region_synced]).toEqual([200, true]);
    await sendToNode([nativeEvent({ event: "checkout", properties: {} }), nativeEvent({ event: "stranger", properties: {} })]);
    expect(await nodeViolations()).toEqual([['event "stranger" is not in the tracking plan', 1]]);
  });

  test("while the node is down a sync is 503 and a plan change is kept unsynced; the periodic sync pushes it once the node is back", async () => {
    gate.down = true;
    try {
      const refused = await owner.client.post(`${path}/sync`);
      expect([refused.status, refused.body]).toEqual([503, {
        error: { code: "unavailable", message: "region us could not say what the project sent: region us answered 502 to a catalog discovery: bad gateway" },
      }]);
      const planned = await owner.client.post(`${path}/events`, { name: "stranger" });
      expect(planned.status).toBe(201);
      expect((await owner.client.get(`${path}/settings`)).body).toMatchObject({ catalog_version: 4, region_synced: false });
    } finally {
      gate.down = false;
    }
    await sendToNode([nativeEvent({ event: "stranger", properties: {} })]);
    expect(await nodeViolations()).toEqual([['event "stranger" is not in the tracking plan', 2]]);
    await pushPendingCatalogs(control.ctx);
    expect((await owner.client.get(`${path}/settings`)).body).toMatchObject({ catalog_version: 4, region_synced: true });
    await sendToNode([nativeEvent({ event: "stranger", properties: {} })]);
    expect(await nodeViolations()).toEqual([['event "stranger" is not in the tracking plan', 2]]);
  });
});

describe("the internal catalog routes", () => {
  const internal = (route: string, body: unknown, secretValue: string | null = secret) =>
    call(regionNode.url, "POST", `/region/us/internal/catalog/${route}`, { body, headers: secretValue === null ? {} : { [regionSecretHeader]: secretValue } });

  test("need the region secret", async () => {
    for (const secretValue of [null, "wrong"]) {
      for (const route of ["discovery", "plan"]) {
        const reply = await internal(route, {}, secretValue);
        expect([route, reply.status, reply.body]).toEqual([route, 401, { error: { code: "unauthorized", message: "internal API needs the region secret" } }]);
      }
    }
  });

  test("refuse a body of the wrong shape with 400 bad_request", async () => {
    const discovery = await internal("discovery", { project_id: projectId, data_id: 1, environment: "production", days: 366 });
    expect([discovery.status, discovery.body]).toEqual([400, { error: { code: "bad_request", message: "body /days: Expected integer to be less or equal to 365" } }]);
    const plan = await internal("plan", { projectId, catalogVersion: 1, warnOnViolations: true, events: [{ name: "x", status: "unplanned", properties: [] }], piiProperties: [] });
    expect([plan.status, plan.body.error.code]).toEqual([400, "bad_request"]);
  });

  test("a plan older than the one the node holds is ignored", async () => {
    const stale = await internal("plan", { projectId, catalogVersion: 1, warnOnViolations: false, events: [], piiProperties: [] });
    expect(stale.status).toBe(204);
    await sendToNode([nativeEvent({ event: "another_stranger", properties: {} })]);
    expect(await nodeViolations()).toEqual([
      ['event "stranger" is not in the tracking plan', 2],
      ['event "another_stranger" is not in the tracking plan', 1],
    ]);
  });
});
