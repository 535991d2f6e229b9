// Setting the benchmark up through the gateway's HTTP API (the timed parts use
// bench/http-client.ts instead): a project with its key and webhook, and numbers paired the way
// an operator pairs them (register, connect, the phone scans the code, the session opens).
import type { SimulatedNetworkControl } from "../../server/gateway/network/simulated/index.ts";

export const benchRootKey = "gw_root_bench_key_0123456789abcdef";
/** Time between two reads of a number's state while it pairs. */
const pairPollMs = 5;
const pairTimeoutMs = 30_000;

export async function call<T = any>(gatewayUrl: string, method: string, path: string, key: string, body?: unknown): Promise<T> {
  const response = await fetch(gatewayUrl + path, {
    method,
    headers: { apikey: key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

export interface BenchProject {
  id: string;
  key: string;
  webhookSecret: string;
}

export async function createProject(gatewayUrl: string, webhookUrl: string | null): Promise<BenchProject> {
  const created = await call(gatewayUrl, "POST", "/v1/projects", benchRootKey, { name: "Bench", webhookUrl });
  const key = await call(gatewayUrl, "POST", `/v1/projects/${created.project.id}/keys`, benchRootKey, {});
  return { id: created.project.id, key: key.secret, webhookSecret: created.webhookSecret };
}

/** Registers and pairs `phone`; resolves once its session is open. */
export async function pairNumber(gatewayUrl: string, network: SimulatedNetworkControl, key: string, phone: string): Promise<string> {
  const registered = await call(gatewayUrl, "POST", "/v1/instances", key, { phone });
  const connected = await call(gatewayUrl, "POST", `/v1/instances/${registered.id}/connect`, key);
  if (connected.qr?.status !== "code") throw new Error(`connect ${phone}: ${JSON.stringify(connected)}`);
  await network.scan(phone, connected.qr.code);
  const deadline = performance.now() + pairTimeoutMs;
  while ((await call(gatewayUrl, "GET", `/v1/instances/${registered.id}/number`, key)).connection !== "open") {
    if (performance.now() > deadline) throw new Error(`${phone} did not connect within ${pairTimeoutMs} ms`);
    await Bun.sleep(pairPollMs);
  }
  return registered.id as string;
}

/** Pairs every phone, `concurrency` at a time. */
export async function pairNumbers(gatewayUrl: string, network: SimulatedNetworkControl, key: string, phones: string[], concurrency: number): Promise<string[]> {
  const ids: string[] = new Array(phones.length);
  let next = 0;
  const worker = async () => {
    for (let at = next++; at < phones.length; at = next++) ids[at] = await pairNumber(gatewayUrl, network, key, phones[at]!);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

/** E.164 numbers for the benchmark: `count` of them in a range of their own (paired numbers, recipients, contacts). */
export const phoneRange = (prefix: string, count: number) => Array.from({ length: count }, (_, at) => `+49${prefix}${String(at).padStart(7, "0")}`);
