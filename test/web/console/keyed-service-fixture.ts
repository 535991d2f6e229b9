// What the Mail and Messaging pages' worlds share: both services (the mail API, the gateway)
// have keys of their own, post events to a webhook receiver, and are used from a console tab
// signed in as a person with a project, whose requests and dialogs a test watches.
import type { Browser, Request } from "playwright-core";
import { createProject, signUp } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import type { ConsoleTab } from "../../helpers/console-browser.ts";
import type { TestService } from "../../helpers/service.ts";
import { signedInTab } from "./signed-in-tab.ts";

/** What the webhook receiver answers every delivery: a refusal whose text the page must show as text. */
export const receiverRefusal = { status: 500, body: "<img src=x onerror=window.__pwned=1>" };

/** A receiver on loopback that answers every delivery with `receiverRefusal`. */
export const startRefusingReceiver = () =>
  Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(receiverRefusal.body, { status: receiverRefusal.status }) });

export interface KeyedReply {
  status: number;
  body: any;
}

/** A JSON request to the service with its key in `keyHeaders`, answered with its status and parsed body. */
export async function keyedRequest(url: string, method: string, keyHeaders: Record<string, string>, body?: unknown): Promise<KeyedReply> {
  const headers = body === undefined ? keyHeaders : { ...keyHeaders, "content-type": "application/json" };
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

/** A request the page made, with the header the service's key goes in. */
export interface SeenRequest {
  url: string;
  keyHeader: string | undefined;
}

export interface WatchedConsole {
  browser: Browser;
  tab: ConsoleTab;
  /** The console project of the person signed in. */
  projectId: string;
  requests: SeenRequest[];
  /** Browser dialogs (alert, confirm) something opened: a hostile text that ran would. */
  dialogs: string[];
}

/** A console tab signed in as `personName` with a project, recording each request's `keyHeader` and every dialog. */
export async function openWatchedConsole(service: TestService, personName: string, keyHeader: string): Promise<WatchedConsole> {
  const owner = await signUp(service, personName);
  const projectId = (await createProject(owner, "Storefront")).project.id;
  const browser = await launchChromium();
  const tab = await signedInTab(browser, service, owner);
  const requests: SeenRequest[] = [];
  tab.page.on("request", (request: Request) => requests.push({ url: request.url(), keyHeader: request.headers()[keyHeader] }));
  const dialogs: string[] = [];
  tab.page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { browser, tab, projectId, requests, dialogs };
}
