// The Mail page's world: the real service with its mail API resolving through a local DNS
// server and delivering to a real SMTP server on loopback (the MX of example.net), a tenant
// and its full-access key made with the root key, a webhook receiver that refuses every
// delivery with hostile text, and a console tab signed in as a person with a project.
import { expect } from "bun:test";
import type { Browser, Request } from "playwright-core";
import { createProject, signUp } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import type { ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { TestDnsServer } from "../../mail/helpers/dns-server.ts";
import { SmtpReceiver } from "../../mail/helpers/smtp-receiver.ts";
import { signedInTab } from "./signed-in-tab.ts";

export const mailRootKey = "mk_root_console_test_key_0123456789";
export const recipientDomain = "example.net";
const recipientMx = "mx.example.net";
/** What the webhook receiver answers every delivery: a refusal whose text the page must show as text. */
export const receiverRefusal = { status: 500, body: "<img src=x onerror=window.__pwned=1>" };

export interface MailReply {
  status: number;
  body: any;
}

/** A request the page made, with the Authorization header it carried. */
export interface SeenRequest {
  url: string;
  authorization: string | undefined;
}

export interface MailFixture {
  service: TestService;
  dns: TestDnsServer;
  smtp: SmtpReceiver;
  browser: Browser;
  tab: ConsoleTab;
  projectId: string;
  tenantKey: string;
  webhookUrl: string;
  requests: SeenRequest[];
  /** Browser dialogs (alert, confirm) something opened: a hostile text that ran would. */
  dialogs: string[];
  mail(method: string, path: string, key: string, body?: unknown): Promise<MailReply>;
  /** Publishes a domain's records (as its API answer lists them) in the local DNS server. */
  publish(records: { name: string; type: string; value: string; priority: number | null }[]): void;
  close(): Promise<void>;
}

export async function startMailFixture(): Promise<MailFixture> {
  const dns = await TestDnsServer.start();
  const smtp = await SmtpReceiver.start({ hostName: recipientMx });
  dns.set(recipientDomain, { MX: [{ exchange: recipientMx, priority: 10 }] });
  dns.set(recipientMx, { A: ["127.0.0.1"] });
  const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(receiverRefusal.body, { status: receiverRefusal.status }) });
  const service = await startTestService({
    MAIL_ROOT_KEY: mailRootKey,
    MAIL_HOSTNAME: "mx.mail-service.test",
    MAIL_DNS_SERVERS: dns.servers.join(","),
    MAIL_DELIVERY_PORT: String(smtp.port),
  });
  const mail = async (method: string, path: string, key: string, body?: unknown): Promise<MailReply> => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${service.url}/mail${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
  };
  const tenant = await mail("POST", "/v1/tenants", mailRootKey, { name: "Acme" });
  expect(tenant.status).toBe(201);
  const zones = new Map<string, { TXT: string[]; MX: { exchange: string; priority: number }[] }>();
  const publish: MailFixture["publish"] = (records) => {
    for (const record of records) {
      const zone = zones.get(record.name) ?? { TXT: [], MX: [] };
      if (record.type === "TXT") zone.TXT.push(record.value);
      else zone.MX.push({ exchange: record.value, priority: record.priority! });
      zones.set(record.name, zone);
      dns.set(record.name, zone);
    }
  };

  const owner = await signUp(service, "Mo Mailer");
  const projectId = (await createProject(owner, "Storefront")).project.id;
  const browser = await launchChromium();
  const tab = await signedInTab(browser, service, owner);
  await tab.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url });
  const requests: SeenRequest[] = [];
  tab.page.on("request", (request: Request) => requests.push({ url: request.url(), authorization: request.headers().authorization }));
  const dialogs: string[] = [];
  tab.page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return {
    service,
    dns,
    smtp,
    browser,
    tab,
    projectId,
    tenantKey: tenant.body.api_key.token,
    webhookUrl: `http://127.0.0.1:${receiver.port}/hooks`,
    requests,
    dialogs,
    mail,
    publish,
    async close() {
      await browser.close();
      await service.close();
      receiver.stop(true);
      await smtp.close();
      await dns.close();
    },
  };
}
