// The gateway alone in its process (SERVICES=gateway): served at the root of its own port, as
// a replica among others when SHARDING_ENABLED is set. Stops cleanly on SIGTERM: sessions close
// (their auth stays in the store) and leases are given back, so another replica takes the numbers at once.
import type { Config } from "../config.ts";
import { startGateway, type RunningGateway } from "./gateway.ts";

export interface StandaloneGateway {
  url: string;
  gateway: RunningGateway;
  stop(): Promise<void>;
}

export async function serveGatewayAlone(config: Config): Promise<StandaloneGateway> {
  const gateway = await startGateway(config.gateway, config.dataDir, "");
  const server = Bun.serve({ port: config.port, hostname: config.host, fetch: (request) => gateway.handle(request) });
  return {
    url: `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${server.port}`,
    gateway,
    stop: async () => {
      await server.stop();
      await gateway.close();
    },
  };
}
