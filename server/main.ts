// `npm start`: serve everything on PORT until SIGTERM/SIGINT, then shut down cleanly.
import { ConfigError, loadConfig } from "./config.ts";
import { startService } from "./service.ts";
import { startHeapGuard } from "../storage/heap-guard.ts";

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`);
    process.exit(2);
  }
  throw error;
}

const service = await startService(config);
startHeapGuard();
console.log(`svc-analytics listening on ${service.url} (regions: ${config.regions.join(", ")}; data: ${config.dataDir})`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal} received: finishing in-flight requests and closing databases`);
  await service.stop();
  console.log("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
