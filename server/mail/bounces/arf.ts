/**
 * Parses a complaint in the Abuse Reporting Format (RFC 5965:
 * `multipart/report; report-type=feedback-report`): a human-readable part, a
 * `message/feedback-report` part of header-like fields, and the original message or its headers.
 * mailparser reads the MIME structure and hands the feedback part over as an opaque attachment, so
 * its fields are read here.
 */
import { findPart, readReportMessage, returnedHeaders } from "./report-message.ts";
import { firstField, parseFieldGroups, type FieldGroup } from "./report-fields.ts";
import { mailboxOrNull, oneLineOrNull } from "./text.ts";

export const feedbackTypes = ["abuse", "fraud", "virus", "other", "not-spam"] as const;
export type FeedbackType = (typeof feedbackTypes)[number];

/** Most characters of the reporter's User-Agent kept. */
export const userAgentCharsMax = 200;
/** Most characters of an Arrival-Date read (a real RFC 5322 date is about 40). */
export const arrivalDateCharsMax = 100;

export interface ComplaintReport {
  /** The report's Feedback-Type; an unknown or missing one is `other`. */
  feedbackType: FeedbackType;
  /** Who complained: Original-Rcpt-To, else the original message's To. */
  originalRecipient: string | null;
  /** Message-ID of the original, from the third part, with angle brackets. */
  originalMessageId: string | null;
  /** The reporting software (e.g. "Yahoo!-Mail-Feedback/2.0"), one line, bounded. */
  userAgent: string | null;
  /** When the reporter received the original, as an ISO 8601 string; null when missing or unparsable. */
  arrivalDate: string | null;
}

/**
 * The complaint in `raw` (a whole RFC 5322 message), or null when it is not an ARF report (not a
 * `multipart/report` of type `feedback-report`, or without its `message/feedback-report` part).
 */
export async function parseArf(raw: Buffer | string): Promise<ComplaintReport | null> {
  const message = await readReportMessage(raw);
  if (message === null || message.contentType !== "multipart/report" || message.reportType !== "feedback-report") return null;
  const feedbackPart = findPart(message.parsed, ["message/feedback-report"]);
  if (feedbackPart === undefined) return null;
  const fields: FieldGroup = parseFieldGroups(feedbackPart.content.toString("utf8"))[0] ?? new Map();
  const returned = await returnedHeaders(message.parsed);
  const rcptTo = (fields.get("original-rcpt-to") ?? []).map(mailboxOrNull).find((address) => address !== null);
  return {
    feedbackType: feedbackTypeOf(firstField(fields, "feedback-type")),
    originalRecipient: rcptTo ?? mailboxOrNull(returned?.to),
    originalMessageId: returned?.messageId ?? null,
    userAgent: oneLineOrNull(firstField(fields, "user-agent"), userAgentCharsMax),
    arrivalDate: isoDate(firstField(fields, "arrival-date") ?? firstField(fields, "received-date")),
  };
}

function feedbackTypeOf(raw: string | null): FeedbackType {
  const value = raw?.trim().toLowerCase();
  return feedbackTypes.find((type) => type === value) ?? "other";
}

function isoDate(raw: string | null): string | null {
  if (raw === null || raw.length > arrivalDateCharsMax) return null;
  const time = Date.parse(raw.replace(/\s*\([^()]*\)\s*$/, ""));
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}
