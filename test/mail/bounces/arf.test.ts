import { describe, expect, test } from "bun:test";
import MailComposer from "nodemailer/lib/mail-composer";
import { parseArf, type ComplaintReport } from "../../../server/mail/bounces/arf.ts";
import { parseDsn } from "../../../server/mail/bounces/dsn.ts";

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");

/** Yahoo's complaint feedback loop, the original attached as message/rfc822. */
const yahooArf = `Return-Path: <feedback@arf.mail.yahoo.com>
From: Yahoo! Mail AntiSpam Feedback <feedback@arf.mail.yahoo.com>
To: fbl@ours.example
Subject: FW: Your receipt
Date: Sat, 28 Nov 2026 08:15:42 +0000
Message-ID: <a1b2c3d4e5@arf.mail.yahoo.com>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="----=_Part_1234_5678.1732781742000"

------=_Part_1234_5678.1732781742000
Content-Type: text/plain; charset=us-ascii
Content-Transfer-Encoding: 7bit

This is an email abuse report for an email message received from IP 203.0.113.5 on Fri, 27 Nov 2026 10:00:01 +0000.
For more information about this format please see http://www.mipassoc.org/arf/.

------=_Part_1234_5678.1732781742000
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: Yahoo!-Mail-Feedback/2.0
Version: 1
Original-Mail-From: <bounces+em_01K0@mail.ours.example>
Original-Rcpt-To: <Complainer@Yahoo.com>
Received-Date: Fri, 27 Nov 2026 10:00:01 +0000
Reported-Domain: ours.example
Authentication-Results: mta1001.mail.gq1.yahoo.com  header.from=ours.example; dkim=pass (ok)

------=_Part_1234_5678.1732781742000
Content-Type: message/rfc822
Content-Disposition: inline

Received: from 203.0.113.5 (EHLO mail.ours.example) by mta1001.mail.gq1.yahoo.com with SMTPS; Fri, 27 Nov 2026 10:00:01 +0000
From: Ours <hello@ours.example>
To: complainer@yahoo.com
Subject: Your receipt
Message-ID: <em_01K0.1@ours.example>
Date: Fri, 27 Nov 2026 10:00:00 +0000

Thanks for your order.

------=_Part_1234_5678.1732781742000--
`;

/** RFC 5965 appendix B, example 2 (the headers-only variant), with our Message-ID. */
const rfcExampleArf = `From: <abusedesk@example.com>
Date: Thu, 8 Mar 2005 17:40:36 EDT
Subject: FW: Earn money
To: <abuse@example.net>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report;
     boundary="part1_13d.2e68ed54_boundary"

--part1_13d.2e68ed54_boundary
Content-Type: text/plain; charset="US-ASCII"
Content-Transfer-Encoding: 7bit

This is an email abuse report for an email message received from IP
192.0.2.1 on Thu, 8 Mar 2005 14:00:00 EDT.  For more information
about this format please see http://www.mipassoc.org/arf/.

--part1_13d.2e68ed54_boundary
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: SomeGenerator/1.0
Version: 1
Original-Mail-From: <somespammer@example.net>
Original-Rcpt-To: <user@example.com>
Arrival-Date: Thu, 8 Mar 2005 14:00:00 EDT
Reporting-MTA: dns; mail.example.com
Source-IP: 192.0.2.1
Authentication-Results: mail.example.com;
               spf=fail smtp.mail=somespammer@example.com
Reported-Domain: example.net
Reported-Uri: http://example.net/earn_money.html
Reported-Uri: mailto:user@example.com
Removal-Recipient: user@example.com

--part1_13d.2e68ed54_boundary
Content-Type: text/rfc822-headers

From: <somespammer@example.net>
Received: from mailserver.example.net (mailserver.example.net
        [192.0.2.1]) by example.com with ESMTP id M63d4137594e46;
        Thu, 08 Mar 2005 14:00:00 -0400
To: <Undisclosed Recipients>
Subject: Earn money
MIME-Version: 1.0
Content-type: text/plain
Message-ID: 8787KJKJ3K4J3K4J3K4J3.mail@example.net
Date: Thu, 02 Sep 2004 12:31:03 -0500

--part1_13d.2e68ed54_boundary--
`;

/** Microsoft's JMRP as an ARF report without Original-Rcpt-To (the recipient is in the original's To). */
const microsoftArf = `From: staff@hotmail.com
To: jmrp@ours.example
Subject: complaint about message from 203.0.113.5
Date: Sat, 28 Nov 2026 09:00:00 -0800
Message-ID: <jmrp-8f7e6d5c@hotmail.com>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="jmrp-boundary"

--jmrp-boundary
Content-Type: text/plain

This is an email abuse report for an email message received from IP 203.0.113.5.

--jmrp-boundary
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: Microsoft JMRP/1.0
Version: 1
Arrival-Date: Fri, 27 Nov 2026 10:00:05 -0800
Source-IP: 203.0.113.5

--jmrp-boundary
Content-Type: message/rfc822

From: hello@ours.example
To: "Someone" <Someone@Outlook.com>
Subject: Your receipt
Message-ID: <em_01K1.1@ours.example>
X-HmXmrOriginalRecipient: <someone@outlook.com>

body
--jmrp-boundary--
`;

describe("parseArf: complaints as providers send them", () => {
  test("Yahoo: abuse, recipient from Original-Rcpt-To, Received-Date", async () => {
    const expected: ComplaintReport = {
      feedbackType: "abuse",
      originalRecipient: "Complainer@yahoo.com",
      originalMessageId: "<em_01K0.1@ours.example>",
      userAgent: "Yahoo!-Mail-Feedback/2.0",
      arrivalDate: "2026-11-27T10:00:01.000Z",
    };
    expect(await parseArf(crlf(yahooArf))).toEqual(expected);
    expect(await parseArf(yahooArf)).toEqual(expected);
    expect(await parseArf(Buffer.from(crlf(yahooArf)))).toEqual(expected);
  });

  test("RFC 5965's example: headers-only third part, an unbracketed Message-ID", async () => {
    expect(await parseArf(rfcExampleArf)).toEqual({
      feedbackType: "abuse",
      originalRecipient: "user@example.com",
      originalMessageId: "<8787KJKJ3K4J3K4J3K4J3.mail@example.net>",
      userAgent: "SomeGenerator/1.0",
      arrivalDate: "2005-03-08T18:00:00.000Z",
    });
  });

  test("Microsoft: no Original-Rcpt-To, so the original's To", async () => {
    expect(await parseArf(crlf(microsoftArf))).toEqual({
      feedbackType: "abuse",
      originalRecipient: "Someone@outlook.com",
      originalMessageId: "<em_01K1.1@ours.example>",
      userAgent: "Microsoft JMRP/1.0",
      arrivalDate: "2026-11-27T18:00:05.000Z",
    });
  });

  test("built with nodemailer's MailComposer", async () => {
    const root = new MailComposer({
      from: "feedback@isp.example",
      to: "fbl@ours.example",
      subject: "Abuse report",
      text: "This is an email abuse report.",
      attachments: [
        { contentType: "message/feedback-report", content: "Feedback-Type: not-spam\nUser-Agent: ISP-FBL/3.1\nVersion: 1\nOriginal-Rcpt-To: reader@isp.example\nArrival-Date: Fri, 27 Nov 2026 12:00:00 +0100\n" },
        { contentType: "message/rfc822", content: "From: hello@ours.example\nTo: reader@isp.example\nMessage-ID: <em_01K2.1@ours.example>\nSubject: Hi\n\nHello\n" },
      ],
    }).compile();
    root.setHeader("Content-Type", "multipart/report; report-type=feedback-report");
    expect(await parseArf(await root.build())).toEqual({
      feedbackType: "not-spam",
      originalRecipient: "reader@isp.example",
      originalMessageId: "<em_01K2.1@ours.example>",
      userAgent: "ISP-FBL/3.1",
      arrivalDate: "2026-11-27T11:00:00.000Z",
    });
  });

  test("every feedback type; an unknown or missing one is other", async () => {
    const types = ["abuse", "fraud", "virus", "other", "not-spam", "NOT-SPAM", "opt-out", "", "abuse\r\nX: y"];
    const parsed = await Promise.all(types.map((type) => parseArf(yahooArf.replace("Feedback-Type: abuse", `Feedback-Type: ${type}`))));
    expect(parsed.map((report) => report!.feedbackType)).toEqual(["abuse", "fraud", "virus", "other", "not-spam", "not-spam", "other", "other", "abuse"]);
    expect((await parseArf(yahooArf.replace("Feedback-Type: abuse\n", "")))!.feedbackType).toBe("other");
  });
});

describe("parseArf: not a complaint", () => {
  test("a DSN, an ordinary email, empty input", async () => {
    const dsn = `From: MAILER-DAEMON@relay.example\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\n\n--b\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; relay.example\n\nFinal-Recipient: rfc822; a@example.net\nAction: failed\nStatus: 5.1.1\n--b--\n`;
    expect(await parseArf(dsn)).toBeNull();
    expect(await parseArf("From: a@example.org\r\nSubject: hi\r\n\r\nhello\r\n")).toBeNull();
    expect(await parseArf("")).toBeNull();
  });

  test("a feedback-report without its feedback part", async () => {
    const withoutPart = yahooArf.replace("Content-Type: message/feedback-report", "Content-Type: text/plain");
    expect(await parseArf(withoutPart)).toBeNull();
  });

  test("a complaint is never taken for a bounce", async () => {
    expect(await parseDsn(yahooArf)).toBeNull();
  });
});

describe("parseArf: hostile and broken reports", () => {
  test("missing original part: recipient from Original-Rcpt-To, no Message-ID", async () => {
    const withoutOriginal = yahooArf.slice(0, yahooArf.indexOf("------=_Part_1234_5678.1732781742000\nContent-Type: message/rfc822")) + "------=_Part_1234_5678.1732781742000--\n";
    expect(await parseArf(withoutOriginal)).toEqual({
      feedbackType: "abuse",
      originalRecipient: "Complainer@yahoo.com",
      originalMessageId: null,
      userAgent: "Yahoo!-Mail-Feedback/2.0",
      arrivalDate: "2026-11-27T10:00:01.000Z",
    });
  });

  test("garbage in every field", async () => {
    const garbage = yahooArf
      .replace("Original-Rcpt-To: <Complainer@Yahoo.com>", "Original-Rcpt-To: not an address\nOriginal-Rcpt-To: <real@yahoo.com>")
      .replace("Received-Date: Fri, 27 Nov 2026 10:00:01 +0000", "Received-Date: yesterday-ish")
      .replace("User-Agent: Yahoo!-Mail-Feedback/2.0", `User-Agent: ${"X".repeat(30_000)}`);
    const report = await parseArf(garbage);
    expect(report).toMatchObject({ originalRecipient: "real@yahoo.com", arrivalDate: null });
    expect(report!.userAgent!.length).toBeLessThanOrEqual(200);
  });

  test("header injection through folding in the recipient, the agent and the Message-ID", async () => {
    const injected = yahooArf
      .replace("Original-Rcpt-To: <Complainer@Yahoo.com>", "Original-Rcpt-To: <victim@yahoo.com>\n Bcc: attacker@evil.example")
      .replace("User-Agent: Yahoo!-Mail-Feedback/2.0", "User-Agent: Agent/1.0\n X-Injected: yes\u0000\u202e")
      .replace("Message-ID: <em_01K0.1@ours.example>", "Message-ID: <em_01K0.1@ours.example>\n Bcc: attacker@evil.example")
      .replace("To: complainer@yahoo.com", "To: complainer@yahoo.com\r\nBcc: attacker@evil.example");
    expect(await parseArf(injected)).toEqual({
      feedbackType: "abuse",
      originalRecipient: "complainer@yahoo.com",
      originalMessageId: null,
      userAgent: "Agent/1.0 X-Injected: yes",
      arrivalDate: "2026-11-27T10:00:01.000Z",
    });
  });

  test("non-ASCII recipient and agent", async () => {
    const unicode = yahooArf.replace("Original-Rcpt-To: <Complainer@Yahoo.com>", "Original-Rcpt-To: <jürgen@bücher.example>").replace("Yahoo!-Mail-Feedback/2.0", "Fédération-FBL/1.0");
    expect(await parseArf(Buffer.from(unicode, "utf8"))).toMatchObject({ originalRecipient: "jürgen@bücher.example", userAgent: "Fédération-FBL/1.0" });
  });

  test("a huge complaint (original of 20 MB) is read within bounds", async () => {
    const huge = yahooArf.replace("Thanks for your order.", "B".repeat(76).concat("\n").repeat(280_000));
    expect(huge.length).toBeGreaterThan(20 * 1024 * 1024);
    expect(await parseArf(huge)).toMatchObject({ originalRecipient: "Complainer@yahoo.com", originalMessageId: "<em_01K0.1@ours.example>" });
  });
});
