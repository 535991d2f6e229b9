// The six alert rules, each made to fire and clear on a real gateway (PostgreSQL store, the
// simulated network, a failing webhook receiver, a second replica without sharding, the
// database stopped and started), with a local receiver standing in for a Slack-style incoming
// webhook: it gets exactly one post per transition, each a plain `{"text": …}` body.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startGateway } from "../../server/gateway/gateway.ts";
import { parseGatewaySettings } from "../../server/gateway/settings.ts";
import { deliveryRetryDelaysMs } from "../../server/gateway/deliveries/schedule.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { startTestGateway, testRootKey, waitFor, type TestGateway } from "./harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

const number = "+4915300000001";
let postgres: TestPostgres;
let gateway: TestGateway;
let hooks: WebhookReceiver;
const posts: { rule: string; transition: "started" | "cleared"; body: unknown }[] = [];
let alertServer: ReturnType<typeof Bun.serve>;

const env = () => ({
  GATEWAY_DATABASE_URL: postgres.url,
  ALERT_WEBHOOK_URL: `http://127.0.0.1:${alertServer.port}/services/T000/B000/XXXX`,
  // Long leases and a slow timer: the test moves the clock and runs each pass itself.
  GATEWAY_LEASE_TTL_MS: "600000",
  GATEWAY_SUPERVISOR_INTERVAL_MS: "200000",
});

beforeAll(async () => {
  postgres = await startTestPostgres();
  alertServer = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as { text: string };
      const rule = body.text.match(/rule: (\w+)/)![1]!;
      posts.push({ rule, transition: body.text.includes("[RESOLVED]") ? "cleared" : "started", body });
      return new Response("ok");
    },
  });
  gateway = await startTestGateway(env());
}, 60_000);

afterAll(async () => {
  hooks?.close();
  await gateway?.close();
  alertServer?.stop(true);
  await postgres?.close();
});

const firing = (alerts: { rule: string; firing: boolean }[]) => alerts.filter((alert) => alert.firing).map((alert) => alert.rule);
const alertsNow = () => gateway.call("GET", "/v1/admin/alerts", { key: testRootKey });
const postsSince = (count: number) => posts.slice(count).map(({ rule, transition }) => ({ rule, transition }));

test("each of the six rules fires and clears, and each transition is posted once", async () => {
  const healthy = await alertsNow();
  expect(healthy.status).toBe(200);
  expect(healthy.body.status).toBe("ok");
  expect(healthy.body.alerts.map((alert: { rule: string; severity: string; firing: boolean }) => [alert.rule, alert.severity, alert.firing])).toEqual([
    ["store_unreachable", "critical", false],
    ["replica_ownership", "critical", false],
    ["instance_disconnected", "warning", false],
    ["dead_letters", "warning", false],
    ["delivery_failure_rate", "warning", false],
    ["send_queue_age", "warning", false],
  ]);
  const project = await gateway.project();

  // send_queue_age: a message with no number to send it waits past 5 minutes.
  const queued = await gateway.call("POST", "/v1/send", { key: project.key, body: { to: "+4917300000001", text: "waiting" } });
  gateway.clock.advance(5 * 60_000 + 1_000);
  let sweep = await gateway.sweep();
  expect(firing(sweep.alerts)).toEqual(["send_queue_age"]);
  const warning = await alertsNow();
  expect([warning.status, warning.body.status]).toEqual([200, "warning"]);
  expect(warning.body.alerts.find((alert: { rule: string }) => alert.rule === "send_queue_age")).toEqual({
    rule: "send_queue_age",
    severity: "warning",
    evaluated: true,
    firing: true,
    since: expect.any(String),
    summary: "A message has waited more than 5 minutes to be sent",
    detail: expect.stringMatching(/^the oldest queued message has waited \d+ s$/),
    action: "Check the project's pool (GET /v1/pool): its numbers may be disconnected, rate-limited or warming up; add numbers or wait.",
  });
  await gateway.call("POST", `/v1/messages/${queued.body.id}/cancel`, { key: project.key });
  sweep = await gateway.sweep();
  expect(firing(sweep.alerts)).toEqual([]);
  expect(postsSince(0)).toEqual([
    { rule: "send_queue_age", transition: "started" },
    { rule: "send_queue_age", transition: "cleared" },
  ]);
  expect(posts[0]!.body).toEqual({ text: expect.stringContaining(":rotating_light: [WARNING] A message has waited more than 5 minutes to be sent\nrule: send_queue_age") });
  expect(Object.keys(posts[0]!.body as object)).toEqual(["text"]);

  // delivery_failure_rate, then dead_letters: a receiver that fails every delivery.
  hooks = startWebhookReceiver(project.webhookSecret);
  hooks.mode = "fail";
  await gateway.call("PUT", `/v1/projects/${project.id}/webhook`, { key: testRootKey, body: { url: hooks.url } });
  await gateway.pairedInstance(project.key, number);
  for (let contact = 0; contact < 5; contact += 1) await gateway.phones.sendFromPhone(`+491740000000${contact}`, number, { text: `hello ${contact}` });
  await waitFor(async () => (await gateway.call("GET", "/v1/deliveries?state=retrying", { key: project.key })).body.deliveries.length === 6, 10_000, "six failed first attempts");
  sweep = await gateway.sweep();
  expect(firing(sweep.alerts)).toEqual(["delivery_failure_rate"]);
  for (const delayMs of deliveryRetryDelaysMs) {
    gateway.clock.advance(delayMs);
    sweep = await gateway.sweep();
  }
  expect(firing(sweep.alerts)).toEqual(["dead_letters", "delivery_failure_rate"]);
  hooks.mode = "ok";
  gateway.clock.advance(3_600_000 + 1_000);
  sweep = await gateway.sweep();
  expect(firing(sweep.alerts)).toEqual([]);
  expect(postsSince(2)).toEqual([
    { rule: "delivery_failure_rate", transition: "started" },
    { rule: "dead_letters", transition: "started" },
    { rule: "dead_letters", transition: "cleared" },
    { rule: "delivery_failure_rate", transition: "cleared" },
  ]);

  // instance_disconnected: the phone's connection drops and stays down past the grace period.
  await gateway.phones.drop(number);
  await waitFor(async () => (await gateway.call("GET", "/v1/instances", { key: project.key })).body.instances[0].connection === "closed", 10_000, "the drop");
  gateway.clock.advance(2 * 60_000 + 1_000);
  expect(firing((await alertsNow()).body.alerts)).toEqual(["instance_disconnected"]);
  await gateway.sweep();
  await waitFor(async () => (await gateway.call("GET", "/v1/instances", { key: project.key })).body.instances[0].connection === "open", 10_000, "the reconnection");
  expect(firing((await alertsNow()).body.alerts)).toEqual([]);
  expect(postsSince(6)).toEqual([
    { rule: "instance_disconnected", transition: "started" },
    { rule: "instance_disconnected", transition: "cleared" },
  ]);

  // replica_ownership: a second replica on the same store without sharding. Both evaluate; the
  // store lets one of them announce each transition.
  const second = await startGateway(parseGatewaySettings({ ...env(), GATEWAY_ROOT_KEY: testRootKey, GATEWAY_NETWORK: "simulated", GATEWAY_SIMULATED_NETWORK_URL: gateway.network.url }), gateway.dataDir, "", { now: gateway.clock.now, log: () => {} });
  await gateway.sweep();
  const critical = await alertsNow();
  expect([critical.status, critical.body.status, firing(critical.body.alerts)]).toEqual([503, "critical", ["replica_ownership"]]);
  const conflict = critical.body.alerts[1].detail as string;
  expect(conflict).toMatch(/^2 replicas share the store and 2 run without sharding \(replica-\w+, replica-\w+\)$/);
  expect([conflict.includes(gateway.gateway.ctx.replica), conflict.includes(second.ctx.replica)]).toEqual([true, true]);
  // The second replica found the number held and did not take it.
  expect((await gateway.call("GET", "/v1/admin/shards", { key: testRootKey })).body.replicas.map((replica: { id: string; instances: unknown[] }) => [replica.id === gateway.gateway.ctx.replica, replica.instances.length]).sort()).toEqual([
    [false, 0],
    [true, 1],
  ]);
  await second.ctx.supervisor.sweep();
  await second.close();
  expect(firing((await gateway.sweep()).alerts)).toEqual([]);
  expect(postsSince(8)).toEqual([
    { rule: "replica_ownership", transition: "started" },
    { rule: "replica_ownership", transition: "cleared" },
  ]);

  // replica_ownership, its other half: a paired number whose owner stopped renewing its lease
  // (no supervisor pass for longer than the lease) and stayed without a live owner past the grace.
  gateway.clock.advance(600_000 + 2 * 60_000 + 1_000);
  const orphaned = await alertsNow();
  expect([orphaned.status, firing(orphaned.body.alerts), orphaned.body.alerts[1].detail]).toEqual([503, ["replica_ownership"], `1 paired numbers without a live owner: ${number}`]);
  expect(firing((await gateway.sweep()).alerts)).toEqual([]);
  expect(postsSince(10)).toEqual([
    { rule: "replica_ownership", transition: "started" },
    { rule: "replica_ownership", transition: "cleared" },
  ]);

  // store_unreachable: PostgreSQL stops; the alerts answer 503 and the other rules cannot be evaluated.
  await postgres.kill();
  const down = await alertsNow();
  expect(down.status).toBe(503);
  expect(down.body.alerts.map((alert: { rule: string; evaluated: boolean; firing: boolean }) => [alert.rule, alert.evaluated, alert.firing])).toEqual([
    ["store_unreachable", true, true],
    ["replica_ownership", false, false],
    ["instance_disconnected", false, false],
    ["dead_letters", false, false],
    ["delivery_failure_rate", false, false],
    ["send_queue_age", false, false],
  ]);
  expect((await alertsNow()).status).toBe(503);
  await postgres.start();
  await waitFor(async () => (await alertsNow()).status === 200, 20_000, "the store back");
  expect(postsSince(12)).toEqual([
    { rule: "store_unreachable", transition: "started" },
    { rule: "store_unreachable", transition: "cleared" },
  ]);
  expect(posts.length).toBe(14);
}, 120_000);
