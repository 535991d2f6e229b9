/**
 * Recognises the common non-standard bounces: a plain-text "Mail Delivery Subsystem" /
 * "Undelivered Mail Returned to Sender" / "Mail delivery failed" message with the original (or its
 * headers) attached or quoted below the text. Recognised:
 *
 * - the sender or subject of a bounce: a `MAILER-DAEMON` / `postmaster` sender or a "Mail Delivery
 *   System/Subsystem" display name, or a subject such as "Undelivered Mail Returned to Sender",
 *   "Mail delivery failed", "Delivery Status Notification (Failure)", "failure notice",
 *   "Undeliverable:", "Returned mail", "Delayed Mail", "Warning: message … delayed";
 * - failed recipients in Postfix's and qmail's form, `<user@example.org>: host … said: 550 …` with
 *   the explanation on the lines after it, and in Exim's, an address indented by two spaces
 *   after "The following address(es) failed:" (or, in a delay warning, "…has not yet been
 *   delivered is/are:"), the explanation indented further below it;
 * - the remote server's answer inside that explanation (the first 4xx/5xx reply code);
 * - "This is the mail system at host X." (Postfix) as the reporting MTA;
 * - the original's Message-ID from an attached `message/rfc822` / `text/rfc822-headers` part, else
 *   from a `Message-ID:` header line quoted in the text (Exim's and qmail's "copy of the message").
 *
 * A message matching the sender or subject but yielding neither a recipient nor a Message-ID is
 * not taken for a bounce.
 */
import type { ParsedMail } from "mailparser";
import type { DeliveryStatusReport } from "./dsn.ts";
import { headersOf, returnedHeaders } from "./report-message.ts";
import { reportedRecipient, type DsnAction, type ReportedRecipient } from "./reported-recipient.ts";
import { mailboxOrNull, oneLineOrNull } from "./text.ts";

/** Most characters of the bounce's text read. */
export const plainBounceTextCharsMax = 64 * 1024;
/** Most recipients read from one plain-text bounce. */
export const plainBounceRecipientsMax = 100;
/** Most explanation lines kept per recipient. */
export const explanationLinesMax = 20;

const bounceSenderLocalParts = /^(?:mailer-daemon|mailer_daemon|mailerdaemon|mail-daemon|postmaster)$/i;
const bounceSenderNames = /mail delivery (?:system|subsystem)|mailer-daemon/i;
const bounceSubjects =
  /undelivered mail|undeliverable|mail delivery failed|delivery status notification|failure notice|returned mail|delivery (?:has )?failed|could not be delivered|delivery failure|delayed mail|message .{0,80}delayed|delivery delayed|not yet been delivered/i;
const delaySubjects = /delayed|not yet been delivered|delivery delay|still being retried/i;
/** Where the quoted original starts; nothing below is the bounce's own text. */
const returnedCopySeparator = /^-{2,}.{0,20}(?:copy of the message|below this line|original message|returned message|message headers? follows?)/im;
const postfixRecipientLine = /^<([^<>\s]{1,254})>:[ \t]*(.*)$/;
const eximFailedIntro = /(?:following address(?:\(es\))? failed|address(?:\(es\))? to which the message has not yet been delivered (?:is|are)|has not yet been delivered to the following)\s*:/i;
const eximRecipientLine = /^ {2}<?([^<>\s]{1,254}?)>?\s*$/;
const postfixReportingMta = /This is the mail system at host ([A-Za-z0-9.-]{1,253})\./;
const quotedMessageId = /^Message-ID:[ \t]*(<[^<>\s]{1,996}>)/im;
/** A reply code inside an explanation: after a space or colon, before a space, a dash or a line end. */
const replyCodeInText = /(?:^|[\s:])([45]\d\d(?:[\s-]|$).*)$/s;

export async function parsePlainTextBounce(parsed: ParsedMail): Promise<DeliveryStatusReport | null> {
  if (!looksLikeBounce(parsed)) return null;
  const fullText = (parsed.text ?? "").slice(0, plainBounceTextCharsMax).replace(/\r\n?/g, "\n");
  const separator = returnedCopySeparator.exec(fullText);
  const ownText = separator ? fullText.slice(0, separator.index) : fullText;
  const action: DsnAction = delaySubjects.test(parsed.subject ?? "") ? "delayed" : "failed";
  const recipients = [...postfixRecipients(ownText), ...eximRecipients(ownText)]
    .slice(0, plainBounceRecipientsMax)
    .map(({ recipient, explanation }) => {
      const reply = replyCodeInText.exec(explanation);
      return reportedRecipient(recipient, action, null, reply ? reply[1]! : explanation, reply !== null);
    });
  const attached = await returnedHeaders(parsed);
  const quoted = separator ? await headersOf(fullText.slice(separator.index).replace(/^.*\n\s*/, "")) : null;
  const originalMessageId = attached?.messageId ?? quoted?.messageId ?? quotedMessageId.exec(fullText)?.[1] ?? null;
  if (recipients.length === 0 && originalMessageId === null) return null;
  return {
    format: "plain-text",
    originalMessageId,
    originalEnvelopeId: null,
    reportingMta: oneLineOrNull(postfixReportingMta.exec(ownText)?.[1], 253),
    recipients: dedupe(recipients),
  };
}

function looksLikeBounce(parsed: ParsedMail): boolean {
  const from = parsed.from?.value[0];
  const localPart = from?.address?.split("@")[0] ?? "";
  return bounceSenderLocalParts.test(localPart) || bounceSenderNames.test(from?.name ?? "") || bounceSubjects.test(parsed.subject ?? "");
}

interface StatedRecipient {
  recipient: string;
  explanation: string;
}

/** `<addr>: explanation` followed by its continuation lines, up to a blank line (Postfix, qmail). */
function postfixRecipients(text: string): StatedRecipient[] {
  const lines = text.split("\n");
  const found: StatedRecipient[] = [];
  lines.forEach((line, index) => {
    const start = postfixRecipientLine.exec(line);
    const recipient = start ? mailboxOrNull(start[1]) : null;
    if (recipient === null) return;
    const explanation = [start![2] ?? ""];
    for (const next of lines.slice(index + 1, index + 1 + explanationLinesMax)) {
      if (next.trim() === "" || postfixRecipientLine.test(next)) break;
      explanation.push(next.trim());
    }
    found.push({ recipient, explanation: explanation.join("\n").trim() });
  });
  return found;
}

/** Two-space-indented addresses after Exim's "following address(es) failed:", explanation indented deeper. */
function eximRecipients(text: string): StatedRecipient[] {
  const intro = eximFailedIntro.exec(text);
  if (!intro) return [];
  const lines = text.slice(intro.index + intro[0].length).split("\n");
  const found: StatedRecipient[] = [];
  lines.forEach((line, index) => {
    const start = eximRecipientLine.exec(line);
    const recipient = start ? mailboxOrNull(start[1]) : null;
    if (recipient === null) return;
    const explanation: string[] = [];
    for (const next of lines.slice(index + 1, index + 1 + explanationLinesMax)) {
      if (!/^ {3,}\S/.test(next)) break;
      explanation.push(next.trim());
    }
    found.push({ recipient, explanation: explanation.join("\n") });
  });
  return found;
}

function dedupe(recipients: ReportedRecipient[]): ReportedRecipient[] {
  const seen = new Set<string>();
  return recipients.filter((entry) => !seen.has(entry.recipient) && seen.add(entry.recipient));
}
