// The processes one run starts: the simulated network, the gateway (each in its own process, so
// the gateway's CPU and memory are its own), the bare baseline server and the baseline delivery
// loop. The gateway runs as `npm start` runs it (its JavaScriptCore RAM setting); baselines and
// the network with Bun's defaults.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService, watchOutput } from "../../test/helpers/process.ts";
import { benchRootKey } from "./gateway-client.ts";

export interface BenchProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Per-number rate limits lifted, so the figures are the gateway's and not its pacing's. */
export const liftedLimits = { GATEWAY_SENDS_PER_MINUTE: "1000000000", GATEWAY_WARMUP_DAILY_CAPS: "off" };

async function start(entry: string, env: Record<string, string>, runtime: "npm start" | "plain", cleanUp = () => {}): Promise<BenchProcess> {
  const service = await spawnService(env, [join(import.meta.dir, entry)], runtime);
  return {
    url: service.url,
    pid: service.child.pid,
    async stop() {
      service.child.kill("SIGTERM");
      await service.child.exited;
      cleanUp();
    },
  };
}

export function startNetwork(): Promise<BenchProcess> {
  return start("network-process.ts", {}, "plain");
}

export function startGatewayProcess(networkUrl: string): Promise<BenchProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-gateway-"));
  return start("gateway-process.ts", { BENCH_ROOT_KEY: benchRootKey, BENCH_NETWORK_URL: networkUrl, BENCH_DATA_DIR: dataDir, ...liftedLimits }, "npm start", () => rmSync(dataDir, { recursive: true, force: true }));
}

export function startQueueFloor(): Promise<BenchProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-gateway-floor-"));
  return start("queue-floor-server.ts", { BENCH_DATA_DIR: dataDir }, "plain", () => rmSync(dataDir, { recursive: true, force: true }));
}

/** Starts the baseline delivery loop; resolves with when it began posting (performance.timeOrigin + now, ms) and its end. */
export async function startDeliveryLoop(env: Record<string, string>): Promise<{ startedAtMs: number; exited: Promise<number> }> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "delivery-loop.ts")], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const output = watchOutput(child.stdout);
  const started = await Promise.race([output.waitFor(/posting from ([\d.]+)/), child.exited.then((code) => Promise.reject(new Error(`the delivery loop exited with ${code}`)))]);
  return { startedAtMs: Number(started[1]), exited: child.exited };
}
