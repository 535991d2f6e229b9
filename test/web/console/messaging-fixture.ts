// The messaging pages' world: the real service with its gateway on the simulated network (its
// own server, phones driven through its control API), a gateway project with a key made with
// the root key, a webhook receiver that refuses every delivery (so deliveries retry and show
// their last error), and a console tab signed in as a person with an analytics project.
import { expect } from "bun:test";
import type { Browser, Request } from "playwright-core";
import { SimulatedNetworkControl, startSimulatedNetwork, type RunningSimulatedNetwork } from "../../../server/gateway/network/simulated/index.ts";
import { createProject, signUp } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import type { ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { signedInTab } from "./signed-in-tab.ts";

export const rootKey = "gw_root_console_test_key_0123456789";
/** What the receiver answers every delivery: a refusal whose text the page must show as text. */
export const receiverRefusal = { status: 500, body: "<img src=x onerror=window.__pwned=1>" };

export interface GatewayReply {
  status: number;
  body: any;
}

/** A request the page made, with the gateway key header it carried. */
export interface SeenRequest {
  url: string;
  apikey: string | undefined;
}

export interface MessagingFixture {
  service: TestService;
  phones: SimulatedNetworkControl;
  browser: Browser;
  tab: ConsoleTab;
  analyticsProjectId: string;
  gatewayProjectId: string;
  projectKey: string;
  requests: SeenRequest[];
  /** Browser dialogs (alert, confirm) something opened: a hostile text that ran would. */
  dialogs: string[];
  gateway(method: string, path: string, key: string, body?: unknown): Promise<GatewayReply>;
  close(): Promise<void>;
}

export async function startMessaging(): Promise<MessagingFixture> {
  const network: RunningSimulatedNetwork = await startSimulatedNetwork();
  const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(receiverRefusal.body, { status: receiverRefusal.status }) });
  const service = await startTestService({ GATEWAY_ROOT_KEY: rootKey, GATEWAY_NETWORK: "simulated", GATEWAY_SIMULATED_NETWORK_URL: network.url });
  const gateway = async (method: string, path: string, key: string, body?: unknown): Promise<GatewayReply> => {
    const response = await fetch(`${service.url}/gateway${path}`, {
      method,
      headers: body === undefined ? { apikey: key } : { apikey: key, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
  };
  const created = await gateway("POST", "/v1/projects", rootKey, { name: "Support desk", webhookUrl: `http://127.0.0.1:${receiver.port}/hook` });
  expect(created.status).toBe(201);
  const minted = await gateway("POST", `/v1/projects/${created.body.project.id}/keys`, rootKey, {});
  expect(minted.status).toBe(201);

  const owner = await signUp(service, "Mia Messenger");
  const analyticsProjectId = (await createProject(owner, "Storefront")).project.id;
  const browser = await launchChromium();
  const tab = await signedInTab(browser, service, owner);
  const requests: SeenRequest[] = [];
  tab.page.on("request", (request: Request) => requests.push({ url: request.url(), apikey: request.headers().apikey }));
  const dialogs: string[] = [];
  tab.page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return {
    service,
    phones: new SimulatedNetworkControl(network.url),
    browser,
    tab,
    analyticsProjectId,
    gatewayProjectId: created.body.project.id,
    projectKey: minted.body.secret,
    requests,
    dialogs,
    gateway,
    async close() {
      await browser.close();
      await service.close();
      receiver.stop(true);
      await network.close();
    },
  };
}
