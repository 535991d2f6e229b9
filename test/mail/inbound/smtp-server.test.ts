// The inbound server at the protocol level: its greeting and extensions, which recipients it
// takes (receiving domains, return paths) and refuses (everything else: not a relay), and its
// limits at their edges (SIZE at MAIL FROM and the bytes of DATA, recipients per message).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { inboundConnectionsMax, inboundMessageBytesMax, inboundRecipientsMax, refusedRecipientText } from "../../../server/mail/inbound/smtp-server.ts";
import { mailHostname, startTestMail, type TestMail } from "../harness.ts";
import { SmtpDialog } from "../helpers/smtp-dialog.ts";
import { addDomain } from "./fixture.ts";

let mail: TestMail;
let key: string;
beforeAll(async () => {
  mail = await startTestMail();
  key = (await mail.tenant()).key;
  await addDomain(mail, key, "in.acme-example.com", { receiving: true });
  await addDomain(mail, key, "quiet.acme-example.com", { receiving: false });
  await addDomain(mail, key, "pending.acme-example.com", { receiving: true, verify: false });
});
afterAll(async () => {
  await mail.close();
});

const refused = `550 5.1.1 ${refusedRecipientText}`;

async function session() {
  const { dialog, greeting } = await SmtpDialog.open(mail.mail.smtpPort!);
  const ehlo = await dialog.command("EHLO mta.sender.test");
  return { dialog, greeting, ehlo };
}

/** A message of exactly `bytes` bytes: headers, then lines of `x` ending in CRLF. */
function messageOf(bytes: number): Buffer {
  const head = "From: a@sender.test\r\nTo: b@in.acme-example.com\r\nSubject: size\r\n\r\n";
  const line = `${"x".repeat(998)}\r\n`;
  let body = line.repeat(Math.floor((bytes - head.length) / line.length));
  const rest = bytes - head.length - body.length;
  if (rest > 0) body += rest >= 2 ? `${"y".repeat(rest - 2)}\r\n` : "";
  const message = Buffer.from(head + body, "latin1");
  if (message.length !== bytes) throw new Error(`made ${message.length} bytes, not ${bytes}`);
  return message;
}

const stored = async () => (await mail.mail.ctx.database.sql`SELECT COUNT(*) AS n FROM mail_inbound`)[0].n as number;

test("the greeting names MAIL_HOSTNAME; EHLO offers SIZE with the limit, no AUTH and no STARTTLS without a certificate", async () => {
  const { dialog, greeting, ehlo } = await session();
  expect(greeting).toBe(`220 ${mailHostname} ESMTP ready`);
  const extensions = ehlo.split("\n").map((line) => line.slice(4));
  expect(extensions[0]).toStartWith(`${mailHostname} Nice to meet you`);
  expect(extensions).toContain(`SIZE ${inboundMessageBytesMax}`);
  expect(extensions.some((extension) => /^(AUTH|STARTTLS)/.test(extension))).toBe(false);
  expect(await dialog.command("AUTH PLAIN AGhpAHBhc3M=")).toBe("500 5.5.2 Error: command not recognized");
  dialog.close();
});

test("recipients: any local part at a verified receiving domain (any case) and at its return path; everything else 550 5.1.1", async () => {
  const { dialog } = await session();
  expect(await dialog.command("MAIL FROM:<someone@sender.test>")).toBe("250 2.1.0 Accepted");
  const answers: Record<string, string> = {};
  for (const address of [
    "anyone@in.acme-example.com",
    "Support@IN.Acme-Example.COM",
    "bounce+0e7c2a40-5d1e-4c55-9d0e-2b8c7d3f9a11@bounces.in.acme-example.com",
    "whatever@BOUNCES.quiet.acme-example.com",
    "someone@quiet.acme-example.com",
    "someone@pending.acme-example.com",
    "bounce+x@bounces.pending.acme-example.com",
    "someone@unknown-example.org",
    "someone@sub.in.acme-example.com",
    "someone@gmail.com",
    "no-domain",
    "x@in.acme-example.com:25",
    "x@in.acme-example.com%evil.example",
  ]) {
    answers[address] = await dialog.command(`RCPT TO:<${address}>`);
  }
  expect(answers).toEqual({
    "anyone@in.acme-example.com": "250 2.1.5 Accepted",
    "Support@IN.Acme-Example.COM": "250 2.1.5 Accepted",
    "bounce+0e7c2a40-5d1e-4c55-9d0e-2b8c7d3f9a11@bounces.in.acme-example.com": "250 2.1.5 Accepted",
    "whatever@BOUNCES.quiet.acme-example.com": "250 2.1.5 Accepted",
    "someone@quiet.acme-example.com": refused,
    "someone@pending.acme-example.com": refused,
    "bounce+x@bounces.pending.acme-example.com": refused,
    "someone@unknown-example.org": refused,
    "someone@sub.in.acme-example.com": refused,
    "someone@gmail.com": refused,
    // Not addresses at all: smtp-server refuses them before we look.
    "no-domain": "501 5.1.3 Error: Bad recipient address syntax",
    "x@in.acme-example.com:25": "501 5.1.3 Error: Bad recipient address syntax",
    "x@in.acme-example.com%evil.example": "501 5.1.3 Error: Bad recipient address syntax",
  });
  dialog.close();
});

test("a recipient whose domain was verified and then failed still takes return-path mail, not receiving mail", async () => {
  const domain = await addDomain(mail, key, "lapsed.acme-example.com", { receiving: true });
  await mail.mail.ctx.database.sql`UPDATE mail_domains SET status = 'failed' WHERE id = ${domain.id}`;
  const { dialog } = await session();
  await dialog.command("MAIL FROM:<>");
  expect(await dialog.command("RCPT TO:<bounce+x@bounces.lapsed.acme-example.com>")).toBe("250 2.1.5 Accepted");
  expect(await dialog.command("RCPT TO:<x@lapsed.acme-example.com>")).toBe(refused);
  dialog.close();
});

test(`SIZE at MAIL FROM: ${inboundMessageBytesMax} bytes are accepted, one more is 552 5.3.4`, async () => {
  const { dialog } = await session();
  expect(await dialog.command(`MAIL FROM:<a@sender.test> SIZE=${inboundMessageBytesMax}`)).toBe("250 2.1.0 Accepted");
  await dialog.command("RSET");
  expect(await dialog.command(`MAIL FROM:<a@sender.test> SIZE=${inboundMessageBytesMax + 1}`)).toBe(`552 5.3.4 Error: message exceeds fixed maximum message size ${inboundMessageBytesMax}`);
  dialog.close();
});

test("DATA of exactly the limit is stored byte for byte; one byte more is 552 5.3.4 and nothing is stored", async () => {
  const before = await stored();
  const { dialog } = await session();
  await dialog.command("MAIL FROM:<a@sender.test>");
  await dialog.command("RCPT TO:<b@in.acme-example.com>");
  const atLimit = messageOf(inboundMessageBytesMax);
  expect(await dialog.data(atLimit)).toEqual({ start: "354 End data with <CR><LF>.<CR><LF>", end: "250 2.6.0 OK: message queued" });
  expect(await stored()).toBe(before + 1);
  const [row] = await mail.mail.ctx.database.sql`SELECT id, size_bytes FROM mail_inbound ORDER BY id DESC LIMIT 1`;
  expect(Number(row.size_bytes)).toBe(inboundMessageBytesMax);
  const raw = await mail.mail.ctx.database.sql`SELECT raw FROM mail_inbound WHERE id = ${row.id}`;
  expect(Buffer.from(raw[0].raw, "latin1").equals(atLimit)).toBe(true);

  await dialog.command("MAIL FROM:<a@sender.test>");
  await dialog.command("RCPT TO:<b@in.acme-example.com>");
  expect((await dialog.data(messageOf(inboundMessageBytesMax + 1))).end).toBe(`552 5.3.4 Error: message exceeds fixed maximum message size ${inboundMessageBytesMax}`);
  expect(await stored()).toBe(before + 1);
  dialog.close();
});

test(`${inboundRecipientsMax} recipients are accepted, the next is 452 4.5.3`, async () => {
  const { dialog } = await session();
  await dialog.command("MAIL FROM:<a@sender.test>");
  const answers = [];
  for (let index = 0; index <= inboundRecipientsMax; index++) answers.push(await dialog.command(`RCPT TO:<user${index}@in.acme-example.com>`));
  expect(answers.slice(0, inboundRecipientsMax).every((answer) => answer === "250 2.1.5 Accepted")).toBe(true);
  expect(answers[inboundRecipientsMax]).toBe("452 4.5.3 Error: too many recipients");
  // A recipient already given does not count twice.
  expect(await dialog.command("RCPT TO:<user0@in.acme-example.com>")).toBe("250 2.1.5 Accepted");
  dialog.close();
});

test("a message with a NUL byte is refused (554), not stored", async () => {
  const before = await stored();
  const { dialog } = await session();
  await dialog.command("MAIL FROM:<a@sender.test>");
  await dialog.command("RCPT TO:<b@in.acme-example.com>");
  expect((await dialog.data(Buffer.from("Subject: nul\r\n\r\nbefore\u0000after\r\n", "latin1"))).end).toBe("554 5.6.0 the message contains NUL bytes, which RFC 5322 does not allow");
  expect(await stored()).toBe(before);
  dialog.close();
});

test(`${inboundConnectionsMax} connections are served at once; the next is told 421 and closed`, async () => {
  const open = await Promise.all(Array.from({ length: inboundConnectionsMax }, () => SmtpDialog.open(mail.mail.smtpPort!)));
  expect(open.every(({ greeting }) => greeting === `220 ${mailHostname} ESMTP ready`)).toBe(true);
  const extra = await SmtpDialog.open(mail.mail.smtpPort!);
  expect(extra.greeting).toBe(`421 ${mailHostname} Too many connected clients, try again in a moment`);
  expect(await extra.dialog.reply()).toBe("");
  for (const { dialog } of open) dialog.close();
});
