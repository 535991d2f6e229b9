import { describe, expect, test } from "bun:test";
import { bounceClassExplanations } from "../../../server/mail/bounces/classify-rules.ts";
import {
  bounceClasses,
  classifySmtpAnswer,
  quotedAnswerCharsMax,
  type BounceAction,
  type BounceClass,
  type BounceKind,
} from "../../../server/mail/bounces/classify.ts";
import { normaliseEnhancedStatusCode, parseSmtpReply } from "../../../server/mail/smtp-reply.ts";

interface Case {
  name: string;
  code: number | null;
  enhanced: string | null;
  text: string;
  expected: { kind: BounceKind; class: BounceClass; enhancedCode: string | null; action: BounceAction };
}

const hard = (cls: BounceClass, enhancedCode: string | null, action: BounceAction = "none") => ({ kind: "hard" as const, class: cls, enhancedCode, action });
const soft = (cls: BounceClass, enhancedCode: string | null) => ({ kind: "soft" as const, class: cls, enhancedCode, action: "retry" as const });

/** Answers as the providers word them (Gmail, Outlook/Microsoft 365, Yahoo, Postfix, Exim, …). */
const providerAnswers: Case[] = [
  {
    name: "Gmail: no such user (multi-line)",
    code: 550,
    enhanced: null,
    text:
      "550-5.1.1 The email account that you tried to reach does not exist. Please try\r\n550-5.1.1 double-checking the recipient's email address for typos or\r\n550-5.1.1 unnecessary spaces. Learn more at\r\n550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a640c23a62f3a-a7 - gsmtp",
    expected: hard("unknown_mailbox", "5.1.1", "suppress"),
  },
  { name: "Gmail: disabled account", code: 550, enhanced: "5.2.1", text: "The email account that you tried to reach is disabled. https://support.google.com/mail/?p=DisabledUser", expected: hard("mailbox_disabled", "5.2.1", "suppress") },
  { name: "Gmail: over quota as a 4xx", code: 452, enhanced: "4.2.2", text: "The email account that you tried to reach is over quota.", expected: soft("mailbox_full", "4.2.2") },
  { name: "Gmail: over quota as a 5xx stays soft", code: 552, enhanced: "5.2.2", text: "The email account that you tried to reach is over quota.", expected: soft("mailbox_full", "5.2.2") },
  { name: "Gmail: message too large", code: 552, enhanced: "5.3.4", text: "Your message exceeded Google's message size limits.", expected: hard("message_too_large", "5.3.4") },
  { name: "Gmail: unsolicited mail", code: 550, enhanced: "5.7.1", text: "[203.0.113.5] Our system has detected that this message is likely unsolicited mail. To reduce the amount of spam sent to Gmail, this message has been blocked.", expected: hard("blocked_as_spam", "5.7.1") },
  { name: "Gmail: unauthenticated sender", code: 550, enhanced: "5.7.26", text: "This mail has been blocked because the sender is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM.", expected: hard("policy", "5.7.26") },
  { name: "Gmail: DMARC policy", code: 550, enhanced: "5.7.26", text: "Unauthenticated email from example.com is not accepted due to domain's DMARC policy.", expected: hard("policy", "5.7.26") },
  { name: "Gmail: unusual rate (rate limit wins over the word unsolicited)", code: 421, enhanced: "4.7.28", text: "[203.0.113.5] Our system has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited.", expected: soft("rate_limited", "4.7.28") },
  { name: "Gmail: try again later", code: 421, enhanced: "4.3.0", text: "Temporary System Problem.  Try again later (10). - gsmtp", expected: soft("temporary_server_error", "4.3.0") },
  { name: "Outlook: mailbox unavailable", code: 550, enhanced: "5.5.0", text: "Requested action not taken: mailbox unavailable (S2017062302) [DB5EUR03FT003.eop-EUR03.prod.protection.outlook.com]", expected: hard("unknown_mailbox", "5.5.0", "suppress") },
  { name: "Microsoft 365: directory-based edge blocking", code: 550, enhanced: "5.4.1", text: "Recipient address rejected: Access denied. AS(201806281) [AM4PEPF00025F9A.EURPRD83.prod.outlook.com]", expected: hard("unknown_mailbox", "5.4.1", "suppress") },
  { name: "Outlook: IP on block list", code: 550, enhanced: "5.7.1", text: "Unfortunately, messages from [203.0.113.5] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).", expected: hard("blocked_as_spam", "5.7.1") },
  { name: "Outlook: banned sending IP", code: 550, enhanced: "5.7.606", text: "Access denied, banned sending IP [203.0.113.5]. To request removal from this list please visit https://sender.office.com/", expected: hard("blocked_as_spam", "5.7.606") },
  { name: "Outlook: DMARC reject", code: 550, enhanced: "5.7.509", text: "Access denied, sending domain EXAMPLE.COM does not pass DMARC verification and has a DMARC policy of reject.", expected: hard("policy", "5.7.509") },
  { name: "Outlook: rate limited by reputation", code: 451, enhanced: "4.7.650", text: "The mail server [203.0.113.5] has been temporarily rate limited due to IP reputation.", expected: soft("rate_limited", "4.7.650") },
  { name: "Yahoo: no such account", code: 554, enhanced: null, text: "delivery error: dd This user doesn't have a yahoo.com account (someone@yahoo.com) [0] - mta1234.mail.gq1.yahoo.com", expected: hard("unknown_mailbox", null, "suppress") },
  { name: "Yahoo: deferred for volume", code: 421, enhanced: "4.7.0", text: "[TSS04] Messages from 203.0.113.5 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1", expected: soft("rate_limited", "4.7.0") },
  { name: "Yahoo: policy", code: 554, enhanced: "5.7.9", text: "Message not accepted for policy reasons.  See https://senders.yahooinc.com/error-codes", expected: hard("policy", "5.7.9") },
  { name: "Postfix: user unknown", code: 550, enhanced: "5.1.1", text: "<nobody@example.org>: Recipient address rejected: User unknown in local recipient table", expected: hard("unknown_mailbox", "5.1.1", "suppress") },
  { name: "Postfix: RBL", code: 554, enhanced: "5.7.1", text: "Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.5", expected: hard("blocked_as_spam", "5.7.1") },
  { name: "Postfix: greylisting", code: 450, enhanced: "4.2.0", text: "<someone@example.org>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.org.html", expected: soft("other_temporary", "4.2.0") },
  { name: "Postfix: domain not found (no SMTP answer, status 5.4.4)", code: null, enhanced: "5.4.4", text: "Host or domain name not found. Name service error for name=example.invalid type=A: Host not found", expected: hard("domain_not_found", "5.4.4", "suppress") },
  { name: "Postfix: quota in text only", code: 552, enhanced: null, text: "Requested mail action aborted: quota exceeded", expected: soft("mailbox_full", null) },
  { name: "Exim: too many connections", code: 421, enhanced: null, text: "mx.example.org Too many concurrent SMTP connections; please try again later.", expected: soft("rate_limited", null) },
  { name: "Exim: local error", code: 451, enhanced: null, text: "Temporary local problem - please try later", expected: soft("temporary_server_error", null) },
  { name: "too many recipients (452 4.5.3)", code: 452, enhanced: "4.5.3", text: "Too many recipients", expected: soft("rate_limited", "4.5.3") },
  { name: "bare 552 is RFC 5321's exceeded storage allocation", code: 552, enhanced: null, text: "", expected: soft("mailbox_full", null) },
  { name: "552 message size", code: 552, enhanced: null, text: "Message size exceeds fixed maximum message size", expected: hard("message_too_large", null) },
  { name: "null MX (RFC 7505)", code: 556, enhanced: "5.1.10", text: "Recipient address has null MX", expected: hard("domain_not_found", "5.1.10", "suppress") },
  { name: "bad destination system", code: 550, enhanced: "5.1.2", text: "Domain example.invalid not found", expected: hard("domain_not_found", "5.1.2", "suppress") },
  { name: "sender domain does not exist blames us, not the recipient", code: 550, enhanced: "5.1.8", text: "Sender address rejected: Domain not found", expected: hard("policy", "5.1.8") },
  { name: "a policy code never suppresses, even when the text says user unknown", code: 550, enhanced: "5.7.1", text: "Recipient address rejected: user unknown", expected: hard("policy", "5.7.1") },
  { name: "a 4xx user unknown is retried, not suppressed", code: 450, enhanced: "4.1.1", text: "<someone@example.org>: Recipient address rejected: unverified address", expected: soft("unknown_mailbox", "4.1.1") },
  { name: "relay denied", code: 554, enhanced: "5.7.1", text: "<someone@example.org>: Relay access denied", expected: hard("policy", "5.7.1") },
  { name: "5.4.7 delivery time expired", code: null, enhanced: "5.4.7", text: "delivery expired (message too old)", expected: hard("other_permanent", "5.4.7") },
  { name: "bare 421", code: 421, enhanced: null, text: "", expected: soft("temporary_server_error", null) },
  { name: "bare 550", code: 550, enhanced: null, text: "", expected: hard("other_permanent", null) },
  { name: "bare 450", code: 450, enhanced: null, text: "", expected: soft("other_temporary", null) },
  { name: "4.4.1 no answer from host", code: null, enhanced: "4.4.1", text: "connection timed out", expected: soft("connection_failed", "4.4.1") },
  { name: "a 5xx 'temporary' is not a temporary server error", code: 554, enhanced: null, text: "Transaction failed, try again later", expected: hard("other_permanent", null) },
  { name: "no SMTP answer at all", code: null, enhanced: null, text: "connect ECONNREFUSED 192.0.2.1:25", expected: soft("connection_failed", null) },
  { name: "TLS failure", code: null, enhanced: null, text: "Hostname/IP does not match certificate's altnames", expected: soft("connection_failed", null) },
];

describe("classifySmtpAnswer: provider answers", () => {
  for (const answer of providerAnswers) {
    test(answer.name, () => {
      expect(classifySmtpAnswer(answer.code, answer.enhanced, answer.text)).toEqual({
        ...answer.expected,
        reason: expect.stringContaining(bounceClassExplanations[answer.expected.class]),
      });
    });
  }

  test("every class is reached by at least one provider answer", () => {
    const reached = new Set(providerAnswers.map((answer) => answer.expected.class));
    expect([...bounceClasses].filter((cls) => !reached.has(cls))).toEqual([]);
  });
});

describe("classifySmtpAnswer: whole results", () => {
  test("the Gmail answer reads as one sentence in the reason", () => {
    expect(
      classifySmtpAnswer(550, null, "550-5.1.1 The email account that you tried to reach does not exist. Please try\n550 5.1.1 double-checking the address. - gsmtp"),
    ).toEqual({
      kind: "hard",
      class: "unknown_mailbox",
      enhancedCode: "5.1.1",
      reason:
        "The recipient's mail server says this mailbox does not exist. Remote answer: 550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the address. - gsmtp",
      action: "suppress",
    });
  });

  test("codes are read from the text when the arguments lack them (a nodemailer error's response)", () => {
    expect(classifySmtpAnswer(null, null, "452 4.2.2 Mailbox full")).toEqual({
      kind: "soft",
      class: "mailbox_full",
      enhancedCode: "4.2.2",
      reason: "The recipient's mailbox is full. Remote answer: 452 4.2.2 Mailbox full",
      action: "retry",
    });
  });

  test("a connection failure with no detail", () => {
    expect(classifySmtpAnswer(null, null, null)).toEqual({
      kind: "soft",
      class: "connection_failed",
      enhancedCode: null,
      reason: "No SMTP answer: the recipient's mail servers could not be reached.",
      action: "retry",
    });
  });

  test("the reply code given as an argument wins over one in the text", () => {
    expect(classifySmtpAnswer(451, null, "550 no such user here").kind).toBe("soft");
  });
});

describe("classifySmtpAnswer: malformed codes", () => {
  const malformed: [string, number | null, string | null][] = [
    ["code 999", 999, null],
    ["code 0", 0, null],
    ["code NaN", Number.NaN, null],
    ["fractional code", 550.5, null],
    ["success code", 250, null],
    ["enhanced with four parts", null, "5.1.1.1"],
    ["enhanced of class 3", null, "3.1.1"],
    ["enhanced with letters", null, "5.a.1"],
    ["enhanced with four-digit detail", null, "5.1.1000"],
    ["enhanced of class 2 (success)", null, "2.0.0"],
  ];
  for (const [name, code, enhanced] of malformed) {
    test(`${name} counts as absent`, () => {
      expect(classifySmtpAnswer(code, enhanced, "")).toEqual({
        kind: "soft",
        class: "connection_failed",
        enhancedCode: null,
        reason: "No SMTP answer: the recipient's mail servers could not be reached.",
        action: "retry",
      });
    });
  }

  test("a malformed enhanced argument falls back to the one in the text", () => {
    expect(classifySmtpAnswer(550, "garbage", "5.1.1 user unknown").enhancedCode).toBe("5.1.1");
  });

  test("enhanced codes are normalised", () => {
    expect([" 5.01.001 ", "4.7.028", "2.0.0", "5.1", "", "6.1.1"].map(normaliseEnhancedStatusCode)).toEqual(["5.1.1", "4.7.28", "2.0.0", null, null, null]);
    expect(classifySmtpAnswer(550, "5.01.001", "").enhancedCode).toBe("5.1.1");
  });

  test("an enhanced code of the other class than the reply code: the reply code decides permanence", () => {
    expect(classifySmtpAnswer(550, "4.1.1", "User unknown")).toMatchObject({ kind: "hard", class: "unknown_mailbox", action: "suppress" });
  });
});

describe("classifySmtpAnswer: hostile and absurd text", () => {
  test("a megabyte of text is bounded in the reason and classified", () => {
    const text = "user unknown " + "x".repeat(1024 * 1024);
    const result = classifySmtpAnswer(550, null, text);
    expect(result.class).toBe("unknown_mailbox");
    const quoted = result.reason.slice(result.reason.indexOf("Remote answer: ") + "Remote answer: ".length);
    expect(Array.from(quoted).length).toBe(quotedAnswerCharsMax);
    expect(quoted.endsWith("…")).toBe(true);
  });

  test("a phrase past the scanned window does not count", () => {
    expect(classifySmtpAnswer(550, null, "x ".repeat(5000) + "user unknown").class).toBe("other_permanent");
  });

  test("line breaks, controls and bidi overrides never reach the reason", () => {
    const result = classifySmtpAnswer(550, "5.1.1", "no such user\r\nX-Injected: yes\u0000\u001b[31m\u202eevil\u2066");
    expect(result.reason).toBe("The recipient's mail server says this mailbox does not exist. Remote answer: 550 5.1.1 no such user X-Injected: yes [31m evil");
  });

  test("a surrogate pair is never cut in half", () => {
    const result = classifySmtpAnswer(550, "5.1.1", "😀".repeat(500));
    expect(result.reason).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(result.reason.endsWith("😀…")).toBe(true);
  });

  test("non-ASCII text is kept", () => {
    expect(classifySmtpAnswer(550, "5.1.1", "Benutzer unbekannt: müller@example.de").reason).toBe(
      "The recipient's mail server says this mailbox does not exist. Remote answer: 550 5.1.1 Benutzer unbekannt: müller@example.de",
    );
  });

  // Catastrophic backtracking would run into the test's time-out; the answers are checked, not the time.
  test("pathological input for the phrase patterns is classified", () => {
    for (const filler of ["a".repeat(100_000), " ".repeat(100_000), "too many ".repeat(20_000), "exceeds the ".repeat(20_000)]) {
      expect(classifySmtpAnswer(550, null, filler).class).toBe("other_permanent");
    }
  });
});

describe("parseSmtpReply", () => {
  test("multi-line reply", () => {
    expect(parseSmtpReply("550-5.1.1 first\n550 5.1.1 second")).toEqual({ code: 550, enhancedCode: "5.1.1", text: "first second" });
  });
  test("bare text", () => {
    expect(parseSmtpReply("Host or domain name not found")).toEqual({ code: null, enhancedCode: null, text: "Host or domain name not found" });
  });
  test("enhanced code without reply code", () => {
    expect(parseSmtpReply("5.7.1 blocked")).toEqual({ code: null, enhancedCode: "5.7.1", text: "blocked" });
  });
  test("reply code alone", () => {
    expect(parseSmtpReply("421")).toEqual({ code: 421, enhancedCode: null, text: "" });
  });
});
