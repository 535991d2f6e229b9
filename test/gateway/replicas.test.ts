// Three gateway replicas on one PostgreSQL, each its own process (SERVICES=gateway) with
// sharding: numbers are spread by lease, a request to any replica reaches the number's owner,
// and when one replica is killed with SIGKILL mid-traffic its numbers move to the others
// (resuming their sessions without a scan), no acknowledged message is lost, none reaches the
// network twice, and no inbound message is lost.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatedNetworkControl, startSimulatedNetwork, type RunningSimulatedNetwork } from "../../server/gateway/network/simulated/index.ts";
import { freePort, startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { spawnService, type ServiceProcess } from "../helpers/process.ts";
import { gatewayCall, testRootKey, waitFor } from "./harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

const leaseTtlMs = 3_000;
const replicaCount = 3;
const numbers = ["+4915200000001", "+4915200000002", "+4915200000003", "+4915200000004", "+4915200000005", "+4915200000006"];
const recipients = ["+4917100000001", "+4917100000002", "+4917100000003", "+4917100000004"];
const contacts = ["+4917200000001", "+4917200000002"];

let postgres: TestPostgres;
let network: RunningSimulatedNetwork;
let phones: SimulatedNetworkControl;
let receiver: WebhookReceiver | undefined;
const replicas: (ServiceProcess & { id?: string })[] = [];
const dataDirs: string[] = [];

async function call(url: string, method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const answer = await gatewayCall(url)(method, path, options);
  return { status: answer.status, body: answer.body, replica: answer.headers.get("x-gateway-replica") };
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  network = await startSimulatedNetwork();
  phones = new SimulatedNetworkControl(network.url);
  for (let index = 0; index < replicaCount; index += 1) {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "gateway-replica-"));
    dataDirs.push(dataDir);
    replicas.push(
      await spawnService({
        SERVICES: "gateway",
        PORT: String(port),
        DATA_DIR: dataDir,
        GATEWAY_DATABASE_URL: postgres.url,
        GATEWAY_ROOT_KEY: testRootKey,
        GATEWAY_NETWORK: "simulated",
        GATEWAY_SIMULATED_NETWORK_URL: network.url,
        SHARDING_ENABLED: "true",
        REPLICA_URL: `http://127.0.0.1:${port}`,
        GATEWAY_LEASE_TTL_MS: String(leaseTtlMs),
        GATEWAY_SUPERVISOR_INTERVAL_MS: "300",
        GATEWAY_WEBHOOK_TIMEOUT_MS: "1000",
        GATEWAY_SENDS_PER_MINUTE: "100000",
        GATEWAY_WARMUP_DAILY_CAPS: "off",
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) replica.child.kill("SIGKILL");
  receiver?.close();
  await network?.close();
  await postgres?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

const shards = async (url: string) => (await call(url, "GET", "/v1/admin/shards", { key: testRootKey })).body;

test("three replicas share the numbers, forward to the owner, and survive one killed mid-traffic", async () => {
  const [first] = replicas;
  await waitFor(async () => (await shards(first!.url)).replicas.length === replicaCount, 15_000, "every replica to announce itself");
  for (const replica of replicas) replica.id = (await call(replica.url, "GET", "/v1/live")).replica!;

  const project = await call(first!.url, "POST", "/v1/projects", { key: testRootKey, body: { name: "Replicated" } });
  const key = (await call(first!.url, "POST", `/v1/projects/${project.body.project.id}/keys`, { key: testRootKey, body: {} })).body.secret as string;
  receiver = startWebhookReceiver(project.body.webhookSecret);
  await call(first!.url, "PUT", `/v1/projects/${project.body.project.id}/webhook`, { key: testRootKey, body: { url: receiver.url } });

  // Each number is connected through a different replica, which takes its lease and pairs it.
  const instanceIds: string[] = [];
  for (const [index, phone] of numbers.entries()) {
    const via = replicas[index % replicaCount]!;
    const registered = await call(via.url, "POST", "/v1/instances", { key, body: { phone } });
    const connected = await call(via.url, "POST", `/v1/instances/${registered.body.id}/connect`, { key });
    expect(connected.body.qr.status).toBe("code");
    await phones.scan(phone, connected.body.qr.code);
    instanceIds.push(registered.body.id);
  }
  await waitFor(async () => {
    const view = await shards(first!.url);
    return view.replicas.every((replica: { instances: unknown[] }) => replica.instances.length === 2) && view.unowned.length === 0;
  }, 15_000, "two numbers per replica");
  const owners = new Map<string, string>();
  for (const replica of (await shards(replicas[1]!.url)).replicas) for (const instance of replica.instances) owners.set(instance.instanceId, replica.id);
  await waitFor(async () => {
    const listed = (await call(first!.url, "GET", "/v1/instances", { key })).body.instances;
    return listed.every((instance: { connection: string; state: string }) => instance.connection === "open" && instance.state === "paired");
  }, 15_000, "every number paired and open");
  const pairedAt = new Map(((await call(first!.url, "GET", "/v1/instances", { key })).body.instances as { id: string; pairedAt: string }[]).map((instance) => [instance.id, instance.pairedAt]));

  // A request landing on a replica that does not hold the number is answered by the one that does.
  for (const instanceId of instanceIds) {
    const elsewhere = replicas.find((replica) => replica.id !== owners.get(instanceId))!;
    const again = await call(elsewhere.url, "POST", `/v1/instances/${instanceId}/connect`, { key });
    expect({ status: again.status, body: again.body, replica: again.replica }).toEqual({
      status: 409,
      body: { error: { code: "already_connected", message: "the instance is already connected" } },
      replica: owners.get(instanceId)!,
    });
  }

  // Traffic: sends with idempotency keys through any live replica (a client retries elsewhere
  // when one does not answer), and contacts writing to the numbers; a replica dies midway.
  const victim = replicas[1]!;
  const acknowledged = new Map<string, string>();
  const live = () => replicas.filter((replica) => replica !== victim || !victim.child.killed);
  const send = async (index: number) => {
    const body = { to: recipients[index % recipients.length], text: `message ${index}` };
    for (let attempt = 0; ; attempt += 1) {
      const via = live()[(index + attempt) % live().length]!;
      const answer = await call(via.url, "POST", "/v1/send", { key, body, headers: { "idempotency-key": `order-${index}` } }).catch(() => null);
      if (answer?.status === 202) {
        acknowledged.set(`order-${index}`, answer.body.id);
        return;
      }
      if (attempt > 10) throw new Error(`send ${index} never acknowledged`);
    }
  };
  const inbound: string[] = [];
  const messageCount = 60;
  for (let index = 0; index < messageCount; index += 1) {
    if (index === messageCount / 2) victim.child.kill("SIGKILL");
    await Promise.all([send(index), phones.sendFromPhone(contacts[index % contacts.length]!, numbers[index % numbers.length]!, { text: `inbound ${index}` }).then(({ networkId }) => inbound.push(networkId))]);
  }
  expect(acknowledged.size).toBe(messageCount);

  // The dead replica's numbers move to the two others, resumed without a scan.
  const survivor = replicas[0]!;
  await waitFor(async () => {
    const view = await shards(survivor.url);
    return view.replicas.length === 2 && view.unowned.length === 0 && view.replicas.every((replica: { instances: unknown[] }) => replica.instances.length === 3);
  }, 20_000, "the dead replica's numbers to move");
  expect((await shards(survivor.url)).replicas.map((replica: { id: string }) => replica.id).sort()).toEqual([replicas[0]!.id!, replicas[2]!.id!].sort());
  // Their sessions resumed from the stored auth state: open again, paired when they were, no new device.
  await waitFor(async () => {
    const listed = (await call(survivor.url, "GET", "/v1/instances", { key })).body.instances as { connection: string }[];
    return listed.every((instance) => instance.connection === "open");
  }, 20_000, "the moved numbers to reconnect");
  const after = (await call(survivor.url, "GET", "/v1/instances", { key })).body.instances as { id: string; pairedAt: string; state: string }[];
  expect(new Map(after.map((instance) => [instance.id, instance.pairedAt]))).toEqual(pairedAt);
  expect(after.every((instance) => instance.state === "paired")).toBe(true);
  expect((await phones.devices()).length).toBe(numbers.length);

  // Every acknowledged message reaches the network once; every inbound message reaches the webhook.
  await waitFor(async () => {
    const states = await Promise.all([...acknowledged.values()].map(async (id) => (await call(survivor.url, "GET", `/v1/messages/${id}`, { key })).body.state));
    return states.every((state) => state === "sent" || state === "delivered" || state === "read");
  }, 30_000, "every acknowledged message sent");
  const inboxes = (await Promise.all(recipients.map((recipient) => phones.inbox(recipient)))).flat();
  const received = inboxes.map((message) => message.messageId).sort();
  expect(received).toEqual([...acknowledged.values()].sort());
  await waitFor(() => inbound.every((networkId) => receiver!.accepted.some((delivery) => delivery.event === "message.received" && delivery.data.networkId === networkId)), 30_000, "every inbound message delivered");
  expect(receiver!.badSignatures).toBe(0);
}, 120_000);
