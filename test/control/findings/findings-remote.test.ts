// Findings configuration reaching a region node in another process-like service through the
// internal API (a gate in between takes the region down deterministically): pushed after each
// change, caught up by the retry after the region was down, removed with its project; the test
// send crosses the internal API both ways (the attempt, or the region's refusal); the internal
// routes need the region secret.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { Gate } from "../../helpers/region-gate.ts";
import { signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { call } from "../../helpers/client.ts";
import { syncPendingFindings } from "../../../server/control/findings/findings-sync.ts";
import { destinationsPath, regionConfig, regionDestination, regionProject, regionRule, rulesPath, slackUrl } from "./fixture.ts";

const secret = "internal-secret-for-tests";

let gate: Gate;
let control: TestService;
let regionNode: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  gate = new Gate();
  control = await startTestService({ REGIONS: "eu,us", REMOTE_REGIONS: `us=${gate.url}/region/us`, REGION_SECRET: secret });
  regionNode = await startTestService({ REGIONS: "us", REGION_SECRET: secret, CONTROL_PLANE_URL: control.url });
  gate.target = regionNode.url;
  owner = await signUp(control, "Owner");
});
afterAll(async () => {
  gate.open();
  await control.close();
  await regionNode.close();
  gate.server.stop(true);
});

const newProject = async (name: string) => {
  const reply = await owner.client.post(`/app/orgs/${owner.orgId}/projects`, { name, region: "us" });
  expect(reply.status).toBe(201);
  return reply.body.project;
};
const nodeConfig = (projectId: string) => regionConfig(regionNode, projectId, "us");

describe("findings in a remote region", () => {
  test("pushed after each change; a region that was down catches up on the retry; a project's deletion removes it", async () => {
    const project = await newProject("Remote");
    const destination = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "Remote", secret: slackUrl })).body;
    const rule = (await owner.client.post(rulesPath(project.id), { name: "Signups", target: { kind: "event_volume", event: "signup" }, destination_ids: [destination.id] })).body;
    expect(nodeConfig(project.id)).toEqual({
      ...regionProject(control, project), destinations: [regionDestination(destination, slackUrl, null)], rules: [regionRule(rule)], metrics: [],
    });

    gate.down = true;
    let renamed;
    try {
      renamed = await owner.client.patch(`${rulesPath(project.id)}/${rule.id}`, { name: "Renamed" });
      expect([renamed.status, renamed.body.name]).toEqual([200, "Renamed"]);
      expect(nodeConfig(project.id)!.rules[0]!.name).toBe("Signups");
      await syncPendingFindings(control.ctx);
      expect(nodeConfig(project.id)!.rules[0]!.name).toBe("Signups");
    } finally {
      gate.down = false;
    }
    await syncPendingFindings(control.ctx);
    expect(nodeConfig(project.id)!.rules).toEqual([regionRule(renamed.body)]);

    expect((await owner.client.delete(`/app/projects/${project.id}`)).status).toBe(204);
    expect(nodeConfig(project.id)).toBeNull();
  });

  test("the test send crosses the internal API: the region's attempt, 503 while it cannot be reached, the region's refusal of a destination it does not hold", async () => {
    const received: unknown[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        received.push(await request.json());
        return new Response("ok");
      },
    });
    try {
      const project = await newProject("Test send");
      const receiverUrl = `http://127.0.0.1:${receiver.port}/slack-hook`;
      const destination = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "Remote", secret: receiverUrl })).body;
      const path = `${destinationsPath(project.id)}/${destination.id}/test`;
      const sent = await owner.client.post(path);
      expect([sent.status, sent.body]).toEqual([200, {
        attempt: { destination_id: destination.id, attempt: 1, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), status: 200, ok: true, error: null, duration_ms: expect.any(Number) },
      }]);
      expect(received).toEqual([expect.objectContaining({ text: expect.any(String), blocks: expect.any(Array) })]);

      // While the region is down the test cannot be sent; a destination made meanwhile reaches
      // the region before its own test is sent.
      gate.down = true;
      let missed;
      try {
        missed = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "Missed", secret: receiverUrl })).body;
        expect(await owner.client.post(path)).toMatchObject({ status: 503, body: { error: { code: "unavailable", message: "region us cannot be reached" } } });
      } finally {
        gate.down = false;
      }
      expect((await owner.client.post(`${destinationsPath(project.id)}/${missed.id}/test`)).body.attempt.ok).toBe(true);
      expect(received).toHaveLength(2);

      // The region's refusal crosses back: a destination it does not hold.
      const unknown = await call(regionNode.url, "POST", `/region/us/internal/findings/${project.id}/destinations/${crypto.randomUUID()}/test`, { headers: { "X-Region-Secret": secret } });
      expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    } finally {
      receiver.stop(true);
    }
  });

  test("the internal routes need the region secret and validate what they take", async () => {
    const wrong = { "X-Region-Secret": "wrong" };
    const right = { "X-Region-Secret": secret };
    const projectId = crypto.randomUUID();
    const unauthorized = { error: { code: "unauthorized", message: "internal API needs the region secret" } };
    expect(await call(regionNode.url, "PUT", "/region/us/internal/findings", { body: { projects: [], replace: false }, headers: wrong })).toMatchObject({ status: 401, body: unauthorized });
    expect(await call(regionNode.url, "DELETE", `/region/us/internal/findings/${projectId}`, { headers: wrong })).toMatchObject({ status: 401, body: unauthorized });
    expect(await call(regionNode.url, "POST", `/region/us/internal/findings/${projectId}/destinations/${projectId}/test`, { headers: wrong })).toMatchObject({ status: 401, body: unauthorized });
    const malformed = await call(regionNode.url, "PUT", "/region/us/internal/findings", { body: { projects: [{ projectId }], replace: false }, headers: right });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, "bad_request"]);
    expect(nodeConfig(projectId)).toBeNull();
  });
});
