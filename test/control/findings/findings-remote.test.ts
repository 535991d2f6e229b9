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
import { ApiError } from "../../../server/http/errors.ts";
import { syncPendingFindings } from "../../../server/control/findings/findings-sync.ts";
import type { FindingsDispatcher, TestDeliveryResult } from "../../../server/findings/findings-types.ts";
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

  test("the test send: 503 while the node runs no findings delivery, then the dispatcher's attempt or refusal", async () => {
    const project = await newProject("Test send");
    const destination = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "Remote", secret: slackUrl })).body;
    const path = `${destinationsPath(project.id)}/${destination.id}/test`;
    expect(await owner.client.post(path)).toMatchObject({
      status: 503, body: { error: { code: "unavailable", message: "findings delivery is not running in region us" } },
    });

    // A stand-in dispatcher on the node: what crosses the internal API is what this file tests.
    const node = regionNode.nodes.get("us")!;
    const attempt: TestDeliveryResult = { destinationId: destination.id, attempt: 1, at: "2026-11-28T07:00:00.000Z", status: 200, ok: true, error: null, durationMs: 12.5 };
    const asked: [string, string][] = [];
    let refuse = false;
    const dispatcher: FindingsDispatcher = {
      enqueue: () => undefined,
      deliveriesOf: () => [],
      sendTest: async (projectId, destinationId) => {
        asked.push([projectId, destinationId]);
        if (refuse) throw new ApiError(404, "not_found", "findings destination not found");
        return attempt;
      },
    };
    node.findings = dispatcher;
    try {
      const sent = await owner.client.post(path);
      expect([sent.status, sent.body]).toEqual([200, {
        attempt: { destination_id: destination.id, attempt: 1, at: "2026-11-28T07:00:00.000Z", status: 200, ok: true, error: null, duration_ms: 12.5 },
      }]);
      expect(asked).toEqual([[project.id, destination.id]]);
      refuse = true;
      expect(await owner.client.post(path)).toMatchObject({ status: 404, body: { error: { code: "not_found", message: "findings destination not found" } } });
      gate.down = true;
      try {
        expect(await owner.client.post(path)).toMatchObject({ status: 503, body: { error: { code: "unavailable", message: "region us cannot be reached" } } });
      } finally {
        gate.down = false;
      }
      await syncPendingFindings(control.ctx);
    } finally {
      node.findings = null;
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
