// Sending end to end on loopback: the mail API (startTestMail), a real SMTP server playing the
// recipients' MX (its domain's MX record in the local DNS server points at 127.0.0.1, and the
// service delivers to the receiver's port), and a sending domain whose records are published
// and verified.
import type { TestDnsServer } from "../helpers/dns-server.ts";
import { SmtpReceiver } from "../helpers/smtp-receiver.ts";
import { startTestMail, type TestMail, type TestMailOptions } from "../harness.ts";

export const recipientDomain = "example.net";
export const recipientMx = "mx.example.net";

export interface SendingFixture {
  mail: TestMail;
  receiver: SmtpReceiver;
  close(): Promise<void>;
}

export async function startSendingFixture(env: Record<string, string> = {}, options: TestMailOptions = {}): Promise<SendingFixture> {
  const receiver = await SmtpReceiver.start({ hostName: recipientMx });
  const mail = await startTestMail({ MAIL_DELIVERY_PORT: String(receiver.port), ...env }, options);
  mail.dns.set(recipientDomain, { MX: [{ exchange: recipientMx, priority: 10 }] });
  mail.dns.set(recipientMx, { A: ["127.0.0.1"] });
  return {
    mail,
    receiver,
    async close() {
      await mail.close();
      await receiver.close();
    },
  };
}

export type DomainRecord = { name: string; type: string; value: string; priority: number | null };

/** Publishes every record a domain answers (as its owner would) in the local DNS server. */
export function publishDomainRecords(dns: TestDnsServer, records: DomainRecord[]): void {
  const byName = new Map<string, { TXT: string[]; MX: { exchange: string; priority: number }[] }>();
  for (const record of records) {
    const entry = byName.get(record.name) ?? { TXT: [], MX: [] };
    if (record.type === "TXT") entry.TXT.push(record.value);
    else entry.MX.push({ exchange: record.value, priority: record.priority! });
    byName.set(record.name, entry);
  }
  for (const [recordName, entry] of byName) dns.set(recordName, entry);
}

/** Adds `name` for the tenant, publishes its records in the local DNS server and verifies it. */
export async function verifiedDomain(mail: TestMail, key: string, name: string): Promise<{ id: string; selector: string; dkimRecord: string }> {
  const added = await mail.call("POST", "/v1/domains", { key, body: { name } });
  publishDomainRecords(mail.dns, added.body.records);
  const verified = await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key });
  if (verified.body.status !== "verified") throw new Error(`domain ${name} did not verify: ${JSON.stringify(verified.body)}`);
  return { id: added.body.id, selector: added.body.dkim_selector, dkimRecord: added.body.records[0].value };
}

/** The sending domain the tests send from, verified for their tenant. */
export const sendingDomain = "send.acme.test";

export interface SendingTenant {
  fixture: SendingFixture;
  key: string;
  tenantId: string;
  domain: { id: string; selector: string; dkimRecord: string };
}

/** The fixture with a tenant whose sending domain is verified: what each sending test file starts with. */
export async function startSendingTenant(env: Record<string, string> = {}, options: TestMailOptions = {}): Promise<SendingTenant> {
  const fixture = await startSendingFixture(env, options);
  const { key, id: tenantId } = await fixture.mail.tenant();
  return { fixture, key, tenantId, domain: await verifiedDomain(fixture.mail, key, sendingDomain) };
}

/** Before each test: what the previous test queued last is delivered, and the receiver forgets it, so counts start at zero. */
export async function startClean(fixture: SendingFixture): Promise<void> {
  await fixture.mail.mail.deliverQueued();
  fixture.receiver.reset();
}

/** A valid email from the sending domain; `overrides` replace fields. */
export const testEmail = (overrides: Record<string, unknown> = {}) => ({ from: `hello@${sendingDomain}`, to: [`ana@${recipientDomain}`], subject: "Hello", text: "Hi", ...overrides });
