// `npm start`: serve everything on PORT until SIGTERM/SIGINT, then shut down cleanly.
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { serveGatewayAlone } from "./gateway/standalone.ts";
import { serveMailAlone } from "./mail/standalone.ts";
import { mkdirSync } from "node:fs";
import { startService, type RunningService } from "./service.ts";
import { startHeapGuard } from "../storage/heap-guard.ts";
import { startupGuide } from "./startup-guide.ts";
import { gatewayRootKeyFile } from "./gateway/gateway.ts";
import { mailRootKeyFile } from "./mail/mail.ts";
import { join } from "node:path";
import { ManifestCorruptError } from "../storage/manifest.ts";
import { WalCorruptError } from "../storage/wal.ts";

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`);
    process.exit(2);
  }
  throw error;
}

if (config.services === "gateway") {
  mkdirSync(config.dataDir, { recursive: true });
  const alone = await serveGatewayAlone(config);
  console.log(`messaging gateway listening on ${alone.url} (replica ${alone.gateway.ctx.replica}; data: ${config.dataDir})`);
  if (alone.gateway.createdRootKey) console.log(`gateway root key (shown once, kept in ${join(config.dataDir, gatewayRootKeyFile)}): ${alone.gateway.createdRootKey}`);
  const stopAlone = async (signal: string) => {
    console.log(`${signal} received: closing sessions and giving leases back`);
    await alone.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stopAlone("SIGTERM"));
  process.on("SIGINT", () => void stopAlone("SIGINT"));
} else if (config.services === "mail") {
  mkdirSync(config.dataDir, { recursive: true });
  const alone = await serveMailAlone(config);
  const smtp = alone.mail.smtpPort === null ? "no inbound SMTP" : `inbound SMTP on port ${alone.mail.smtpPort}`;
  console.log(`mail API listening on ${alone.url} (${smtp}; data: ${config.dataDir})`);
  if (alone.mail.createdRootKey) console.log(`mail root key (shown once, kept in ${join(config.dataDir, mailRootKeyFile)}): ${alone.mail.createdRootKey}`);
  const stopAlone = async (signal: string) => {
    console.log(`${signal} received: finishing the delivery and webhook passes under way`);
    await alone.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stopAlone("SIGTERM"));
  process.on("SIGINT", () => void stopAlone("SIGINT"));
} else {
  await runEverything(config);
}

async function runEverything(config: Config) {
  let service: RunningService;
  try {
    service = await startService(config);
  } catch (error) {
    // Damaged files the store does not open on: the operator's move, so a message, not a trace.
    if (error instanceof WalCorruptError || error instanceof ManifestCorruptError) {
      console.error(`storage error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  startHeapGuard();
  // Built while the operator reads the guide, so the first page opens at once; a failure is
  // reported here and again, with the build's messages, to the first visitor's request.
  service.prepareConsole().catch((error) => console.error("web console build failed:", error));
  service.prepareSdk().catch((error) => console.error("browser SDK build failed:", error));
  console.log(`svc-analytics listening on ${service.url} (regions: ${config.regions.join(", ")}; data: ${config.dataDir})`);
  console.log(
    startupGuide(
      service.ctx.baseUrl(),
      { createdRootKey: service.gateway.createdRootKey, rootKeyFile: join(config.dataDir, gatewayRootKeyFile), configuredIn: config.gateway.rootKey === null ? null : "GATEWAY_ROOT_KEY" },
      { createdRootKey: service.mailApi.createdRootKey, rootKeyFile: join(config.dataDir, mailRootKeyFile), configuredIn: config.mail.rootKey === null ? null : "MAIL_ROOT_KEY" },
    ).join("\n"),
  );

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
}
