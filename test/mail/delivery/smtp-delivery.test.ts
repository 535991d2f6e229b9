import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { authenticate } from "mailauth";
import { simpleParser } from "mailparser";
import MailComposer from "nodemailer/lib/mail-composer";
import { createMailDnsResolver, type MailDnsResolver } from "../../../server/mail/delivery/mx.ts";
import { deliver, type DeliveryInput, type DeliveryResult } from "../../../server/mail/delivery/smtp-delivery.ts";
import type { DkimKey } from "../../../server/mail/delivery/dkim.ts";
import { TestDnsServer } from "../helpers/dns-server.ts";
import { SmtpReceiver } from "../helpers/smtp-receiver.ts";

const senderDomain = "sender.test";
const recipientDomain = "receiver.test";
const fastTimeouts = { connectMs: 2_000, greetingMs: 2_000, commandMs: 2_000, sessionMs: 5_000 };

let dnsServer: TestDnsServer;
let resolver: MailDnsResolver;
let receiver: SmtpReceiver;
let dkim: DkimKey;
let dkimTxtRecord: string;

beforeAll(async () => {
  dnsServer = await TestDnsServer.start();
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  dkim = { domainName: senderDomain, keySelector: "mail2026", privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString() };
  dkimTxtRecord = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`;
  receiver = await SmtpReceiver.start({ hostName: `mx.${recipientDomain}` });
});
afterAll(async () => {
  await receiver.close();
  await dnsServer.close();
});
beforeEach(() => {
  dnsServer.clear();
  dnsServer.set(`${dkim.keySelector}._domainkey.${senderDomain}`, { TXT: [dkimTxtRecord] });
  dnsServer.set(recipientDomain, { MX: [{ exchange: `mx.${recipientDomain}`, priority: 10 }] });
  dnsServer.set(`mx.${recipientDomain}`, { A: ["127.0.0.1"] });
  // each test gets a resolver of its own, since Bun's keeps the answers it has had
  resolver = createMailDnsResolver(dnsServer.servers);
});
afterEach(() => receiver.reset());

async function compose(to: string[], extra: Record<string, unknown> = {}): Promise<Buffer> {
  return new MailComposer({
    from: `Sender <hello@${senderDomain}>`,
    to,
    subject: "Your receipt",
    text: "Thanks for your order.",
    html: "<p>Thanks for your order.</p>",
    messageId: `<receipt-1@${senderDomain}>`,
    date: new Date("2026-11-27T10:00:00Z"),
    ...extra,
  })
    .compile()
    .build();
}

async function deliverTo(recipients: string[], overrides: Partial<DeliveryInput> = {}): Promise<DeliveryResult> {
  return deliver({
    message: await compose(recipients),
    dkim,
    envelopeFrom: `bounces+abc@${senderDomain}`,
    recipients,
    heloName: "out.sender.test",
    route: { mode: "direct", resolver, port: receiver.port },
    timeouts: fastTimeouts,
    ...overrides,
  });
}

const texts = (result: DeliveryResult, from: "client" | "server" | "event") =>
  result.transcript.entries.filter((entry) => entry.from === from).map((entry) => entry.text);

describe("direct delivery through the MX", () => {
  test("the message arrives at the MX, over STARTTLS, and is reported delivered", async () => {
    const result = await deliverTo([`alice@${recipientDomain}`]);
    expect(result.recipients).toEqual([
      {
        recipient: `alice@${recipientDomain}`,
        outcome: "delivered",
        code: 250,
        enhancedCode: null,
        text: expect.stringMatching(/^OK: message queued/),
        mxHost: `mx.${recipientDomain}`,
        reason: null,
      },
    ]);
    expect({ tls: result.tls, tlsProtocol: result.tlsProtocol, answeredBy: result.answeredBy }).toEqual({
      tls: true,
      tlsProtocol: "TLSv1.3",
      answeredBy: { hostName: `mx.${recipientDomain}`, address: "127.0.0.1", port: receiver.port },
    });
    expect(receiver.received.map(({ mailFrom, recipients, secure }) => ({ mailFrom, recipients, secure }))).toEqual([
      { mailFrom: `bounces+abc@${senderDomain}`, recipients: [`alice@${recipientDomain}`], secure: true },
    ]);
    const client = texts(result, "client");
    expect(client.slice(0, 3)).toEqual(["EHLO out.sender.test", "STARTTLS", "EHLO out.sender.test"]);
    expect(client).toContain(`RCPT TO:<alice@${recipientDomain}>`);
    // the message data is not in the transcript, only its size
    expect(result.transcript.entries.some((entry) => entry.text.includes("Thanks for your order"))).toBe(false);
    expect(texts(result, "event").some((text) => /^<\d+ bytes encoded mime message/.test(text))).toBe(true);
    expect(result.transcript.entries.every((entry) => !Number.isNaN(Date.parse(entry.at)))).toBe(true);
  });

  test("the delivered message carries a DKIM signature that mailauth verifies against the published key", async () => {
    await deliverTo([`alice@${recipientDomain}`]);
    const [received] = receiver.received;
    const { dkim: verification } = await authenticate(received!.raw, {
      resolver: dnsServer.resolve,
      ip: "127.0.0.1",
      helo: "out.sender.test",
      sender: `bounces+abc@${senderDomain}`,
      mta: `mx.${recipientDomain}`,
      disableArc: true,
      disableDmarc: true,
      disableBimi: true,
    });
    // mailauth's types name these algorithm and canonicalization; its results carry algo and format
    const results = verification.results as ((typeof verification.results)[number] & { algo?: string; format?: string })[];
    expect(
      results.map((result) => ({
        status: result.status.result,
        domain: result.signingDomain,
        selector: result.selector,
        algorithm: result.algo,
        canonicalization: result.format,
      })),
    ).toEqual([{ status: "pass", domain: senderDomain, selector: dkim.keySelector, algorithm: "rsa-sha256", canonicalization: "relaxed/relaxed" }]);
    // the 2048-bit key's record is longer than one 255-byte TXT string
    expect(dkimTxtRecord.length).toBeGreaterThan(255);
  });

  test("a message altered after signing fails verification", async () => {
    await deliverTo([`alice@${recipientDomain}`]);
    const tampered = Buffer.from(receiver.received[0]!.raw.toString("latin1").replace("Your receipt", "Your refund"), "latin1");
    const { dkim: verification } = await authenticate(tampered, { resolver: dnsServer.resolve, ip: "127.0.0.1", helo: "x", sender: `a@${senderDomain}`, disableArc: true, disableDmarc: true, disableBimi: true });
    expect(verification.results.map((result) => result.status.result)).toEqual(["fail"]);
  });

  test("attachments arrive byte-identical", async () => {
    const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));
    const recipients = [`alice@${recipientDomain}`];
    const message = await compose(recipients, {
      attachments: [
        { filename: "invoice.pdf", content: binary, contentType: "application/pdf" },
        { filename: "notes.txt", content: "line one\r\n.leading dot\r\nline three\r\n", contentType: "text/plain" },
      ],
    });
    const result = await deliverTo(recipients, { message });
    expect(result.recipients.map((recipient) => recipient.outcome)).toEqual(["delivered"]);
    const parsed = await simpleParser(receiver.received[0]!.raw);
    expect(parsed.attachments.map((attachment) => ({ filename: attachment.filename, contentType: attachment.contentType, content: attachment.content }))).toEqual([
      { filename: "invoice.pdf", contentType: "application/pdf", content: binary },
      { filename: "notes.txt", contentType: "text/plain", content: Buffer.from("line one\r\n.leading dot\r\nline three\r\n") },
    ]);
  });
});

describe("outcomes per recipient", () => {
  const [ok, unknown, full, busy] = ["ok", "unknown", "full", "busy"].map((name) => `${name}@${recipientDomain}`) as [string, string, string, string];

  test("250, 550 5.1.1, 552 5.2.2 and 451 4.3.0 at RCPT in one transaction are told apart", async () => {
    receiver.answerRcpt(unknown, { code: 550, text: "5.1.1 <unknown@receiver.test>: Recipient address rejected: User unknown" });
    receiver.answerRcpt(full, { code: 552, text: "5.2.2 Mailbox full" });
    receiver.answerRcpt(busy, { code: 451, text: "4.3.0 Temporary lookup failure" });
    const result = await deliverTo([ok, unknown, full, busy]);
    const mxHost = `mx.${recipientDomain}`;
    expect(result.recipients).toEqual([
      { recipient: ok, outcome: "delivered", code: 250, enhancedCode: null, text: "OK: message queued", mxHost, reason: null },
      { recipient: unknown, outcome: "bounced", code: 550, enhancedCode: "5.1.1", text: "<unknown@receiver.test>: Recipient address rejected: User unknown", mxHost, reason: null },
      { recipient: full, outcome: "bounced", code: 552, enhancedCode: "5.2.2", text: "Mailbox full", mxHost, reason: null },
      { recipient: busy, outcome: "deferred", code: 451, enhancedCode: "4.3.0", text: "Temporary lookup failure", mxHost, reason: null },
    ]);
    expect(receiver.received.map((message) => message.recipients)).toEqual([[ok]]);
    expect(texts(result, "server")).toContain("550 5.1.1 <unknown@receiver.test>: Recipient address rejected: User unknown");
  });

  test("421 4.7.0 at RCPT closes the session: nobody got the message, everyone is deferred with the 421", async () => {
    receiver.answerRcpt(busy, { code: 421, text: "4.7.0 Too many connections, closing" });
    const result = await deliverTo([ok, busy]);
    const deferred = { outcome: "deferred" as const, code: 421, enhancedCode: "4.7.0", text: "Too many connections, closing", mxHost: `mx.${recipientDomain}` };
    expect(result.recipients).toEqual([
      { recipient: ok, ...deferred, reason: "connection_lost" },
      { recipient: busy, ...deferred, reason: "connection_lost" },
    ]);
    expect(receiver.received).toEqual([]);
  });

  test("421 at RCPT moves on to the next MX host, which delivers", async () => {
    dnsServer.set(recipientDomain, {
      MX: [
        { exchange: `mx.${recipientDomain}`, priority: 10 },
        { exchange: `mx2.${recipientDomain}`, priority: 20 },
      ],
    });
    // both MX names lead to the same receiver, which closes the first session only
    dnsServer.set(`mx2.${recipientDomain}`, { A: ["127.0.0.1"] });
    receiver.answerRcpt(busy, { code: 421, text: "4.7.0 Try again" }, 1);
    const result = await deliverTo([ok, busy]);
    const mxHost = `mx2.${recipientDomain}`;
    expect(result.recipients).toEqual([
      { recipient: ok, outcome: "delivered", code: 250, enhancedCode: null, text: "OK: message queued", mxHost, reason: null },
      { recipient: busy, outcome: "delivered", code: 250, enhancedCode: null, text: "OK: message queued", mxHost, reason: null },
    ]);
    expect(result.hostsTried.map(({ hostName, failure }) => ({ hostName, failure }))).toEqual([
      { hostName: `mx.${recipientDomain}`, failure: "Connection closed unexpectedly" },
      { hostName: mxHost, failure: null },
    ]);
    expect(receiver.received.map((message) => message.recipients)).toEqual([[ok, busy]]);
  });

  test("554 5.7.1 at the end of DATA bounces the recipients RCPT accepted; the refused ones keep their own reply", async () => {
    receiver.answerRcpt(unknown, { code: 550, text: "5.1.1 User unknown" });
    receiver.answerData({ code: 554, text: "5.7.1 Message rejected as spam" });
    const result = await deliverTo([ok, unknown]);
    const mxHost = `mx.${recipientDomain}`;
    expect(result.recipients).toEqual([
      { recipient: ok, outcome: "bounced", code: 554, enhancedCode: "5.7.1", text: "Message rejected as spam", mxHost, reason: null },
      { recipient: unknown, outcome: "bounced", code: 550, enhancedCode: "5.1.1", text: "User unknown", mxHost, reason: null },
    ]);
  });

  test("451 at the end of DATA defers", async () => {
    receiver.answerData({ code: 451, text: "4.3.0 Queue full" });
    const result = await deliverTo([ok]);
    expect(result.recipients).toEqual([{ recipient: ok, outcome: "deferred", code: 451, enhancedCode: "4.3.0", text: "Queue full", mxHost: `mx.${recipientDomain}`, reason: null }]);
  });

  test("an address that is not one is bounced without a connection; the others are delivered", async () => {
    const hostile = `evil\r\nRCPT TO:<victim@elsewhere.test>@${recipientDomain}`;
    const result = await deliverTo([ok, hostile, "no-domain"]);
    const invalid = { outcome: "bounced", code: null, enhancedCode: null, text: "not a deliverable address", mxHost: null, reason: "invalid_address" } as const;
    expect(result.recipients).toEqual([
      { recipient: ok, outcome: "delivered", code: 250, enhancedCode: null, text: "OK: message queued", mxHost: `mx.${recipientDomain}`, reason: null },
      { recipient: hostile, ...invalid },
      { recipient: "no-domain", ...invalid },
    ]);
    expect(receiver.rcptAttempts).toEqual([ok]);
  });
});

describe("routing and connection failures", () => {
  const alice = `alice@${recipientDomain}`;

  test("a domain without MX is delivered to its own address (A fallback)", async () => {
    dnsServer.set(recipientDomain, { A: ["127.0.0.1"] });
    const result = await deliverTo([alice]);
    expect(result.recipients).toEqual([{ recipient: alice, outcome: "delivered", code: 250, enhancedCode: null, text: "OK: message queued", mxHost: recipientDomain, reason: null }]);
    expect(receiver.received.length).toBe(1);
  });

  test("a null MX bounces without a connection", async () => {
    dnsServer.set(recipientDomain, { MX: [{ exchange: "", priority: 0 }] });
    const result = await deliverTo([alice]);
    expect(result.recipients).toEqual([
      { recipient: alice, outcome: "bounced", code: null, enhancedCode: null, text: `${recipientDomain} accepts no mail (null MX, RFC 7505)`, mxHost: null, reason: "null_mx" },
    ]);
    expect({ connections: receiver.connections, hostsTried: result.hostsTried, answeredBy: result.answeredBy, tls: result.tls }).toEqual({ connections: 0, hostsTried: [], answeredBy: null, tls: false });
  });

  test("NXDOMAIN bounces: the domain is not found", async () => {
    const result = await deliverTo(["bob@nowhere.test"]);
    expect(result.recipients).toEqual([
      { recipient: "bob@nowhere.test", outcome: "bounced", code: null, enhancedCode: null, text: "nowhere.test has no MX, A or AAAA record", mxHost: null, reason: "domain_not_found" },
    ]);
  });

  test("SERVFAIL defers", async () => {
    dnsServer.fail(recipientDomain, "SERVFAIL");
    const result = await deliverTo([alice]);
    expect(result.recipients).toEqual([
      { recipient: alice, outcome: "deferred", code: null, enhancedCode: null, text: `DNS lookup of the MX records of ${recipientDomain} failed: ESERVFAIL`, mxHost: null, reason: "dns_temporary_failure" },
    ]);
  });

  test("a refused connection moves on to the next MX", async () => {
    dnsServer.set(recipientDomain, {
      MX: [
        { exchange: `dead.${recipientDomain}`, priority: 5 },
        { exchange: `mx.${recipientDomain}`, priority: 10 },
      ],
    });
    // the receiver listens on 127.0.0.1 only, so the same port on 127.0.0.2 refuses
    dnsServer.set(`dead.${recipientDomain}`, { A: ["127.0.0.2"] });
    const result = await deliverTo([alice]);
    expect(result.recipients.map(({ outcome, mxHost }) => ({ outcome, mxHost }))).toEqual([{ outcome: "delivered", mxHost: `mx.${recipientDomain}` }]);
    expect(result.hostsTried.map(({ hostName, address, failure }) => ({ hostName, address, failed: failure !== null }))).toEqual([
      { hostName: `dead.${recipientDomain}`, address: "127.0.0.2", failed: true },
      { hostName: `mx.${recipientDomain}`, address: "127.0.0.1", failed: false },
    ]);
    expect(result.hostsTried[0]!.failure).toContain("ECONNREFUSED");
  });

  test("no MX accepting a connection defers with connection_failed", async () => {
    dnsServer.set(recipientDomain, {
      MX: [
        { exchange: `dead1.${recipientDomain}`, priority: 5 },
        { exchange: `dead2.${recipientDomain}`, priority: 10 },
      ],
    });
    dnsServer.set(`dead1.${recipientDomain}`, { A: ["127.0.0.2"] });
    dnsServer.set(`dead2.${recipientDomain}`, { A: ["127.0.0.3"] });
    const result = await deliverTo([alice]);
    expect(result.recipients).toEqual([
      { recipient: alice, outcome: "deferred", code: null, enhancedCode: null, text: expect.stringContaining("ECONNREFUSED"), mxHost: `dead2.${recipientDomain}`, reason: "connection_failed" },
    ]);
    expect({ hosts: result.hostsTried.map((host) => host.hostName), answeredBy: result.answeredBy }).toEqual({
      hosts: [`dead1.${recipientDomain}`, `dead2.${recipientDomain}`],
      answeredBy: null,
    });
  });

  test("an MX that offers no STARTTLS gets the message in plaintext, and the transcript says so", async () => {
    const plain = await SmtpReceiver.start({ startTls: false });
    try {
      const result = await deliverTo([alice], { route: { mode: "direct", resolver, port: plain.port } });
      expect({ outcome: result.recipients[0]!.outcome, tls: result.tls, tlsProtocol: result.tlsProtocol }).toEqual({ outcome: "delivered", tls: false, tlsProtocol: null });
      expect(texts(result, "client")).not.toContain("STARTTLS");
      expect(texts(result, "event")).toContain("no TLS");
      expect(plain.received.map((message) => message.secure)).toEqual([false]);
    } finally {
      await plain.close();
    }
  });
});
