// The mail API on its own for tests: a real HTTP server on a free loopback port with a
// temporary data directory, a local DNS server the service resolves through, a clock the test
// can move, and a call helper with the Bearer key.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMail, type MailOptions, type RunningMail } from "../../server/mail/mail.ts";
import { parseMailSettings } from "../../server/mail/settings.ts";
import { jsonCall, TestClock, type GatewayCall } from "../gateway/harness.ts";
import { startTestPostgres } from "../helpers/postgres.ts";
import { TestDnsServer } from "./helpers/dns-server.ts";

export const mailRootKey = "mk_root_test_key_0123456789abcdef";
export const mailHostname = "mx.mail-service.test";
const unlimitedBurst = 1_000_000;

export interface TestMail {
  url: string;
  mail: RunningMail;
  dns: TestDnsServer;
  clock: TestClock;
  call: GatewayCall;
  /** A tenant and its first full-access key. */
  tenant(name?: string): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

/** The inbound SMTP server listens on a free loopback port (`mail.smtpPort`); `options` adds a report handler, a log or webhook timings. */
export type TestMailOptions = Pick<MailOptions, "reports" | "log" | "webhookTimeoutMs" | "webhookPassIntervalMs" | "deliveryPassIntervalMs">;

/** The service's own timers wait this long: tests run delivery and webhook passes themselves unless they ask otherwise. */
const timersOffMs = 3_600_000;

export async function startTestMail(env: Record<string, string> = {}, options: TestMailOptions = {}): Promise<TestMail> {
  const dns = await TestDnsServer.start();
  const dataDir = mkdtempSync(join(tmpdir(), "mail-test-"));
  const clock = new TestClock();
  // Functional tests make many calls in a burst; the rate limit's own tests set it (test/mail/plans).
  const settings = parseMailSettings(
    { MAIL_ROOT_KEY: mailRootKey, MAIL_HOSTNAME: mailHostname, MAIL_DNS_SERVERS: dns.servers.join(","), MAIL_SMTP_PORT: "0", MAIL_SMTP_HOST: "127.0.0.1", MAIL_RATE_LIMIT_BURST: String(unlimitedBurst), ...env },
    null,
  );
  let url = "";
  const mail = await startMail(settings, dataDir, "", { now: clock.now, log: () => {}, apiUrl: () => url, deliveryPassIntervalMs: timersOffMs, webhookPassIntervalMs: timersOffMs, ...options });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => mail.handle(request) });
  url = `http://127.0.0.1:${server.port}`;
  const call = jsonCall(url, (key) => ({ authorization: `Bearer ${key}` }));
  return {
    url,
    mail,
    dns,
    clock,
    call,
    async tenant(name = "Acme") {
      const created = await call("POST", "/v1/tenants", { key: mailRootKey, body: { name } });
      return { id: created.body.tenant.id, key: created.body.api_key.token };
    },
    async close() {
      server.stop(true);
      await mail.close();
      await dns.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** startTestMail on a PostgreSQL server of its own (MAIL_DATABASE_URL), which close() stops too. */
export async function startTestMailOnPostgres(env: Record<string, string> = {}, options: TestMailOptions = {}): Promise<TestMail> {
  const postgres = await startTestPostgres();
  const mail = await startTestMail({ MAIL_DATABASE_URL: postgres.url, ...env }, options);
  return {
    ...mail,
    async close() {
      await mail.close();
      await postgres.close();
    },
  };
}
