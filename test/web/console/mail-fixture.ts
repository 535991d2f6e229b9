// The Mail page's world: the real service with its mail API resolving through a local DNS
// server and delivering to a real SMTP server on loopback (the MX of example.net), a tenant
// and its full-access key made with the root key, a webhook receiver that refuses every
// delivery with hostile text, and a console tab signed in as a person with a project.
import { expect } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { TestDnsServer } from "../../mail/helpers/dns-server.ts";
import { SmtpReceiver } from "../../mail/helpers/smtp-receiver.ts";
import { keyedRequest, openWatchedConsole, startRefusingReceiver, type KeyedReply, type WatchedConsole } from "./keyed-service-fixture.ts";

export const mailRootKey = "mk_root_console_test_key_0123456789";
export const recipientDomain = "example.net";
const recipientMx = "mx.example.net";
/** The console tab's `requests` record each one's Authorization header as its `keyHeader`. */
export interface MailFixture extends WatchedConsole {
  service: TestService;
  dns: TestDnsServer;
  smtp: SmtpReceiver;
  tenantKey: string;
  webhookUrl: string;
  mail(method: string, path: string, key: string, body?: unknown): Promise<KeyedReply>;
  /** Publishes a domain's records (as its API answer lists them) in the local DNS server. */
  publish(records: { name: string; type: string; value: string; priority: number | null }[]): void;
  close(): Promise<void>;
}

export async function startMailFixture(): Promise<MailFixture> {
  const dns = await TestDnsServer.start();
  const smtp = await SmtpReceiver.start({ hostName: recipientMx });
  dns.set(recipientDomain, { MX: [{ exchange: recipientMx, priority: 10 }] });
  dns.set(recipientMx, { A: ["127.0.0.1"] });
  const receiver = startRefusingReceiver();
  const service = await startTestService({
    MAIL_ROOT_KEY: mailRootKey,
    MAIL_HOSTNAME: "mx.mail-service.test",
    MAIL_DNS_SERVERS: dns.servers.join(","),
    MAIL_DELIVERY_PORT: String(smtp.port),
  });
  const mail: MailFixture["mail"] = (method, path, key, body) => keyedRequest(`${service.url}/mail${path}`, method, { authorization: `Bearer ${key}` }, body);
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

  const watched = await openWatchedConsole(service, "Mo Mailer", "authorization");
  await watched.tab.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url });
  return {
    ...watched,
    service,
    dns,
    smtp,
    tenantKey: tenant.body.api_key.token,
    webhookUrl: `http://127.0.0.1:${receiver.port}/hooks`,
    mail,
    publish,
    async close() {
      await watched.browser.close();
      await service.close();
      receiver.stop(true);
      await smtp.close();
      await dns.close();
    },
  };
}
