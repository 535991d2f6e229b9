// POST /v1/emails end to end: the email is queued, delivered by SMTP to the recipient domain's
// MX (a real server on loopback found through the local DNS server), DKIM-signed so that
// mailauth verifies it against the published record, with attachments byte-identical, Bcc
// only in the envelope, and every hop and the SMTP conversation readable afterwards.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { authenticate } from "mailauth";
import { simpleParser } from "mailparser";
import { mailHostname } from "../harness.ts";
import { recipientMx, startClean, startSendingTenant, type SendingFixture, type SendingTenant } from "./fixture.ts";

let fixture: SendingFixture;
let key: string;
let selector: string;
let domainId: string;
beforeAll(async () => {
  let domain: SendingTenant["domain"];
  ({ fixture, key, domain } = await startSendingTenant());
  ({ selector, id: domainId } = domain);
});
afterAll(() => fixture.close());
beforeEach(() => startClean(fixture));

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

test("an email is queued, delivered signed with the domain's DKIM key, attachments intact, and its hops are kept", async () => {
  const { mail, receiver } = fixture;
  const pdf = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 37) % 256));
  const sent = await mail.call("POST", "/v1/emails", {
    key,
    body: {
      from: "Acme <hello@send.acme.test>",
      to: ["Ana <ana@example.net>"],
      bcc: ["audit@example.net"],
      subject: "Your receipt",
      html: "<p>Thanks for your order.</p>",
      attachments: [{ filename: "receipt.pdf", content: pdf.toString("base64"), content_type: "application/pdf" }],
      tags: [{ name: "category", value: "receipt" }],
    },
  });
  const id = sent.body.id as string;
  expect(sent.status).toBe(200);
  expect(sent.body).toEqual({ id: uuid, status: "queued" });

  // the send itself started a pass: this waits for it (or finds nothing left)
  await mail.mail.deliverQueued();
  expect(receiver.received.length).toBe(1);
  const [message] = receiver.received;
  expect(message!.mailFrom).toBe(`bounce+${id}@bounces.send.acme.test`);
  expect(message!.recipients.sort()).toEqual(["ana@example.net", "audit@example.net"]);
  expect(message!.secure).toBe(true);

  const authentication = await authenticate(message!.raw, { resolver: mail.dns.resolve, ip: "127.0.0.1", helo: mailHostname, sender: message!.mailFrom, mta: recipientMx });
  expect(authentication.dkim.results.map((result: any) => [result.signingDomain, result.selector, result.status.result])).toEqual([["send.acme.test", selector, "pass"]]);

  const parsed = await simpleParser(message!.raw);
  expect(parsed.messageId).toBe(`<${id}@send.acme.test>`);
  expect(parsed.headers.has("bcc")).toBe(false);
  expect(parsed.subject).toBe("Your receipt");
  expect(parsed.text?.trim()).toBe("Thanks for your order.");
  expect(parsed.attachments.map((attachment) => [attachment.filename, attachment.contentType, Buffer.compare(attachment.content, pdf)])).toEqual([["receipt.pdf", "application/pdf", 0]]);

  const detail = await mail.call("GET", `/v1/emails/${id}`, { key });
  expect(detail.status).toBe(200);
  const summary = {
    email_id: id,
    message_id: `<${id}@send.acme.test>`,
    from: "Acme <hello@send.acme.test>",
    to: ["ana@example.net"],
    cc: [],
    subject: "Your receipt",
    tags: { category: "receipt" },
    created_at: iso,
  };
  const delivered = (recipient: string) => ({
    id: expect.stringMatching(/^evt_/),
    type: "email.delivered",
    recipient,
    created_at: iso,
    data: { ...summary, recipient, mx_host: recipientMx, smtp: { code: 250, enhanced_code: null, text: expect.stringMatching(/^OK: message queued|Accepted/) }, tls: true },
  });
  expect(detail.body).toEqual({
    id,
    from: "Acme <hello@send.acme.test>",
    to: ["ana@example.net"],
    cc: [],
    bcc: ["audit@example.net"],
    reply_to: [],
    subject: "Your receipt",
    tags: [{ name: "category", value: "receipt" }],
    template_id: null,
    message_id: `<${id}@send.acme.test>`,
    status: "delivered",
    size_bytes: expect.any(Number),
    scheduled_at: null,
    created_at: iso,
    updated_at: iso,
    recipients: ["ana@example.net", "audit@example.net"].map((address) => ({
      address,
      status: "delivered",
      attempts: 1,
      next_attempt_at: null,
      last_answer: { code: 250, enhanced_code: null, text: expect.any(String), mx_host: recipientMx },
      bounce_class: null,
      action: null,
      updated_at: iso,
    })),
    events: [
      { id: expect.stringMatching(/^evt_/), type: "email.sent", recipient: null, created_at: iso, data: summary },
      ...[delivered("ana@example.net"), delivered("audit@example.net")],
    ],
    attempts: [
      {
        id: expect.stringMatching(/^att_/),
        domain: "example.net",
        started_at: iso,
        duration_ms: expect.any(Number),
        tls: true,
        answered_by: { host: recipientMx, address: "127.0.0.1", port: receiver.port },
        results: ["ana@example.net", "audit@example.net"].map((recipient) => ({ recipient, outcome: "delivered", code: 250, enhanced_code: null, text: expect.any(String), mx_host: recipientMx, reason: null })),
        transcript: { entries: expect.any(Array), omittedEntries: 0 },
      },
    ],
  });
  const transcript = detail.body.attempts[0].transcript.entries.map((entry: { from: string; text: string }) => `${entry.from}: ${entry.text}`).join("\n");
  expect(transcript).toContain("client: STARTTLS");
  expect(transcript).toContain(`client: MAIL FROM:<bounce+${id}@bounces.send.acme.test>`);
  expect(transcript).toContain("client: RCPT TO:<audit@example.net>");
  expect(detail.body.size_bytes).toBeGreaterThan(4000);
  expect(domainId).toBeString();
});
