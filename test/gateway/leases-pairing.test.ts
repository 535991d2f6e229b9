// A replica never gives away a number whose pairing it is showing: when a second replica
// appears while two numbers wait for their scan on the first, the first keeps both (the phones
// scan its codes), and only once they are paired does one move, resumed without a new scan.
// The supervisors' own passes are made rare (a long lease), so the test runs each pass itself.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startSimulatedNetwork, type RunningSimulatedNetwork } from "../../server/gateway/network/simulated/index.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { startTestGateway, waitFor, type TestGateway } from "./harness.ts";

const numbers = ["+4915300000001", "+4915300000002"];
let postgres: TestPostgres;
let network: RunningSimulatedNetwork;
const replicas: TestGateway[] = [];

const replicaEnv = (postgresUrl: string, index: number) => ({
  GATEWAY_DATABASE_URL: postgresUrl,
  SHARDING_ENABLED: "true",
  REPLICA_URL: `http://127.0.0.1:9/replica-${index}`,
  GATEWAY_LEASE_TTL_MS: "3600000",
  GATEWAY_SUPERVISOR_INTERVAL_MS: "1000000",
  GATEWAY_WARMUP_DAILY_CAPS: "off",
});

beforeAll(async () => {
  postgres = await startTestPostgres();
  network = await startSimulatedNetwork();
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  await network?.close();
  await postgres?.close();
});

test("a new replica's share does not take a number that is being paired; paired numbers move without a scan", async () => {
  const first = await startTestGateway(replicaEnv(postgres.url, 0), { network });
  replicas.push(first);
  const project = await first.project();
  const codes: string[] = [];
  const ids: string[] = [];
  for (const phone of numbers) {
    const registered = await first.call("POST", "/v1/instances", { key: project.key, body: { phone } });
    const connected = await first.call("POST", `/v1/instances/${registered.body.id}/connect`, { key: project.key });
    expect(connected.body.qr.status).toBe("code");
    codes.push(connected.body.qr.code);
    ids.push(registered.body.id);
  }

  // A second replica announces itself: the share is now one number each, but both are pairing here.
  const second = await startTestGateway(replicaEnv(postgres.url, 1), { network });
  replicas.push(second);
  expect(await first.gateway.ctx.leases.pass()).toEqual({ held: 2, opened: 0, released: 0, liveReplicas: 2 });
  expect(await second.gateway.ctx.leases.pass()).toEqual({ held: 0, opened: 0, released: 0, liveReplicas: 2 });

  // The phones scan the codes they were shown, and both numbers pair.
  for (const [index, phone] of numbers.entries()) await first.phones.scan(phone, codes[index]!);
  await waitFor(async () => {
    const listed = (await first.call("GET", "/v1/instances", { key: project.key })).body.instances as { state: string; connection: string }[];
    return listed.length === 2 && listed.every((instance) => instance.state === "paired" && instance.connection === "open");
  }, 15_000, "both numbers paired on the first replica");
  const pairedAt = ((await first.call("GET", "/v1/instances", { key: project.key })).body.instances as { id: string; pairedAt: string }[]).map((instance) => [instance.id, instance.pairedAt]);

  // Paired, one number goes to the second replica, which resumes it from the stored auth state.
  expect(await first.gateway.ctx.leases.pass()).toEqual({ held: 1, opened: 0, released: 1, liveReplicas: 2 });
  expect(await second.gateway.ctx.leases.pass()).toEqual({ held: 1, opened: 1, released: 0, liveReplicas: 2 });
  await waitFor(async () => {
    const listed = (await first.call("GET", "/v1/instances", { key: project.key })).body.instances as { connection: string }[];
    return listed.every((instance) => instance.connection === "open");
  }, 15_000, "the moved number to reconnect");
  const after = (await first.call("GET", "/v1/instances", { key: project.key })).body.instances as { id: string; pairedAt: string; state: string }[];
  expect(after.map((instance) => [instance.id, instance.pairedAt])).toEqual(pairedAt);
  expect(after.map((instance) => instance.state)).toEqual(["paired", "paired"]);
  expect(first.gateway.ctx.leases.heldCount() + second.gateway.ctx.leases.heldCount()).toBe(2);
  expect((await first.phones.devices()).length).toBe(numbers.length);
}, 120_000);
