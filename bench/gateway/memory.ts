// Memory per connected instance: the gateway process's RSS and JavaScript heap (after a full
// collection, read inside the process) with W numbers paired and connected, then with W + K;
// (difference) / K. The W first numbers warm the code paths up (pairing, sessions, the routes),
// so the difference holds what the K numbers keep and not what the first pairing loads. The
// simulated network runs in its own process, so none of its memory counts.
import { SimulatedNetworkControl } from "../../server/gateway/network/simulated/index.ts";
import { createProject, pairNumbers, phoneRange } from "./gateway-client.ts";
import { readGatewayMemory, type GatewayMemory } from "./gateway-memory.ts";
import { startGatewayProcess, startNetwork } from "./processes.ts";

/** Numbers paired concurrently while setting up. */
const pairingConcurrency = 8;

export interface MemoryFigures {
  /** Right after start, with a project and no number. */
  idle: GatewayMemory;
  warm: GatewayMemory;
  loaded: GatewayMemory;
  rssBytesPerInstance: number;
  heapBytesPerInstance: number;
}

export async function measureMemory(warmInstances: number, instances: number): Promise<MemoryFigures> {
  const network = await startNetwork();
  const gateway = await startGatewayProcess(network.url);
  try {
    const control = new SimulatedNetworkControl(network.url);
    // No webhook: the numbers' instance.paired events stay stored, nothing is posted meanwhile.
    const project = await createProject(gateway.url, null);
    const phones = phoneRange("152", warmInstances + instances);
    const idle = await readGatewayMemory(gateway.url);
    await pairNumbers(gateway.url, control, project.key, phones.slice(0, warmInstances), pairingConcurrency);
    const warm = await readGatewayMemory(gateway.url);
    await pairNumbers(gateway.url, control, project.key, phones.slice(warmInstances), pairingConcurrency);
    const loaded = await readGatewayMemory(gateway.url);
    const connected = (await control.stats()).connectedSessions;
    if (connected !== warmInstances + instances) throw new Error(`${connected} sessions connected for ${warmInstances + instances} paired numbers`);
    return {
      idle,
      warm,
      loaded,
      rssBytesPerInstance: (loaded.rssBytes - warm.rssBytes) / instances,
      heapBytesPerInstance: (loaded.heapUsedBytes - warm.heapUsedBytes) / instances,
    };
  } finally {
    await gateway.stop();
    await network.stop();
  }
}
