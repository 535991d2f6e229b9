// The simulated messaging network: its server, the gateway's adapter to it, and a typed client
// of its control API for tests, demos and benchmarks that act as phones.
export { SimulatedNetwork } from "./simulated-network.ts";
export { startSimulatedNetwork, type RunningSimulatedNetwork, type SimulatedNetworkOptions } from "./network-server.ts";
export { SimulatedNetworkControl, SimulatedNetworkControlError } from "./control-client.ts";
