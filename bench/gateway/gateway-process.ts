// The gateway alone in its own process, as the benchmark measures it: started the way
// test/gateway/harness.ts starts it (startGateway + Bun.serve on a loopback port), against the
// simulated network of BENCH_NETWORK_URL, with its data in BENCH_DATA_DIR. Besides the gateway's
// routes it answers GET /__bench/memory: its RSS and JavaScript heap after a full collection,
// which only the process itself can read.
import { startGateway } from "../../server/gateway/gateway.ts";
import { parseGatewaySettings } from "../../server/gateway/settings.ts";
import { benchMemoryPath, type GatewayMemory } from "./gateway-memory.ts";

const settings = parseGatewaySettings({
  GATEWAY_ROOT_KEY: process.env.BENCH_ROOT_KEY,
  GATEWAY_NETWORK: "simulated",
  GATEWAY_SIMULATED_NETWORK_URL: process.env.BENCH_NETWORK_URL,
  GATEWAY_SENDS_PER_MINUTE: process.env.GATEWAY_SENDS_PER_MINUTE,
  GATEWAY_WARMUP_DAILY_CAPS: process.env.GATEWAY_WARMUP_DAILY_CAPS,
});
const gateway = await startGateway(settings, process.env.BENCH_DATA_DIR!, "", { log: (line) => console.error(line) });

function memory(): GatewayMemory {
  // Twice: the first collection's finalizers can free more for the second.
  Bun.gc(true);
  Bun.gc(true);
  const usage = process.memoryUsage();
  return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed };
}

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (request) => (new URL(request.url).pathname === benchMemoryPath ? Response.json(memory()) : gateway.handle(request)),
});
process.on("SIGTERM", () => {
  server.stop(true);
  void gateway.close().finally(() => process.exit(0));
});
console.log(`gateway listening on ${server.url.origin} `);
