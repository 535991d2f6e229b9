// SERVICES=mail: the mail API alone in its own process, at the root of its port, with its
// inbound SMTP server: a tenant made with the root key sends from a verified domain and the
// recipient's MX (a real SMTP server) gets the message; SIGTERM stops it cleanly.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonCall, waitFor } from "../gateway/harness.ts";
import { spawnService, type ServiceProcess } from "../helpers/process.ts";
import { TestDnsServer } from "./helpers/dns-server.ts";
import { SmtpReceiver } from "./helpers/smtp-receiver.ts";
import { publishDomainRecords } from "./sending/fixture.ts";

const rootKey = "mk_root_standalone_test_key_0123456789";
let dns: TestDnsServer;
let receiver: SmtpReceiver;
let service: ServiceProcess;
let dataDir: string;
beforeAll(async () => {
  dns = await TestDnsServer.start();
  receiver = await SmtpReceiver.start({ hostName: "mx.example.net" });
  dns.set("example.net", { MX: [{ exchange: "mx.example.net", priority: 10 }] });
  dns.set("mx.example.net", { A: ["127.0.0.1"] });
  dataDir = mkdtempSync(join(tmpdir(), "mail-alone-"));
  service = await spawnService({ SERVICES: "mail", DATA_DIR: dataDir, MAIL_ROOT_KEY: rootKey, MAIL_HOSTNAME: "mx.mail-service.test", MAIL_DNS_SERVERS: dns.servers.join(","), MAIL_DELIVERY_PORT: String(receiver.port) });
}, 60_000);
afterAll(async () => {
  service?.child.kill("SIGKILL");
  await receiver?.close();
  await dns?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the mail API alone sends a verified domain's email to the recipient's MX, and stops on SIGTERM", async () => {
  const call = jsonCall(service.url, (key) => ({ authorization: `Bearer ${key}` }));
  expect((await call("GET", "/")).body.service).toBe("transactional-mail");
  const tenant = await call("POST", "/v1/tenants", { key: rootKey, body: { name: "Acme" } });
  const key = tenant.body.api_key.token;
  const domain = await call("POST", "/v1/domains", { key, body: { name: "send.acme.test" } });
  publishDomainRecords(dns, domain.body.records);
  expect((await call("POST", `/v1/domains/${domain.body.id}/verify`, { key })).body.status).toBe("verified");
  const sent = await call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", to: ["ana@example.net"], subject: "From a process of its own", text: "Hi" } });
  expect(sent.status).toBe(200);
  await waitFor(() => receiver.received.length === 1, 20_000, "the delivery");
  expect(receiver.received[0]!.mailFrom).toBe(`bounce+${sent.body.id}@bounces.send.acme.test`);
  await waitFor(async () => (await call("GET", `/v1/emails/${sent.body.id}`, { key })).body.status === "delivered", 20_000, "the delivered status");

  service.child.kill("SIGTERM");
  expect(await service.child.exited).toBe(0);
});
