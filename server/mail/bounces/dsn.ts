/**
 * Parses an asynchronous bounce: a Delivery Status Notification (RFC 3464,
 * `multipart/report; report-type=delivery-status`), or one of the common plain-text bounces
 * (see `plain-bounce.ts`). mailparser reads the MIME structure; it hands the
 * `message/delivery-status` part over as an opaque attachment, so its fields are read per RFC 3464
 * here: a per-message group, then one group per recipient, with folded lines and typed values.
 */
import type { Attachment, ParsedMail } from "mailparser";
import { parsePlainTextBounce } from "./plain-bounce.ts";
import { findPart, readReportMessage, returnedHeaders } from "./report-message.ts";
import { firstField, parseFieldGroups, splitTypedValue, type FieldGroup } from "./report-fields.ts";
import { reportedAction, reportedRecipient, type ReportedRecipient } from "./reported-recipient.ts";
import { mailboxOrNull, oneLineOrNull } from "./text.ts";

export type { DsnAction, ReportedRecipient } from "./reported-recipient.ts";

/** Most recipients read from one report; a real one lists those of one message and one MTA. */
export const dsnRecipientsMax = 100;
/** Most characters of a host name or envelope id kept. */
export const reportTokenCharsMax = 255;

export interface DeliveryStatusReport {
  /** `rfc3464` for a multipart/report, `plain-text` for a recognised non-standard bounce. */
  format: "rfc3464" | "plain-text";
  /** Message-ID of the returned original (its message or header part), with angle brackets. */
  originalMessageId: string | null;
  /** `Original-Envelope-Id`: the ENVID we gave at MAIL FROM, the surest match when headers are not returned. */
  originalEnvelopeId: string | null;
  /** The MTA that wrote the report (`Reporting-MTA`, type prefix removed). */
  reportingMta: string | null;
  recipients: ReportedRecipient[];
}

/** Media types of the machine-readable part (RFC 6533 adds the internationalised one). */
const deliveryStatusTypes = ["message/delivery-status", "message/global-delivery-status"] as const;

/**
 * The delivery report in `raw` (a whole RFC 5322 message), or null when it is not one. Recipient
 * groups without a usable address, or without an action or status saying what happened, are
 * skipped; so a DSN whose groups are all garbage comes back with no recipients.
 */
export async function parseDsn(raw: Buffer | string): Promise<DeliveryStatusReport | null> {
  const message = await readReportMessage(raw);
  if (message === null) return null;
  const statusPart = findPart(message.parsed, deliveryStatusTypes);
  const isReport = message.contentType === "multipart/report" && (message.reportType === "delivery-status" || message.reportType === "global-delivery-status");
  if (isReport && statusPart !== undefined) return standardReport(message.parsed, statusPart);
  // A report of another kind (a read receipt, a complaint) is never taken for a plain bounce.
  return message.contentType === "multipart/report" && !isReport ? null : parsePlainTextBounce(message.parsed);
}

async function standardReport(parsed: ParsedMail, statusPart: Attachment): Promise<DeliveryStatusReport> {
  const [perMessage, ...perRecipient] = parseFieldGroups(statusPart.content.toString("utf8"));
  // Some MTAs omit the per-message group: a first group naming a recipient is a recipient's.
  const recipientGroups = perMessage && perMessage.has("final-recipient") ? [perMessage, ...perRecipient] : perRecipient;
  const returned = await returnedHeaders(parsed);
  return {
    format: "rfc3464",
    originalMessageId: returned?.messageId ?? null,
    originalEnvelopeId: perMessage ? typedToken(firstField(perMessage, "original-envelope-id")) : null,
    reportingMta: perMessage ? typedToken(firstField(perMessage, "reporting-mta")) : null,
    recipients: recipientGroups.flatMap((group) => recipientOf(group) ?? []).slice(0, dsnRecipientsMax),
  };
}

function recipientOf(group: FieldGroup): ReportedRecipient | null {
  const finalRecipient = firstField(group, "final-recipient") ?? firstField(group, "original-recipient");
  const recipient = mailboxOrNull(finalRecipient === null ? null : splitTypedValue(finalRecipient).value);
  if (recipient === null) return null;
  const status = firstField(group, "status");
  const action = reportedAction(firstField(group, "action"), status);
  if (action === null) return null;
  const diagnosticField = firstField(group, "diagnostic-code");
  const diagnostic = diagnosticField === null ? null : splitTypedValue(diagnosticField);
  return reportedRecipient(recipient, action, status, diagnostic?.value ?? null, diagnostic?.type === "smtp" || diagnostic?.type === null);
}

/** The value of a typed field (`dns; mx.example.org`) without its type, one line, bounded. */
function typedToken(field: string | null): string | null {
  return field === null ? null : oneLineOrNull(splitTypedValue(field).value, reportTokenCharsMax);
}
