// The messaging pages' world: the real service with its gateway on the simulated network (its
// own server, phones driven through its control API), a gateway project with a key made with
// the root key, a webhook receiver that refuses every delivery (so deliveries retry and show
// their last error), and a console tab signed in as a person with an analytics project.
import { expect } from "bun:test";
import { SimulatedNetworkControl, startSimulatedNetwork, type RunningSimulatedNetwork } from "../../../server/gateway/network/simulated/index.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { keyedRequest, openWatchedConsole, startRefusingReceiver, type KeyedReply, type WatchedConsole } from "./keyed-service-fixture.ts";

export const rootKey = "gw_root_console_test_key_0123456789";
/** The console tab's `requests` record each one's apikey header as its `keyHeader`; `projectId` is its analytics project. */
export interface MessagingFixture extends WatchedConsole {
  service: TestService;
  phones: SimulatedNetworkControl;
  gatewayProjectId: string;
  projectKey: string;
  gateway(method: string, path: string, key: string, body?: unknown): Promise<KeyedReply>;
  close(): Promise<void>;
}

export async function startMessaging(): Promise<MessagingFixture> {
  const network: RunningSimulatedNetwork = await startSimulatedNetwork();
  const receiver = startRefusingReceiver();
  const service = await startTestService({ GATEWAY_ROOT_KEY: rootKey, GATEWAY_NETWORK: "simulated", GATEWAY_SIMULATED_NETWORK_URL: network.url });
  const gateway: MessagingFixture["gateway"] = (method, path, key, body) => keyedRequest(`${service.url}/gateway${path}`, method, { apikey: key }, body);
  const created = await gateway("POST", "/v1/projects", rootKey, { name: "Support desk", webhookUrl: `http://127.0.0.1:${receiver.port}/hook` });
  expect(created.status).toBe(201);
  const minted = await gateway("POST", `/v1/projects/${created.body.project.id}/keys`, rootKey, {});
  expect(minted.status).toBe(201);

  const watched = await openWatchedConsole(service, "Mia Messenger", "apikey");
  return {
    ...watched,
    service,
    phones: new SimulatedNetworkControl(network.url),
    gatewayProjectId: created.body.project.id,
    projectKey: minted.body.secret,
    gateway,
    async close() {
      await watched.browser.close();
      await service.close();
      receiver.stop(true);
      await network.close();
    },
  };
}
