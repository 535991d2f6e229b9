import { describe, expect, test } from "bun:test";
import { classifySmtpAnswer } from "../../../server/mail/bounces/classify.ts";
import { dsnRecipientsMax, parseDsn } from "../../../server/mail/bounces/dsn.ts";

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");

/** A minimal DSN around `recipientGroups`, original headers returned. */
function dsnWith(recipientGroups: string, options: { perMessage?: string; returned?: string; contentType?: string } = {}): string {
  const perMessage = options.perMessage ?? "Reporting-MTA: dns; relay.example\n\n";
  const returned =
    options.returned ?? `--b1\nContent-Type: text/rfc822-headers\n\nMessage-ID: <em_x@ours.example>\nTo: someone@example.net\n\n`;
  return crlf(`From: MAILER-DAEMON@relay.example
To: bounces@mail.ours.example
Subject: Delivery Status Notification
MIME-Version: 1.0
Content-Type: ${options.contentType ?? 'multipart/report; report-type=delivery-status; boundary="b1"'}

--b1
Content-Type: text/plain

Delivery failed.

--b1
Content-Type: message/delivery-status

${perMessage}${recipientGroups}

${returned}--b1--
`);
}

describe("parseDsn: recipients without an SMTP answer or with a contradicting one", () => {
  test("a report that gave up (5.4.7) quoting a 421: the report's verdict decides permanence", async () => {
    const raw = dsnWith(`Final-Recipient: rfc822; slow@example.net
Action: failed
Status: 5.4.7
Diagnostic-Code: smtp; 421 4.7.0 Too many connections, try again later`);
    expect((await parseDsn(raw))!.recipients).toEqual([
      {
        recipient: "slow@example.net",
        action: "failed",
        status: "5.4.7",
        diagnostic: "421 4.7.0 Too many connections, try again later",
        classification: {
          kind: "hard",
          class: "rate_limited",
          enhancedCode: "5.4.7",
          reason: "The recipient's server is limiting how many connections or messages we send. Remote answer: 5.4.7 Too many connections, try again later",
          action: "none",
        },
      },
    ]);
  });

  test("Postfix: domain not found, no SMTP answer (X-Postfix diagnostic)", async () => {
    const raw = dsnWith(`Final-Recipient: rfc822; someone@no-such-domain.example
Original-Recipient: rfc822;someone@no-such-domain.example
Action: failed
Status: 5.4.4
Diagnostic-Code: X-Postfix; Host or domain name not found. Name service error
    for name=no-such-domain.example type=AAAA: Host not found`);
    const [recipient] = (await parseDsn(raw))!.recipients;
    expect(recipient).toEqual({
      recipient: "someone@no-such-domain.example",
      action: "failed",
      status: "5.4.4",
      diagnostic: "Host or domain name not found. Name service error for name=no-such-domain.example type=AAAA: Host not found",
      classification: {
        kind: "hard",
        class: "domain_not_found",
        enhancedCode: "5.4.4",
        reason:
          "The recipient's domain does not exist or does not accept mail. Remote answer: 5.4.4 Host or domain name not found. Name service error for name=no-such-domain.example type=AAAA: Host not found",
        action: "suppress",
      },
    });
  });

});

describe("parseDsn: not a DSN", () => {
  test("an ordinary email", async () => {
    expect(await parseDsn("From: friend@example.org\r\nTo: me@ours.example\r\nSubject: Lunch?\r\n\r\nAt noon?\r\n")).toBeNull();
  });
  test("empty input and binary garbage", async () => {
    expect(await parseDsn("")).toBeNull();
    expect(await parseDsn(Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256)))).toBeNull();
  });
  test("a multipart/report of another report type", async () => {
    expect(await parseDsn(dsnWith("Final-Recipient: rfc822; a@example.net\nAction: failed\nStatus: 5.1.1", { contentType: 'multipart/report; report-type=disposition-notification; boundary="b1"' }))).toBeNull();
  });
  test("a multipart/report without its delivery-status part", async () => {
    const raw = crlf(`From: someone@example.org
Subject: Hello
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain

Nothing machine-readable here.
--b1--
`);
    expect(await parseDsn(raw)).toBeNull();
  });
});

describe("parseDsn: hostile and broken reports", () => {
  test("no returned headers: the Message-ID is null, the recipient still read", async () => {
    const report = await parseDsn(dsnWith("Final-Recipient: rfc822; a@example.net\nAction: failed\nStatus: 5.1.1", { returned: "" }));
    expect(report).toMatchObject({ originalMessageId: null, recipients: [{ recipient: "a@example.net", action: "failed", status: "5.1.1" }] });
  });

  test("no per-message group: a first group naming a recipient is a recipient", async () => {
    const report = await parseDsn(dsnWith("Final-Recipient: rfc822; a@example.net\nAction: failed\nStatus: 5.1.1", { perMessage: "" }));
    expect(report).toMatchObject({ reportingMta: null, recipients: [{ recipient: "a@example.net" }] });
  });

  test("garbage fields: groups without a usable address or outcome are skipped, a garbage status is null", async () => {
    const report = await parseDsn(
      dsnWith(`Final-Recipient: rfc822; not an address
Action: failed
Status: 5.1.1

Final-Recipient: rfc822; nothing-happened@example.net
Action: exploded

Final-Recipient: rfc822; banana@example.net
Action: failed
Status: banana
Diagnostic-Code: smtp; not even a code

this line is not a field
Final-Recipient: rfc822; derived@example.net
Status: 4.4.1 (connection timed out)

Final-Recipient: rfc822; "quoted local"@example.net
Action: failed`),
    );
    expect(report!.recipients.map(({ recipient, action, status, diagnostic }) => ({ recipient, action, status, diagnostic }))).toEqual([
      { recipient: "banana@example.net", action: "failed", status: null, diagnostic: "not even a code" },
      { recipient: "derived@example.net", action: "delayed", status: "4.4.1", diagnostic: null },
    ]);
    expect(report!.recipients.map((entry) => entry.classification?.class)).toEqual(["other_permanent", "connection_failed"]);
  });

  test("header injection through folded fields and returned headers yields nothing usable", async () => {
    const report = await parseDsn(
      dsnWith(
        `Final-Recipient: rfc822; victim@example.net
 Bcc: attacker@evil.example
Action: failed
Status: 5.1.1

Final-Recipient: rfc822; real@example.net
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 no such user
 X-Injected: 1\u0000\u001b[2J`,
        {
          perMessage: "Reporting-MTA: dns; relay.example\n X-Evil: yes\n\n",
          returned: `--b1\nContent-Type: text/rfc822-headers\n\nMessage-ID: <ok@ours.example>\n Bcc: attacker@evil.example\n\n`,
        },
      ),
    );
    expect(report).toMatchObject({
      reportingMta: "relay.example X-Evil: yes",
      originalMessageId: null,
      recipients: [{ recipient: "real@example.net", diagnostic: "550 5.1.1 no such user X-Injected: 1 [2J" }],
    });
    expect(report!.recipients).toHaveLength(1);
  });

  test("non-ASCII: an internationalised report (message/global-delivery-status, UTF-8 address and text)", async () => {
    const raw = crlf(`From: MAILER-DAEMON@relay.example
Subject: Unzustellbar
MIME-Version: 1.0
Content-Type: multipart/report; report-type=global-delivery-status; boundary="b1"

--b1
Content-Type: text/plain; charset=utf-8

Zustellung fehlgeschlagen.

--b1
Content-Type: message/global-delivery-status

Reporting-MTA: dns; relay.example

Final-Recipient: utf-8; müller@bücher.example
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 Empfänger unbekannt: müller@bücher.example

--b1
Content-Type: message/global-headers

Message-ID: <em_ü@ours.example>

--b1--
`);
    expect(await parseDsn(Buffer.from(raw, "utf8"))).toEqual({
      format: "rfc3464",
      originalMessageId: "<em_ü@ours.example>",
      originalEnvelopeId: null,
      reportingMta: "relay.example",
      recipients: [
        {
          recipient: "müller@bücher.example",
          action: "failed",
          status: "5.1.1",
          diagnostic: "550 5.1.1 Empfänger unbekannt: müller@bücher.example",
          classification: classifySmtpAnswer(550, "5.1.1", "Empfänger unbekannt: müller@bücher.example"),
        },
      ],
    });
  });

  test(`thousands of recipient groups: at most ${dsnRecipientsMax} are read`, async () => {
    const groups = Array.from({ length: 5000 }, (_, index) => `Final-Recipient: rfc822; r${index}@example.net\nAction: failed\nStatus: 5.1.1`).join("\n\n");
    const report = await parseDsn(dsnWith(groups));
    expect(report!.recipients).toHaveLength(dsnRecipientsMax);
    expect(report!.recipients.at(-1)!.recipient).toBe(`r${dsnRecipientsMax - 1}@example.net`);
  });

  test("absurd field lengths (within the part's bound) are cut to theirs", async () => {
    const report = await parseDsn(
      dsnWith(`Final-Recipient: rfc822; ${"a".repeat(20_000)}@example.net
Action: failed
Status: 5.1.1

Final-Recipient: rfc822; long@example.net
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 ${"no such user ".repeat(2_000)}`, { perMessage: `Reporting-MTA: dns; ${"relay.".repeat(1_500)}example\n\n` }),
    );
    expect(report!.recipients.map((entry) => entry.recipient)).toEqual(["long@example.net"]);
    expect(report!.reportingMta!.length).toBeLessThanOrEqual(255);
    expect(report!.recipients[0]!.diagnostic!.length).toBeLessThanOrEqual(1000);
    expect(report!.recipients[0]!.classification!.class).toBe("unknown_mailbox");
  });

});
