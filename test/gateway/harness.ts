// A gateway on its own for tests: a real HTTP server on a free loopback port with a temporary
// data directory, the simulated network as its own server (phones driven through its control
// API), a clock the test can move, and helpers for the common first steps.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../server/gateway/gateway.ts";
import { SimulatedNetworkControl, startSimulatedNetwork, type RunningSimulatedNetwork } from "../../server/gateway/network/simulated/index.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { parseGatewaySettings } from "../../server/gateway/settings.ts";

export const testRootKey = "gw_root_test_key_0123456789abcdef";

/** A clock that follows real time plus whatever the test added. */
export class TestClock {
  private offset = 0;
  now = () => Date.now() + this.offset;
  advance(ms: number): void {
    this.offset += ms;
  }
}

export interface TestGateway {
  url: string;
  gateway: RunningGateway;
  phones: SimulatedNetworkControl;
  network: RunningSimulatedNetwork;
  clock: TestClock;
  dataDir: string;
  logs: string[];
  call: GatewayCall;
  /** A project with a key (and a webhook URL when given). */
  project(webhookUrl?: string | null): Promise<{ id: string; key: string; webhookSecret: string }>;
  /** Registers and pairs a number (connect, then the phone scans the code). */
  pairedInstance(key: string, phone: string): Promise<string>;
  sweep(): Promise<any>;
  close(): Promise<void>;
}

export async function startTestGateway(env: Record<string, string> = {}, options: { network?: RunningSimulatedNetwork; dataDir?: string; clock?: TestClock } = {}): Promise<TestGateway> {
  const network = options.network ?? (await startSimulatedNetwork());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "gateway-test-"));
  const clock = options.clock ?? new TestClock();
  const logs: string[] = [];
  const settings = parseGatewaySettings({ GATEWAY_ROOT_KEY: testRootKey, GATEWAY_NETWORK: "simulated", GATEWAY_SIMULATED_NETWORK_URL: network.url, ...env });
  const gateway = await startGateway(settings, dataDir, "", { now: clock.now, log: (line) => logs.push(line) });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => gateway.handle(request) });
  const url = `http://127.0.0.1:${server.port}`;
  const phones = new SimulatedNetworkControl(network.url);
  const call = gatewayCall(url);
  return {
    url,
    gateway,
    phones,
    network,
    clock,
    dataDir,
    logs,
    call,
    async project(webhookUrl = null) {
      const created = await call("POST", "/v1/projects", { key: testRootKey, body: { name: "Support", webhookUrl } });
      const key = await call("POST", `/v1/projects/${created.body.project.id}/keys`, { key: testRootKey, body: {} });
      return { id: created.body.project.id, key: key.body.secret, webhookSecret: created.body.webhookSecret };
    },
    async pairedInstance(key, phone) {
      const registered = await call("POST", "/v1/instances", { key, body: { phone } });
      if (registered.status !== 201) throw new Error(`register: ${JSON.stringify(registered.body)}`);
      const connected = await call("POST", `/v1/instances/${registered.body.id}/connect`, { key });
      if (connected.body.qr?.status !== "code") throw new Error(`connect: ${JSON.stringify(connected.body)}`);
      await phones.scan(phone, connected.body.qr.code);
      await waitFor(async () => (await call("GET", `/v1/instances/${registered.body.id}/number`, { key })).body.connection === "open");
      return registered.body.id as string;
    },
    sweep: async () => (await call("POST", "/v1/admin/sweep", { key: testRootKey })).body,
    async close() {
      server.stop(true);
      await gateway.close();
      if (!options.network) await network.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type GatewayCall = (method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string> }) => Promise<{ status: number; body: any; headers: Headers }>;

/** Calls a service at `url` with a key (in the header `keyHeader` makes) and a JSON body; the answer's body parsed when it is JSON. */
export function jsonCall(url: string, keyHeader: (key: string) => Record<string, string>): GatewayCall {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(options.key ? keyHeader(options.key) : {}), ...(options.headers ?? {}) };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, body, headers: response.headers };
  };
}

/** Calls the gateway at `url` with its `apikey` header. */
export const gatewayCall = (url: string) => jsonCall(url, (key) => ({ apikey: key }));

export { waitFor };
