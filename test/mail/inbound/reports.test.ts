// Bounces and complaints arriving at a return path (`bounce+{email id}@bounces.{domain}`) reach
// the report handler with the parsed report and the address they came to; a message there that
// is neither is accepted, logged (bounded) and dropped. Nothing at a return path is stored as
// inbound mail.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ComplaintReport } from "../../../server/mail/bounces/arf.ts";
import type { DeliveryStatusReport } from "../../../server/mail/bounces/dsn.ts";
import type { ReportHandler, ReportInput } from "../../../server/mail/inbound/report-handler.ts";
import { emailIdFromReturnPath, returnPathFor } from "../../../server/mail/inbound/return-path.ts";
import { startTestMail, type TestMail } from "../harness.ts";
import { addDomain, sendInbound } from "./fixture.ts";

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");
const calls: ({ kind: "bounce"; input: ReportInput<DeliveryStatusReport> } | { kind: "complaint"; input: ReportInput<ComplaintReport> })[] = [];
const logs: string[] = [];
const handler: ReportHandler = {
  async bounce(input) {
    calls.push({ kind: "bounce", input });
  },
  async complaint(input) {
    calls.push({ kind: "complaint", input });
  },
};

let mail: TestMail;
let tenant: { id: string; key: string };
let domain: { id: string };
beforeAll(async () => {
  mail = await startTestMail({}, { reports: handler, log: (line) => logs.push(line) });
  tenant = await mail.tenant();
  domain = await addDomain(mail, tenant.key, "send.acme-example.com", { receiving: false });
});
afterAll(async () => {
  await mail.close();
});

const emailId = "0e7c2a40-5d1e-4c55-9d0e-2b8c7d3f9a11";
const returnPath = returnPathFor(emailId, "Send.Acme-Example.com");

const dsn = crlf(`From: MAILER-DAEMON@mx.example.org
To: ${returnPath}
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain

Your message could not be delivered.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
Original-Envelope-Id: ${emailId}

Final-Recipient: rfc822; nobody@example.org
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <nobody@example.org>: User unknown

--b1
Content-Type: text/rfc822-headers

From: hello@send.acme-example.com
To: nobody@example.org
Message-ID: <${emailId}@send.acme-example.com>

--b1--
`);

const arf = crlf(`From: feedback@fbl.example.net
To: ${returnPath}
Subject: FW: receipt
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
Original-Rcpt-To: <complainer@example.net>
Arrival-Date: Fri, 27 Nov 2026 10:00:01 +0000

--b2
Content-Type: message/rfc822

From: hello@send.acme-example.com
To: complainer@example.net
Message-ID: <${emailId}@send.acme-example.com>
Subject: receipt

Thanks.

--b2--
`);

test("the return path names the email: bounce+{uuid}@bounces.{domain}, read back from any case", () => {
  expect(returnPath).toBe(`bounce+${emailId}@bounces.send.acme-example.com`);
  expect(emailIdFromReturnPath(returnPath.toUpperCase())).toBe(emailId);
  for (const address of [`bounce+${emailId}@send.acme-example.com`, `bounce-${emailId}@bounces.x.com`, "bounce+not-a-uuid@bounces.x.com", `bounce+${emailId}x@bounces.x.com`, "nobody", ""]) {
    expect(emailIdFromReturnPath(address)).toBeNull();
  }
});

test("a DSN and an ARF report at the return path reach the handler with the parsed report; neither is stored as inbound mail", async () => {
  calls.length = 0;
  await sendInbound(mail, { envelope: { from: "", to: [returnPath] }, raw: dsn });
  await sendInbound(mail, { envelope: { from: "feedback@fbl.example.net", to: [returnPath.replace("bounces.send", "BOUNCES.Send")] }, raw: arf });
  expect(calls).toEqual([
    {
      kind: "bounce",
      input: {
        tenantId: tenant.id,
        domainId: domain.id,
        rcptTo: returnPath,
        report: {
          format: "rfc3464",
          originalMessageId: `<${emailId}@send.acme-example.com>`,
          originalEnvelopeId: emailId,
          reportingMta: "mx.example.org",
          recipients: [expect.objectContaining({ recipient: "nobody@example.org", action: "failed" })],
        },
      },
    },
    {
      kind: "complaint",
      input: {
        tenantId: tenant.id,
        domainId: domain.id,
        rcptTo: returnPath,
        report: {
          feedbackType: "abuse",
          originalRecipient: "complainer@example.net",
          originalMessageId: `<${emailId}@send.acme-example.com>`,
          userAgent: "ExampleFBL/1.0",
          arrivalDate: "2026-11-27T10:00:01.000Z",
        },
      },
    },
  ]);
  expect(emailIdFromReturnPath(calls[0]!.input.rcptTo)).toBe(emailId);
  expect((await mail.mail.ctx.database.sql`SELECT COUNT(*) AS n FROM mail_inbound`)[0].n).toBe(0);
});

test("a message at the return path that is no report is accepted, logged, and dropped", async () => {
  calls.length = 0;
  logs.length = 0;
  const info = await sendInbound(mail, {
    envelope: { from: "someone@example.org", to: ["Postmaster@bounces.send.acme-example.com", returnPath] },
    raw: crlf("From: someone@example.org\nSubject: hello\n\nJust a note.\n"),
  });
  expect([info.accepted, info.rejected]).toEqual([["Postmaster@bounces.send.acme-example.com", returnPath], []]);
  expect(calls).toEqual([]);
  expect(logs).toEqual([
    `mail: a message to Postmaster@bounces.send.acme-example.com (tenant ${tenant.id}) is neither a bounce nor a complaint; accepted and dropped`,
    `mail: a message to ${returnPath} (tenant ${tenant.id}) is neither a bounce nor a complaint; accepted and dropped`,
  ]);
  expect((await mail.mail.ctx.database.sql`SELECT COUNT(*) AS n FROM mail_inbound`)[0].n).toBe(0);
});

test("when the handler fails, the sender is told to try again later (451) so the report is not lost", async () => {
  const failing = await startTestMail({}, {
    reports: {
      bounce: async () => {
        throw new Error("store down\r\nforged log line");
      },
      complaint: async () => {},
    },
    log: (line) => logs.push(line),
  });
  try {
    const owner = await failing.tenant();
    await addDomain(failing, owner.key, "send.acme-example.com", { receiving: false });
    logs.length = 0;
    const error = await sendInbound(failing, { envelope: { from: "", to: [returnPath] }, raw: dsn }).catch((thrown: { responseCode?: number; response?: string }) => thrown);
    expect([(error as { responseCode?: number }).responseCode, (error as { response?: string }).response]).toEqual([451, "451 4.3.0 temporary failure, try again later"]);
    expect(logs).toEqual(["mail: an inbound message could not be taken: store down forged log line"]);
  } finally {
    await failing.close();
  }
});
