// The simulated messaging network as a server of its own, as the real network is external to
// the gateway: gateway replicas in separate processes connect to it over a WebSocket
// (`/socket`), tests and demos act as phones through its HTTP control API. Its state lives in
// this process's memory only: restarting it forgets every device, credential and message.
import { handleControlRequest } from "./control-routes.ts";
import { defaultQrRotateIntervalMs, SimulatedNetworkState } from "./network-state.ts";
import { socketPath } from "./protocol.ts";
import { socketHandlers, type SocketData } from "./socket.ts";

export interface SimulatedNetworkOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  hostname?: string;
  /** How long a pairing code stays current before the next one replaces it. */
  qrRotateIntervalMs?: number;
}

export interface RunningSimulatedNetwork {
  /** The base URL (http://host:port): the control API's root, and where the adapter connects. */
  url: string;
  close(): Promise<void>;
}

export async function startSimulatedNetwork(options: SimulatedNetworkOptions = {}): Promise<RunningSimulatedNetwork> {
  const state = new SimulatedNetworkState(options.qrRotateIntervalMs ?? defaultQrRotateIntervalMs);
  const server = Bun.serve<SocketData>({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    fetch(request, server) {
      if (new URL(request.url).pathname !== socketPath) return handleControlRequest(state, request);
      if (server.upgrade(request, { data: { session: null } })) return undefined;
      return Response.json({ error: { code: "upgrade_required", message: `${socketPath} is a WebSocket` } }, { status: 426 });
    },
    websocket: socketHandlers(state),
  });
  return {
    url: server.url.origin,
    async close() {
      state.shutdown();
      await server.stop(true);
    },
  };
}
