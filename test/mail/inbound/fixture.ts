// What the inbound tests share: a tenant's domain made verified through the real check (its
// records published in the test DNS server), and a message sent with nodemailer's SMTP client.
import nodemailer from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import type { TestMail } from "../harness.ts";

type DomainBody = { id: string; name: string; records: { name: string; type: string; value: string; priority: number | null }[] };

/** Adds `name` for the tenant and, unless `verify` is false, publishes its records and verifies it. */
export async function addDomain(mail: TestMail, key: string, name: string, options: { receiving: boolean; verify?: boolean }): Promise<DomainBody> {
  const added = await mail.call("POST", "/v1/domains", { key, body: { name, receiving: options.receiving } });
  if (added.status !== 201) throw new Error(`domain not added: ${JSON.stringify(added.body)}`);
  if (options.verify === false) return added.body;
  const byName = new Map<string, { TXT: string[]; MX: { exchange: string; priority: number }[] }>();
  for (const record of added.body.records as DomainBody["records"]) {
    const entry = byName.get(record.name) ?? { TXT: [], MX: [] };
    if (record.type === "TXT") entry.TXT.push(record.value);
    else entry.MX.push({ exchange: record.value, priority: record.priority! });
    byName.set(record.name, entry);
  }
  for (const [recordName, records] of byName) mail.dns.set(recordName, records);
  const verified = await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key });
  if (verified.body.status !== "verified") throw new Error(`domain not verified: ${JSON.stringify(verified.body)}`);
  return verified.body;
}

/** Sends through our inbound server as a remote MTA would: no AUTH, and no TLS unless `requireTLS` (any certificate accepted, as MTAs do). */
export async function sendInbound(mail: TestMail, message: Mail.Options, options: { requireTLS?: boolean } = {}) {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: mail.mail.smtpPort!,
    secure: false,
    ...(options.requireTLS ? { requireTLS: true, tls: { rejectUnauthorized: false } } : { ignoreTLS: true }),
    name: "mta.sender.test",
  });
  try {
    return await transport.sendMail(message);
  } finally {
    transport.close();
  }
}
