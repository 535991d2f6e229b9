// The operator's routes (root key) over real HTTP: every instance with the replica that holds
// it, the number registry across projects, delivery health, shards, Prometheus metrics, a
// supervisor pass on demand, the six alert rules, and the deployment's audit trail. Each test
// has a gateway of its own, so the deployment-wide lists hold exactly what the test made.
import { describe, expect, test } from "bun:test";
import { isoPattern, uuidPattern } from "../helpers/client.ts";
import { alertRules } from "../../server/gateway/alerts/rules.ts";
import { startTestGateway, testRootKey, waitFor, type TestGateway } from "./harness.ts";

let nextNumber = 1_000;
/** A number no other test of this file uses. */
const freshPhone = () => `+4917300${nextNumber++}`;
const reply = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });
const unauthorized = { status: 401, body: { error: { code: "unauthorized", message: "missing or invalid API key (send it in the apikey header)" } } };
const root = (gw: TestGateway, method: string, path: string) => gw.call(method, path, { key: testRootKey });

async function withGateway(run: (gw: TestGateway) => Promise<void>): Promise<void> {
  const gw = await startTestGateway();
  try {
    await run(gw);
  } finally {
    await gw.close();
  }
}

async function sendDelivered(gw: TestGateway, key: string, to: string): Promise<string> {
  const sent = await gw.call("POST", "/v1/send", { key, body: { to, text: "Your table is ready" } });
  await waitFor(async () => (await gw.call("GET", `/v1/messages/${sent.body.id}`, { key })).body.state === "delivered");
  return sent.body.id;
}

const quietAlerts = alertRules.map((rule) => ({ rule: rule.name, severity: rule.severity, evaluated: true, firing: false, since: null, summary: rule.summary, detail: null, action: rule.action }));

describe("instances, numbers, health and shards", () => {
  test("admin instances lists every project's numbers newest first with their owner and lease", async () => {
    await withGateway(async (gw) => {
      const a = await gw.project();
      const b = await gw.project();
      const pairedId = await gw.pairedInstance(a.key, freshPhone());
      const pending = await gw.call("POST", "/v1/instances", { key: b.key, body: { phone: freshPhone() } });
      const paired = (await gw.call("GET", `/v1/instances/${pairedId}/number`, { key: a.key })).body;
      const listed = await root(gw, "GET", "/v1/admin/instances");
      expect(reply(listed)).toEqual({
        status: 200,
        body: {
          instances: [
            { ...pending.body, owner: null, leaseExpiresAt: null },
            { ...paired, updatedAt: expect.stringMatching(isoPattern), owner: gw.gateway.ctx.replica, leaseExpiresAt: expect.stringMatching(isoPattern) },
          ],
          nextCursor: null,
        },
      });
      expect(Date.parse(listed.body.instances[1].leaseExpiresAt)).toBeGreaterThan(Date.now());
      const firstPage = await root(gw, "GET", "/v1/admin/instances?limit=1");
      expect(firstPage.body).toEqual({ instances: [listed.body.instances[0]], nextCursor: pending.body.id });
      expect((await root(gw, "GET", `/v1/admin/instances?cursor=${pending.body.id}`)).body.instances.map((instance: { id: string }) => instance.id)).toEqual([pairedId]);
      expect((await root(gw, "GET", "/v1/admin/instances?limit=0")).status).toBe(400);
      expect(reply(await gw.call("GET", "/v1/admin/instances", { key: a.key }))).toEqual(unauthorized);
    });
  });

  test("numbers is the registry across projects, retired numbers included", async () => {
    await withGateway(async (gw) => {
      const support = await gw.project();
      const sales = await gw.call("POST", "/v1/projects", { key: testRootKey, body: { name: "Sales" } });
      const salesKey = (await gw.call("POST", `/v1/projects/${sales.body.project.id}/keys`, { key: testRootKey, body: {} })).body.secret;
      const pairedPhone = freshPhone();
      const pairedId = await gw.pairedInstance(support.key, pairedPhone);
      const retiredPhone = freshPhone();
      const retired = (await gw.call("POST", "/v1/instances", { key: salesKey, body: { phone: retiredPhone, label: "Old line" } })).body;
      const retiredAnswer = (await gw.call("POST", `/v1/instances/${retired.id}/retire`, { key: salesKey })).body;
      const paired = (await gw.call("GET", `/v1/instances/${pairedId}/number`, { key: support.key })).body;
      expect(reply(await root(gw, "GET", "/v1/admin/numbers"))).toEqual({
        status: 200,
        body: {
          numbers: [
            { instanceId: pairedId, phone: pairedPhone, label: pairedPhone, projectId: support.id, projectName: "Support", state: "paired", pairedAt: paired.pairedAt, retiredAt: null, createdAt: paired.createdAt },
            { instanceId: retired.id, phone: retiredPhone, label: "Old line", projectId: sales.body.project.id, projectName: "Sales", state: "retired", pairedAt: null, retiredAt: retiredAnswer.retiredAt, createdAt: retired.createdAt },
          ],
        },
      });
    });
  });

  test("delivery health: a delivering number with its counts, a pending one not delivering; retired ones left out", async () => {
    await withGateway(async (gw) => {
      const project = await gw.project();
      const phone = freshPhone();
      const instanceId = await gw.pairedInstance(project.key, phone);
      const messageId = await sendDelivered(gw, project.key, freshPhone());
      const pendingPhone = freshPhone();
      const pending = (await gw.call("POST", "/v1/instances", { key: project.key, body: { phone: pendingPhone } })).body;
      const retired = (await gw.call("POST", "/v1/instances", { key: project.key, body: { phone: freshPhone() } })).body;
      await gw.call("POST", `/v1/instances/${retired.id}/retire`, { key: project.key });
      const message = (await gw.call("GET", `/v1/messages/${messageId}`, { key: project.key })).body;
      const sends = (await gw.call("GET", `/v1/sends?messageId=${messageId}`, { key: project.key })).body.sends;
      expect(reply(await root(gw, "GET", "/v1/admin/delivery-health"))).toEqual({
        status: 200,
        body: {
          numbers: [
            { instanceId, phone, projectId: project.id, status: "delivering", connection: "open", sentLast24h: 1, deliveredLast24h: 1, failedLast24h: 0, lastSentAt: sends[0].startedAt, lastDeliveredAt: message.deliveredAt },
            { instanceId: pending.id, phone: pendingPhone, projectId: project.id, status: "not_delivering", connection: "closed", sentLast24h: 0, deliveredLast24h: 0, failedLast24h: 0, lastSentAt: null, lastDeliveredAt: null },
          ],
        },
      });
    });
  });

  test("shards: the one replica, itself, with the numbers it holds; none unowned", async () => {
    await withGateway(async (gw) => {
      const project = await gw.project();
      const phone = freshPhone();
      const instanceId = await gw.pairedInstance(project.key, phone);
      await gw.call("POST", "/v1/instances", { key: project.key, body: { phone: freshPhone() } });
      const shards = await root(gw, "GET", "/v1/admin/shards");
      expect(reply(shards)).toEqual({
        status: 200,
        body: {
          sharding: false,
          replicas: [
            {
              id: gw.gateway.ctx.replica,
              url: null,
              sharding: false,
              self: true,
              startedAt: expect.stringMatching(isoPattern),
              heartbeatAt: expect.stringMatching(isoPattern),
              instances: [{ instanceId, phone, leaseExpiresAt: expect.stringMatching(isoPattern) }],
            },
          ],
          unowned: [],
        },
      });
    });
  });
});

describe("metrics, sweep and alerts", () => {
  test("metrics: Prometheus text with the project's sent counter and the queue, dead-letter and instance gauges; 401 without the root key", async () => {
    await withGateway(async (gw) => {
      const project = await gw.project();
      await gw.pairedInstance(project.key, freshPhone());
      await sendDelivered(gw, project.key, freshPhone());
      await gw.call("POST", "/v1/send", { key: (await gw.project()).key, body: { to: freshPhone(), text: "waits: no number" } });
      const response = await fetch(`${gw.url}/v1/admin/metrics`, { headers: { apikey: testRootKey } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      const lines = (await response.text()).split("\n");
      const replica = gw.gateway.ctx.replica;
      for (const line of [
        "# TYPE gateway_messages_sent_total counter",
        `gateway_messages_sent_total{project="${project.id}"} 1`,
        "# TYPE gateway_send_queue_depth gauge",
        "# TYPE gateway_send_queue_oldest_age_seconds gauge",
        "# TYPE gateway_dead_letters gauge",
        "# TYPE gateway_instances_connected gauge",
        `gateway_instances_connected{replica="${replica}"} 1`,
        "# TYPE gateway_leases_held gauge",
        `gateway_leases_held{replica="${replica}"} 1`,
        `gateway_project_info{project="${project.id}",name="Support"} 1`,
      ]) {
        expect(lines).toContain(line);
      }
      expect(lines.filter((line) => line.startsWith("gateway_send_queue_depth{"))).toEqual([expect.stringMatching(/^gateway_send_queue_depth\{project="[0-9a-f-]{36}"\} 1$/)]);
      expect(lines.filter((line) => line.startsWith("gateway_dead_letters{"))).toEqual([]);
      expect(lines.filter((line) => line.startsWith("gateway_messages_sent_total{"))).toEqual([`gateway_messages_sent_total{project="${project.id}"} 1`]);
      expect(reply(await gw.call("GET", "/v1/admin/metrics", {}))).toEqual(unauthorized);
      expect(reply(await gw.call("GET", "/v1/admin/metrics", { key: project.key }))).toEqual(unauthorized);
    });
  });

  test("sweep answers the pass: the replica, leases, what was attempted and the alert rules", async () => {
    await withGateway(async (gw) => {
      const project = await gw.project();
      await gw.pairedInstance(project.key, freshPhone());
      const swept = await root(gw, "POST", "/v1/admin/sweep");
      expect(reply(swept)).toEqual({
        status: 200,
        body: {
          replica: gw.gateway.ctx.replica,
          storeReachable: true,
          leases: { held: 1, opened: 0, released: 0, liveReplicas: 1 },
          messagesAttempted: 0,
          deliveriesAttempted: 0,
          payloadsExpired: 0,
          alerts: quietAlerts,
        },
      });
      expect(reply(await gw.call("POST", "/v1/admin/sweep", { key: project.key }))).toEqual(unauthorized);
    });
  });

  test("alerts on a healthy gateway: ok, six rules, none firing", async () => {
    await withGateway(async (gw) => {
      const project = await gw.project();
      await gw.pairedInstance(project.key, freshPhone());
      await sendDelivered(gw, project.key, freshPhone());
      expect(quietAlerts.length).toBe(6);
      expect(reply(await root(gw, "GET", "/v1/admin/alerts"))).toEqual({ status: 200, body: { status: "ok", alerts: quietAlerts } });
      expect(reply(await gw.call("GET", "/v1/admin/alerts", { key: project.key }))).toEqual(unauthorized);
    });
  });
});

describe("admin audit", () => {
  test("the deployment's trail holds operators' and projects' actions, newest first, across projects", async () => {
    await withGateway(async (gw) => {
      const a = await gw.project();
      const b = await gw.project();
      const keyIdOf = async (projectId: string) => (await root(gw, "GET", `/v1/projects/${projectId}/keys`)).body.keys[0].id as string;
      const keyA = await keyIdOf(a.id);
      const instanceId = await gw.pairedInstance(a.key, freshPhone());
      await gw.call("POST", `/v1/instances/${instanceId}/retire`, { key: a.key });
      await root(gw, "POST", `/v1/projects/${b.id}/disable`);
      const trail = await root(gw, "GET", "/v1/admin/audit");
      expect(trail.status).toBe(200);
      expect(trail.body.entries.map(({ projectId, actor, action, target }: Record<string, string>) => [projectId, actor, action, target])).toEqual([
        [b.id, "root", "project.disabled", b.id],
        [a.id, `key:${keyA}`, "instance.retired", instanceId],
        [a.id, `key:${keyA}`, "instance.connect", instanceId],
        [a.id, `key:${keyA}`, "instance.registered", instanceId],
        [b.id, "root", "key.minted", expect.stringMatching(uuidPattern)],
        [b.id, "root", "project.created", b.id],
        [a.id, "root", "key.minted", keyA],
        [a.id, "root", "project.created", a.id],
      ]);
      expect(trail.body.entries[3]).toEqual({ id: expect.stringMatching(uuidPattern), projectId: a.id, actor: `key:${keyA}`, action: "instance.registered", target: instanceId, detail: { phone: expect.any(String) }, at: expect.stringMatching(isoPattern) });
      expect(trail.body.nextCursor).toBeNull();
      const page = await root(gw, "GET", "/v1/admin/audit?limit=3");
      expect(page.body).toEqual({ entries: trail.body.entries.slice(0, 3), nextCursor: trail.body.entries[2].id });
      const own = await gw.call("GET", "/v1/audit", { key: a.key });
      expect(own.body).toEqual({ entries: trail.body.entries.filter((entry: { projectId: string }) => entry.projectId === a.id), nextCursor: null });
      expect(reply(await gw.call("GET", "/v1/admin/audit", { key: a.key }))).toEqual(unauthorized);
      for (const query of ["state=lost", "limit=0", "limit=201"]) {
        const refused = await root(gw, "GET", `/v1/admin/deliveries?${query}`);
        expect([refused.status, refused.body.error.code]).toEqual([400, "validation"]);
      }
    });
  });
});
