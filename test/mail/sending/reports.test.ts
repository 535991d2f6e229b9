// Reports after delivery, sent over SMTP to our inbound server as a remote MTA or a mailbox
// provider would: a DSN for a delivered email bounces its recipient and suppresses the address
// (matched by the VERP return path, or by Message-ID alone), an ARF complaint marks the
// recipient complained and suppresses it, a repeated report changes nothing, a report for no
// email of ours is only logged; a suppressed address is then not sent to again.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { sendInbound } from "../inbound/fixture.ts";
import { startClean, startSendingTenant, type SendingFixture } from "./fixture.ts";

let fixture: SendingFixture;
let key: string;
const logs: string[] = [];
beforeAll(async () => ({ fixture, key } = await startSendingTenant({}, { log: (line) => logs.push(line) })));
afterAll(() => fixture.close());
beforeEach(() => startClean(fixture));

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");
const dsn = (to: string, messageId: string, recipient: string, status: string, diagnostic: string) =>
  crlf(`From: MAILER-DAEMON@relay.example.net
To: ${to}
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain

Your message could not be delivered.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; relay.example.net

Final-Recipient: rfc822; ${recipient}
Action: failed
Status: ${status}
Diagnostic-Code: smtp; ${diagnostic}

--b1
Content-Type: text/rfc822-headers

From: hello@send.acme.test
To: ${recipient}
Message-ID: ${messageId}

--b1--
`);
const arf = (to: string, messageId: string, recipient: string) =>
  crlf(`From: feedback@fbl.example.net
To: ${to}
Subject: FW: Hello
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="b2"

--b2
Content-Type: text/plain

This is an abuse report.

--b2
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: ExampleFBL/1.0
Version: 1
Original-Rcpt-To: <${recipient}>
Arrival-Date: Fri, 27 Nov 2026 10:00:01 +0000

--b2
Content-Type: message/rfc822

From: hello@send.acme.test
To: ${recipient}
Message-ID: ${messageId}
Subject: Hello

Hi

--b2--
`);

async function delivered(to: string[]): Promise<{ id: string; returnPath: string; messageId: string }> {
  const sent = await fixture.mail.call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", to, subject: "Hello", text: "Hi" } });
  await fixture.mail.mail.deliverQueued();
  const id = sent.body.id as string;
  return { id, returnPath: `bounce+${id}@bounces.send.acme.test`, messageId: `<${id}@send.acme.test>` };
}

const detail = async (id: string) => (await fixture.mail.call("GET", `/v1/emails/${id}`, { key })).body;
const hops = (email: any) => email.events.map((event: any) => [event.type, event.recipient]);

test("a DSN at the return path bounces the delivered recipient with its class and suppresses the address; a repeat changes nothing", async () => {
  const { mail } = fixture;
  const email = await delivered(["gone@example.net", "stays@example.net"]);
  const report = dsn(email.returnPath, email.messageId, "gone@example.net", "5.1.1", "550 5.1.1 <gone@example.net>: mailbox unavailable");
  await sendInbound(mail, { envelope: { from: "", to: [email.returnPath] }, raw: report });
  let shown = await detail(email.id);
  expect(shown.status).toBe("partially_delivered");
  expect(shown.recipients.map((recipient: any) => [recipient.address, recipient.status, recipient.bounce_class, recipient.action])).toEqual([
    ["gone@example.net", "bounced", "unknown_mailbox", "suppress"],
    ["stays@example.net", "delivered", null, null],
  ]);
  expect(hops(shown)).toEqual([["email.sent", null], ["email.delivered", "gone@example.net"], ["email.delivered", "stays@example.net"], ["email.bounced", "gone@example.net"]]);
  expect(shown.events[3].data).toMatchObject({ recipient: "gone@example.net", bounce_class: "unknown_mailbox", kind: "hard", action: "suppress", source: "report", reporting_mta: "relay.example.net", status: "5.1.1" });

  await sendInbound(mail, { envelope: { from: "", to: [email.returnPath] }, raw: report });
  shown = await detail(email.id);
  expect(shown.events.length).toBe(4);

  const suppressed = await mail.call("GET", "/v1/suppressions/gone@example.net", { key });
  expect(suppressed.body).toMatchObject({ address: "gone@example.net", reason: "hard_bounce", email_id: email.id, bounce_class: "unknown_mailbox" });
  const again = await mail.call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", to: ["gone@example.net"], subject: "Hello", text: "Hi" } });
  expect([again.status, again.body.error.code]).toEqual([422, "recipients_suppressed"]);
});

test("a DSN that quotes only the Message-ID, to another address at the return-path host, is matched too; a report for no email of ours is logged", async () => {
  const { mail } = fixture;
  const email = await delivered(["full@example.net"]);
  const report = dsn("postmaster@bounces.send.acme.test", email.messageId, "full@example.net", "5.2.2", "552 5.2.2 Mailbox full");
  await sendInbound(mail, { envelope: { from: "", to: ["postmaster@bounces.send.acme.test"] }, raw: report });
  const shown = await detail(email.id);
  expect(shown.recipients[0]).toMatchObject({ status: "bounced", bounce_class: "mailbox_full", action: "none" });
  expect((await mail.call("GET", "/v1/suppressions/full@example.net", { key })).status).toBe(404);

  logs.length = 0;
  const stray = "<00000000-0000-4000-8000-000000000000@send.acme.test>";
  await sendInbound(mail, { envelope: { from: "", to: ["postmaster@bounces.send.acme.test"] }, raw: dsn("postmaster@bounces.send.acme.test", stray, "x@example.net", "5.1.1", "550 no") });
  expect(logs.filter((line) => line.includes("matches none of its emails"))).toEqual([expect.stringMatching(/^mail: a bounce report for tenant \S+ at postmaster@bounces\.send\.acme\.test matches none of its emails$/)]);
});

test("an ARF complaint marks the recipient complained, suppresses it, and the address is not sent to again", async () => {
  const { mail, receiver } = fixture;
  const email = await delivered(["angry@example.net"]);
  await sendInbound(mail, { envelope: { from: "feedback@fbl.example.net", to: [email.returnPath] }, raw: arf(email.returnPath, email.messageId, "angry@example.net") });
  const shown = await detail(email.id);
  expect(shown.status).toBe("delivered");
  expect(shown.recipients[0]).toMatchObject({ address: "angry@example.net", status: "complained", action: "suppress" });
  expect(hops(shown)).toEqual([["email.sent", null], ["email.delivered", "angry@example.net"], ["email.complained", "angry@example.net"]]);
  expect(shown.events[2].data).toMatchObject({ feedback_type: "abuse", user_agent: "ExampleFBL/1.0", arrival_date: "2026-11-27T10:00:01.000Z", action: "suppress" });
  expect((await mail.call("GET", "/v1/suppressions/angry@example.net", { key })).body).toMatchObject({ reason: "complaint", email_id: email.id });

  const mixed = await mail.call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", to: ["angry@example.net", "calm@example.net"], subject: "Hello", text: "Hi" } });
  expect(mixed.body.suppressed_recipients).toEqual(["angry@example.net"]);
  receiver.reset();
  await mail.mail.deliverQueued();
  expect(receiver.rcptAttempts).toEqual(["calm@example.net"]);
});
