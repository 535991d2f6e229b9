// The simulated messaging network in a process of its own, so the gateway process's CPU and
// memory are the gateway's alone (the real network is external to the gateway too).
import { startSimulatedNetwork } from "../../server/gateway/network/simulated/index.ts";

const network = await startSimulatedNetwork();
process.on("SIGTERM", () => void network.close().finally(() => process.exit(0)));
console.log(`simulated network listening on ${network.url} `);
