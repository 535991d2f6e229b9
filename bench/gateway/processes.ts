// The processes one run starts: the simulated network, the gateway (each in its own process, so
// the gateway's CPU and memory are its own), the bare baseline server and the baseline delivery
// loop. The gateway runs as `npm start` runs it (its JavaScriptCore RAM setting); baselines and
// the network with Bun's defaults.
import { join } from "node:path";
import { watchOutput } from "../../test/helpers/process.ts";
import { startBenchProcess, type BenchProcess } from "../bench-process.ts";
import { benchRootKey } from "./gateway-client.ts";

/** Per-number rate limits lifted, so the figures are the gateway's and not its pacing's. */
export const liftedLimits = { GATEWAY_SENDS_PER_MINUTE: "1000000000", GATEWAY_WARMUP_DAILY_CAPS: "off" };

export function startNetwork(): Promise<BenchProcess> {
  return startBenchProcess(join(import.meta.dir, "network-process.ts"), "plain");
}

export function startGatewayProcess(networkUrl: string): Promise<BenchProcess> {
  const env = { BENCH_ROOT_KEY: benchRootKey, BENCH_NETWORK_URL: networkUrl, ...liftedLimits };
  return startBenchProcess(join(import.meta.dir, "gateway-process.ts"), "npm start", { env, dataDirPrefix: "bench-gateway-" });
}

export function startQueueFloor(): Promise<BenchProcess> {
  return startBenchProcess(join(import.meta.dir, "queue-floor-server.ts"), "plain", { dataDirPrefix: "bench-gateway-floor-" });
}

/** Starts the baseline delivery loop; resolves with when it began posting (performance.timeOrigin + now, ms) and its end. */
export async function startDeliveryLoop(env: Record<string, string>): Promise<{ startedAtMs: number; exited: Promise<number> }> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "delivery-loop.ts")], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const output = watchOutput(child.stdout);
  const started = await Promise.race([output.waitFor(/posting from ([\d.]+)/), child.exited.then((code) => Promise.reject(new Error(`the delivery loop exited with ${code}`)))]);
  return { startedAtMs: Number(started[1]), exited: child.exited };
}
