// The network the settings pick: Baileys (production), or the simulated network at its URL, or
// one the gateway starts for itself on loopback (a demo with no network of its own).
import type { GatewaySettings } from "../settings.ts";
import type { MessagingNetwork } from "./network.ts";
import { SimulatedNetwork, startSimulatedNetwork } from "./simulated/index.ts";

export interface SelectedNetwork {
  network: MessagingNetwork;
  /** The simulated network's URL when the gateway runs one itself (its control API acts as phones). */
  embeddedSimulatorUrl: string | null;
  close(): Promise<void>;
}

export async function selectNetwork(settings: GatewaySettings): Promise<SelectedNetwork> {
  if (settings.network === "baileys") {
    // Loaded only when used: Baileys and its protocol buffers take a while to load.
    const { BaileysNetwork } = await import("./baileys/baileys-network.ts");
    const network = new BaileysNetwork();
    return { network, embeddedSimulatorUrl: null, close: () => network.close() };
  }
  if (settings.simulatedNetworkUrl !== null) {
    const network = new SimulatedNetwork(settings.simulatedNetworkUrl);
    return { network, embeddedSimulatorUrl: null, close: () => network.close() };
  }
  const simulator = await startSimulatedNetwork();
  const network = new SimulatedNetwork(simulator.url);
  return {
    network,
    embeddedSimulatorUrl: simulator.url,
    close: async () => {
      await network.close();
      await simulator.close();
    },
  };
}
