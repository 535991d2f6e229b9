import { describe, expect, test } from "bun:test";
import { classifySmtpAnswer } from "../../../server/mail/bounces/classify.ts";
import { parseDsn } from "../../../server/mail/bounces/dsn.ts";

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");

/** Exim's classic plain-text bounce, the original quoted below the text. */
const eximPlainBounce = `Return-path: <>
Received: from Debian-exim by mx1.partner.example with local (Exim 4.96)
	id 1tGxyz-000Abc-9Q
	for bounces+em_01J1@mail.ours.example; Fri, 27 Nov 2026 10:04:00 +0000
X-Failed-Recipients: nobody@partner.example
Auto-Submitted: auto-replied
From: Mail Delivery System <Mailer-Daemon@mx1.partner.example>
To: bounces+em_01J1@mail.ours.example
Subject: Mail delivery failed: returning message to sender
Message-Id: <E1tGxyz-000Abc-9Q@mx1.partner.example>
Date: Fri, 27 Nov 2026 10:04:00 +0000

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  nobody@partner.example
    host store.partner.example [198.51.100.7]
    SMTP error from remote mail server after RCPT TO:<nobody@partner.example>:
    550 5.1.1 <nobody@partner.example>: Recipient address rejected: User unknown
  lost@gone.example
    Unrouteable address

------ This is a copy of the message, including all the headers. ------

Return-path: <bounces+em_01J1@mail.ours.example>
Received: from mail.ours.example ([203.0.113.5])
	by mx1.partner.example with esmtps (TLS1.3) (Exim 4.96)
	id 1tGxyy-000Aba-2V
	for nobody@partner.example; Fri, 27 Nov 2026 10:03:59 +0000
From: Ours <hello@ours.example>
To: nobody@partner.example, lost@gone.example
Subject: Your receipt
Message-Id: <em_01J1.1@ours.example>
Date: Fri, 27 Nov 2026 10:03:58 +0000

Thanks for your order.
`;

/** Postfix's notification text, sent as a single text/plain part (as some relays flatten it). */
const postfixPlainBounce = `From: MAILER-DAEMON@relay.partner.example (Mail Delivery System)
To: bounces+em_01J2@mail.ours.example
Subject: Undelivered Mail Returned to Sender
Date: Fri, 27 Nov 2026 10:05:00 +0000 (UTC)
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="flat"

--flat
Content-Type: text/plain; charset=us-ascii

This is the mail system at host relay.partner.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients. It's attached below.

                   The mail system

<full@partner.example>: host store.partner.example[198.51.100.7] said: 552
    5.2.2 <full@partner.example>: Mailbox full (in reply to RCPT TO command)

<gone@partner.example>: host store.partner.example[198.51.100.7] said: 550
    5.2.1 <gone@partner.example>: Mailbox disabled (in reply to RCPT TO
    command)

--flat
Content-Type: text/rfc822-headers

Message-ID: <em_01J2.1@ours.example>
From: hello@ours.example
To: full@partner.example, gone@partner.example

--flat--
`;

/** qmail's "failure notice". */
const qmailBounce = `From: MAILER-DAEMON@mx.oldisp.example
To: bounces+em_01J3@mail.ours.example
Subject: failure notice
Date: 27 Nov 2026 10:06:00 -0000

Hi. This is the qmail-send program at mx.oldisp.example.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<someone@oldisp.example>:
198.51.100.9 does not like recipient.
Remote host said: 550 5.1.1 No such user
Giving up on 198.51.100.9.

--- Below this line is a copy of the message.

Return-Path: <bounces+em_01J3@mail.ours.example>
Message-ID: <em_01J3.1@ours.example>
From: hello@ours.example
To: someone@oldisp.example
Subject: Hi

Hello.
`;

describe("parseDsn: plain-text bounces", () => {
  test("Exim: two failed recipients, the original's Message-ID from the quoted copy", async () => {
    expect(await parseDsn(crlf(eximPlainBounce))).toEqual({
      format: "plain-text",
      originalMessageId: "<em_01J1.1@ours.example>",
      originalEnvelopeId: null,
      reportingMta: null,
      recipients: [
        {
          recipient: "nobody@partner.example",
          action: "failed",
          status: null,
          diagnostic: "550 5.1.1 <nobody@partner.example>: Recipient address rejected: User unknown",
          classification: classifySmtpAnswer(550, "5.1.1", "<nobody@partner.example>: Recipient address rejected: User unknown"),
        },
        {
          recipient: "lost@gone.example",
          action: "failed",
          status: null,
          diagnostic: "Unrouteable address",
          classification: {
            kind: "hard",
            class: "domain_not_found",
            enhancedCode: "5.0.0",
            reason: "The recipient's domain does not exist or does not accept mail. Remote answer: 5.0.0 Unrouteable address",
            action: "suppress",
          },
        },
      ],
    });
  });

  test("Postfix: recipients from the notification text, Message-ID from the attached headers", async () => {
    const report = await parseDsn(postfixPlainBounce);
    expect(report).toEqual({
      format: "plain-text",
      originalMessageId: "<em_01J2.1@ours.example>",
      originalEnvelopeId: null,
      reportingMta: "relay.partner.example",
      recipients: [
        {
          recipient: "full@partner.example",
          action: "failed",
          status: null,
          diagnostic: "552 5.2.2 <full@partner.example>: Mailbox full (in reply to RCPT TO command)",
          classification: classifySmtpAnswer(552, "5.2.2", "<full@partner.example>: Mailbox full (in reply to RCPT TO command)"),
        },
        {
          recipient: "gone@partner.example",
          action: "failed",
          status: null,
          diagnostic: "550 5.2.1 <gone@partner.example>: Mailbox disabled (in reply to RCPT TO command)",
          classification: classifySmtpAnswer(550, "5.2.1", "<gone@partner.example>: Mailbox disabled (in reply to RCPT TO command)"),
        },
      ],
    });
    expect(report!.recipients.map((entry) => entry.classification!.action)).toEqual(["retry", "suppress"]);
  });

  test("qmail: the recipient, its answer and the quoted Message-ID", async () => {
    expect(await parseDsn(qmailBounce)).toEqual({
      format: "plain-text",
      originalMessageId: "<em_01J3.1@ours.example>",
      originalEnvelopeId: null,
      reportingMta: null,
      recipients: [
        {
          recipient: "someone@oldisp.example",
          action: "failed",
          status: null,
          diagnostic: "550 5.1.1 No such user Giving up on 198.51.100.9.",
          classification: classifySmtpAnswer(550, "5.1.1", "No such user Giving up on 198.51.100.9."),
        },
      ],
    });
  });

  test("a delay warning makes the recipients delayed", async () => {
    const warning = eximPlainBounce
      .replace("Subject: Mail delivery failed: returning message to sender", "Subject: Warning: message 1tGxyz-000Abc-9Q delayed 24 hours")
      .replace("The following address(es) failed:", "The address to which the message has not yet been delivered is:")
      .replace("550 5.1.1 <nobody@partner.example>: Recipient address rejected: User unknown", "451 4.3.0 Temporary local problem - please try later");
    const report = await parseDsn(warning);
    expect(report!.recipients.map(({ recipient, action, classification }) => [recipient, action, classification!.class, classification!.action])).toEqual([
      ["nobody@partner.example", "delayed", "temporary_server_error", "retry"],
      ["lost@gone.example", "delayed", "domain_not_found", "retry"],
    ]);
  });

  test("an address in the quoted original is not taken for a failed recipient", async () => {
    const tricky = eximPlainBounce.replace("Thanks for your order.", "<victim@elsewhere.example>: please unsubscribe me\n  victim2@elsewhere.example\n    550 no");
    expect((await parseDsn(tricky))!.recipients.map((entry) => entry.recipient)).toEqual(["nobody@partner.example", "lost@gone.example"]);
  });

  test("a bounce-like sender with nothing extractable is not a bounce", async () => {
    expect(await parseDsn("From: MAILER-DAEMON@relay.example\r\nSubject: Undelivered Mail Returned to Sender\r\n\r\nSomething went wrong.\r\n")).toBeNull();
  });

  test("an ordinary message that quotes bounce-like lines is not a bounce", async () => {
    expect(await parseDsn("From: friend@example.org\r\nSubject: Lunch\r\n\r\n<someone@example.org>: host said: 550 5.1.1 nope\r\nMessage-ID: <x@y>\r\n")).toBeNull();
  });

  test("hostile: line noise and injection in the stated recipient and answer", async () => {
    const hostile = `From: MAILER-DAEMON@relay.example
Subject: Undelivered Mail Returned to Sender

<a@example.org\r\nBcc: x@evil.example>: host said: 550 5.1.1 nope

<b@example.org>: host said: 550 5.1.1 nope\u001b[31m\u202e
    X-Injected: yes
`;
    expect((await parseDsn(hostile))!.recipients.map(({ recipient, diagnostic }) => ({ recipient, diagnostic }))).toEqual([
      { recipient: "b@example.org", diagnostic: "550 5.1.1 nope [31m X-Injected: yes" },
    ]);
  });
});
