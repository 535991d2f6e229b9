import { describe, expect, test } from "bun:test";
import MailComposer from "nodemailer/lib/mail-composer";
import { classifySmtpAnswer } from "../../../server/mail/bounces/classify.ts";
import { parseDsn, type DeliveryStatusReport } from "../../../server/mail/bounces/dsn.ts";
import { reportReadBytesMax } from "../../../server/mail/bounces/report-message.ts";

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");

/** The original we sent, as it comes back inside the bounces below. */
const originalHeaders = `Return-Path: <bounces+em_01HX@mail.ours.example>
Received: by mail.ours.example (Postfix, from userid 0) id 4VxYz1; Fri, 27 Nov 2026 10:00:00 +0000 (UTC)
DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=ours.example; s=mail; h=from:to:subject;
 bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=; b=dGVzdA==
From: Ours <hello@ours.example>
To: Nobody <nobody@example.org>
Subject: Your receipt
Message-ID: <em_01HX.1@ours.example>
Date: Fri, 27 Nov 2026 10:00:00 +0000
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
`;

const postfixDsn = `Return-Path: <>
Received: by mail.ours.example (Postfix) id 9A1B2C3D; Fri, 27 Nov 2026 10:00:02 +0000 (UTC)
Date: Fri, 27 Nov 2026 10:00:02 +0000 (UTC)
From: MAILER-DAEMON@mail.ours.example (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: bounces+em_01HX@mail.ours.example
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="9A1B2C3D.1732701602/mail.ours.example"
Message-Id: <20261127100002.9A1B2C3D@mail.ours.example>

This is a MIME-encapsulated message.

--9A1B2C3D.1732701602/mail.ours.example
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mail.ours.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients. It's attached below.

                   The mail system

<nobody@example.org>: host mx.example.org[192.0.2.25] said: 550 5.1.1
    <nobody@example.org>: Recipient address rejected: User unknown in local
    recipient table (in reply to RCPT TO command)

--9A1B2C3D.1732701602/mail.ours.example
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mail.ours.example
X-Postfix-Queue-ID: 9A1B2C3D
X-Postfix-Sender: rfc822; bounces+em_01HX@mail.ours.example
Arrival-Date: Fri, 27 Nov 2026 10:00:00 +0000 (UTC)

Final-Recipient: rfc822; nobody@example.org
Original-Recipient: rfc822;nobody@example.org
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.org
Diagnostic-Code: smtp; 550 5.1.1 <nobody@example.org>: Recipient address
    rejected: User unknown in local recipient table

--9A1B2C3D.1732701602/mail.ours.example
Content-Description: Undelivered Message
Content-Type: message/rfc822

${originalHeaders}
Thanks for your order.

--9A1B2C3D.1732701602/mail.ours.example--
`;

const postfixExpected: DeliveryStatusReport = {
  format: "rfc3464",
  originalMessageId: "<em_01HX.1@ours.example>",
  originalEnvelopeId: null,
  reportingMta: "mail.ours.example",
  recipients: [
    {
      recipient: "nobody@example.org",
      action: "failed",
      status: "5.1.1",
      diagnostic: "550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown in local recipient table",
      classification: {
        kind: "hard",
        class: "unknown_mailbox",
        enhancedCode: "5.1.1",
        reason:
          "The recipient's mail server says this mailbox does not exist. Remote answer: 550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown in local recipient table",
        action: "suppress",
      },
    },
  ],
};

const gmailDsn = `Delivered-To: bounces+em_01HY@mail.ours.example
Return-Path: <>
From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>
To: bounces+em_01HY@mail.ours.example
Auto-Submitted: auto-replied
Subject: Delivery Status Notification (Failure)
Message-ID: <6745e0a2.050a0220.1c2b3d.0001.GMR@mx.google.com>
Date: Fri, 27 Nov 2026 02:01:06 -0800 (PST)
MIME-Version: 1.0
Content-Type: multipart/report; boundary="000000000000a1b2c3d4e5f60718"; report-type=delivery-status

--000000000000a1b2c3d4e5f60718
Content-Type: multipart/related; boundary="000000000000a1b2c3d4e5f60719"

--000000000000a1b2c3d4e5f60719
Content-Type: multipart/alternative; boundary="000000000000a1b2c3d4e5f6071a"

--000000000000a1b2c3d4e5f6071a
Content-Type: text/plain; charset="UTF-8"

** Address not found **

Your message wasn't delivered to someone.gone@gmail.com because the address couldn't be found, or is unable to receive mail.

--000000000000a1b2c3d4e5f6071a
Content-Type: text/html; charset="UTF-8"

<html><body><h2>Address not found</h2><p>Your message wasn't delivered to <b>someone.gone@gmail.com</b>.</p></body></html>

--000000000000a1b2c3d4e5f6071a--

--000000000000a1b2c3d4e5f60719--

--000000000000a1b2c3d4e5f60718
Content-Type: message/delivery-status

Reporting-MTA: dns; googlemail.com
Received-From-MTA: dns; mail.ours.example
Arrival-Date: Fri, 27 Nov 2026 02:01:05 -0800 (PST)
X-Original-Message-ID: <em_01HY.1@ours.example>

Final-Recipient: rfc822; someone.gone@gmail.com
Action: failed
Status: 5.1.1
Remote-MTA: dns; gmail-smtp-in.l.google.com. (2a00:1450:400c:c0a::1b,
 the server for the domain gmail.com.)
Diagnostic-Code: smtp; 550-5.1.1 The email account that you tried to reach does not exist. Please try
 550-5.1.1 double-checking the recipient's email address for typos or
 550-5.1.1 unnecessary spaces. For more information, go to
 550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a640c23a62f3a-a99 - gsmtp
Last-Attempt-Date: Fri, 27 Nov 2026 02:01:06 -0800 (PST)

--000000000000a1b2c3d4e5f60718
Content-Type: text/rfc822-headers

Return-Path: <bounces+em_01HY@mail.ours.example>
From: Ours <hello@ours.example>
To: someone.gone@gmail.com
Subject: Welcome
Message-ID: <em_01HY.1@ours.example>
Date: Fri, 27 Nov 2026 10:01:00 +0000

--000000000000a1b2c3d4e5f60718--
`;

const microsoftDsn = `From: postmaster@outlook.com
To: <bounces+em_01HZ@mail.ours.example>
Date: Fri, 27 Nov 2026 10:02:11 +0000
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="d5b3c2a1-9f8e-4d7c-b6a5-0123456789ab"
X-MS-Exchange-Message-Is-Ndr:
Content-Language: en-US
Message-ID: <a1b2c3d4-e5f6-4711-8899-aabbccddeeff@DB9PR01MB1234.eurprd01.prod.exchangelabs.com>
In-Reply-To: <em_01HZ.1@ours.example>
Subject: Undeliverable: Your invoice
Auto-Submitted: auto-replied

--d5b3c2a1-9f8e-4d7c-b6a5-0123456789ab
Content-Type: multipart/alternative; differences=Content-Type;
	boundary="7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910"

--7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: quoted-printable

Your message to nobody@contoso.example couldn't be delivered.
nobody wasn't found at contoso.example.

--7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910--

--d5b3c2a1-9f8e-4d7c-b6a5-0123456789ab
Content-Type: message/delivery-status

Reporting-MTA: dns;DB9PR01MB1234.eurprd01.prod.exchangelabs.com
Received-From-MTA: dns;mail.ours.example
Arrival-Date: Fri, 27 Nov 2026 10:02:10 +0000

Final-Recipient: rfc822;nobody@Contoso.Example
Action: failed
Status: 5.1.10
Diagnostic-Code: smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup

--d5b3c2a1-9f8e-4d7c-b6a5-0123456789ab
Content-Type: text/rfc822-headers

From: Ours <hello@ours.example>
To: <nobody@contoso.example>
Subject: Your invoice
Message-ID: <em_01HZ.1@ours.example>
Date: Fri, 27 Nov 2026 10:02:00 +0000
MIME-Version: 1.0

--d5b3c2a1-9f8e-4d7c-b6a5-0123456789ab--
`;

const eximDelayedMultiRecipientDsn = `Return-path: <>
From: Mail Delivery System <Mailer-Daemon@mx1.partner.example>
To: bounces+em_01J0@mail.ours.example
Subject: Warning: message 1tGxyz-000Abc-9Q delayed 24 hours
Auto-Submitted: auto-replied
Message-Id: <E1tHabc-000Def-1Z@mx1.partner.example>
Date: Sat, 28 Nov 2026 10:03:00 +0000
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary=1732788180-eximdsn-123456789

--1732788180-eximdsn-123456789
Content-type: text/plain; charset=us-ascii

This message was created automatically by mail delivery software.
A message that you sent has not yet been delivered to one or more of its
recipients after more than 24 hours on the queue on mx1.partner.example.

--1732788180-eximdsn-123456789
Content-type: message/delivery-status

Reporting-MTA: dns; mx1.partner.example
Original-Envelope-Id: em_01J0
Arrival-Date: Fri, 27 Nov 2026 10:03:00 +0000

Action: delayed
Final-Recipient: rfc822;full@partner.example
Status: 4.2.2
Remote-MTA: dns; store.partner.example
Diagnostic-Code: smtp; 452 4.2.2 Mailbox full: full@partner.example
Will-Retry-Until: Mon, 30 Nov 2026 10:03:00 +0000

Action: delivered
Final-Recipient: rfc822;fine@partner.example
Status: 2.0.0
Remote-MTA: dns; store.partner.example
Diagnostic-Code: smtp; 250 2.0.0 OK queued as 12345

Action: failed
Final-Recipient: rfc822;listed@partner.example
Status: 5.0.0
Diagnostic-Code: smtp; 554 5.7.1 Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org

--1732788180-eximdsn-123456789
Content-type: text/rfc822-headers

Message-Id: <em_01J0.1@ours.example>
From: hello@ours.example
To: full@partner.example, fine@partner.example, listed@partner.example

--1732788180-eximdsn-123456789--
`;

describe("parseDsn: RFC 3464 reports as MTAs send them", () => {
  test("Postfix: user unknown, original attached as message/rfc822", async () => {
    expect(await parseDsn(crlf(postfixDsn))).toEqual(postfixExpected);
  });

  test("LF and CRLF line endings give the same report, as string or Buffer", async () => {
    expect(await parseDsn(postfixDsn.replace(/\r\n/g, "\n"))).toEqual(postfixExpected);
    expect(await parseDsn(Buffer.from(crlf(postfixDsn)))).toEqual(postfixExpected);
  });

  test("Gmail: folded multi-line diagnostic, headers returned as text/rfc822-headers", async () => {
    const diagnostic =
      "550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. For more information, go to https://support.google.com/mail/?p=NoSuchUser a640c23a62f3a-a99 - gsmtp";
    expect(await parseDsn(crlf(gmailDsn))).toEqual({
      format: "rfc3464",
      originalMessageId: "<em_01HY.1@ours.example>",
      originalEnvelopeId: null,
      reportingMta: "googlemail.com",
      recipients: [
        {
          recipient: "someone.gone@gmail.com",
          action: "failed",
          status: "5.1.1",
          diagnostic,
          classification: classifySmtpAnswer(550, "5.1.1", diagnostic.slice("550 5.1.1 ".length)),
        },
      ],
    });
    expect((await parseDsn(gmailDsn))!.recipients[0]!.classification).toMatchObject({ class: "unknown_mailbox", action: "suppress" });
  });

  test("Microsoft 365: 5.1.10 RecipientNotFound is an unknown mailbox; the domain is lower-cased", async () => {
    const report = await parseDsn(crlf(microsoftDsn));
    expect(report).toEqual({
      format: "rfc3464",
      originalMessageId: "<em_01HZ.1@ours.example>",
      originalEnvelopeId: null,
      reportingMta: "DB9PR01MB1234.eurprd01.prod.exchangelabs.com",
      recipients: [
        {
          recipient: "nobody@contoso.example",
          action: "failed",
          status: "5.1.10",
          diagnostic: "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup",
          classification: {
            kind: "hard",
            class: "unknown_mailbox",
            enhancedCode: "5.1.10",
            reason:
              "The recipient's mail server says this mailbox does not exist. Remote answer: 550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup",
            action: "suppress",
          },
        },
      ],
    });
  });

  test("Exim: delayed, delivered and failed recipients in one report; the envelope id", async () => {
    const report = await parseDsn(eximDelayedMultiRecipientDsn);
    expect(report).toEqual({
      format: "rfc3464",
      originalMessageId: "<em_01J0.1@ours.example>",
      originalEnvelopeId: "em_01J0",
      reportingMta: "mx1.partner.example",
      recipients: [
        {
          recipient: "full@partner.example",
          action: "delayed",
          status: "4.2.2",
          diagnostic: "452 4.2.2 Mailbox full: full@partner.example",
          classification: classifySmtpAnswer(452, "4.2.2", "Mailbox full: full@partner.example"),
        },
        { recipient: "fine@partner.example", action: "delivered", status: "2.0.0", diagnostic: "250 2.0.0 OK queued as 12345", classification: null },
        {
          recipient: "listed@partner.example",
          action: "failed",
          status: "5.0.0",
          diagnostic: "554 5.7.1 Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org",
          classification: classifySmtpAnswer(554, "5.7.1", "Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org"),
        },
      ],
    });
    expect(report!.recipients.map((entry) => [entry.classification?.class ?? null, entry.classification?.action ?? null])).toEqual([
      ["mailbox_full", "retry"],
      [null, null],
      ["blocked_as_spam", "none"],
    ]);
  });

  test("built with nodemailer's MailComposer: boundaries and encodings as a library writes them", async () => {
    const composer = new MailComposer({
      from: "MAILER-DAEMON@relay.example",
      to: "bounces@mail.ours.example",
      subject: "Delivery Status Notification (Failure)",
      text: "Your message could not be delivered.",
      attachments: [
        {
          contentType: "message/delivery-status",
          content: "Reporting-MTA: dns; relay.example\n\nFinal-Recipient: rfc822; gone@example.com\nAction: failed\nStatus: 5.2.1\nDiagnostic-Code: smtp; 550 5.2.1 Mailbox disabled, not accepting messages\n",
        },
        { contentType: "message/rfc822", content: originalHeaders.replace("nobody@example.org", "gone@example.com") + "\nbody\n" },
      ],
    });
    const root = composer.compile();
    root.setHeader("Content-Type", "multipart/report; report-type=delivery-status");
    const raw = await root.build();
    expect(raw.toString()).toMatch(/Content-Type: multipart\/report; report-type=delivery-status;\s+boundary=/);
    expect(await parseDsn(raw)).toEqual({
      format: "rfc3464",
      originalMessageId: "<em_01HX.1@ours.example>",
      originalEnvelopeId: null,
      reportingMta: "relay.example",
      recipients: [
        {
          recipient: "gone@example.com",
          action: "failed",
          status: "5.2.1",
          diagnostic: "550 5.2.1 Mailbox disabled, not accepting messages",
          classification: classifySmtpAnswer(550, "5.2.1", "Mailbox disabled, not accepting messages"),
        },
      ],
    });
  });
});

describe("parseDsn: bounds on huge reports", () => {
  test(`a report part past the first ${reportReadBytesMax} bytes is never read`, async () => {
    const padded = crlf(postfixDsn).replace("I'm sorry to have to inform you", "x".repeat(76).concat("\r\n").repeat(Math.ceil(reportReadBytesMax / 78)));
    expect(await parseDsn(padded)).toBeNull();
  });

  test(`a huge bounce: only the first ${reportReadBytesMax} bytes are read`, async () => {
    const hugeOriginal = originalHeaders + "\n" + "A".repeat(76).concat("\n").repeat(300_000);
    const raw = crlf(postfixDsn).replace("Thanks for your order.", hugeOriginal);
    expect(raw.length).toBeGreaterThan(20 * 1024 * 1024);
    expect(await parseDsn(raw)).toEqual(postfixExpected);
  });
});
