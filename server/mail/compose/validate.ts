import {
  bccAddressesMax,
  ccAddressesMax,
  parseMailbox,
  parseMailboxList,
  recipientsTotalMax,
  replyToAddressesMax,
  toAddressesMax,
  type Mailbox,
} from "./addresses.ts";
import { base64LengthOf, parseAttachments, type Attachment } from "./attachments.ts";
import { refuseForbiddenCharacters } from "./characters.ts";
import { ComposeError, quotedKey } from "./errors.ts";
import { parseCustomHeaders, type CustomHeader } from "./headers.ts";
import { parseScheduledAt } from "./schedule.ts";
import { parseTags, type Tag } from "./tags.ts";
import { resolveTemplate, type StoredTemplate } from "./template.ts";

// The send request (Resend's shape, snake_case) checked whole and turned into a ComposedEmail,
// or refused with a ComposeError that names the first offending field. Fields we do not know
// are refused rather than ignored, so a typo such as `replyTo` is not silently dropped.

export interface ComposedEmail {
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  replyTo: Mailbox[];
  subject: string;
  /** The sender's html as given (or from the template): we do not sanitise a sender's own mail. */
  html: string | null;
  text: string | null;
  headers: CustomHeader[];
  attachments: Attachment[];
  tags: Tag[];
  templateId: string | null;
  /** ISO time (UTC) to send at, or null to send now. */
  scheduledAt: string | null;
}

export interface SendRequestContext {
  now: Date;
  /** The tenant's stored template with this id, or null when there is none. */
  findTemplate: (id: string) => StoredTemplate | null | Promise<StoredTemplate | null>;
}

export const subjectLengthMax = 998;
export const htmlBytesMax = 1024 * 1024;
export const textBytesMax = 1024 * 1024;
/** Resend's limit: html, text and the attachments in base64, together. */
export const messageBytesMax = 40 * 1024 * 1024;

const requestFields = new Set([
  "from", "to", "cc", "bcc", "reply_to", "subject", "html", "text",
  "headers", "attachments", "tags", "template", "scheduled_at",
]);

export async function validateSendRequest(body: unknown, context: SendRequestContext): Promise<ComposedEmail> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ComposeError("body", "invalid_type", "must be a JSON object");
  }
  const request = body as Record<string, unknown>;
  const unknown = Object.keys(request).find((key) => !requestFields.has(key));
  if (unknown !== undefined) throw new ComposeError(quotedKey(unknown), "unknown_field", "is not a field of a send request");

  if (request.from === undefined || request.from === null) throw new ComposeError("from", "missing_field", "is required");
  const from = parseMailbox(request.from, "from");
  const recipients = parseRecipients(request);
  const replyTo = optional(request.reply_to, (value) => parseMailboxList(value, "reply_to", replyToAddressesMax), []);
  const headers = parseCustomHeaders(request.headers);
  const attachments = parseAttachments(request.attachments);
  const tags = parseTags(request.tags);
  const content = await parseContent(request, context);
  const scheduledAt = parseScheduledAt(request.scheduled_at, context.now);

  const contentBytes = byteLength(content.html) + byteLength(content.text);
  const messageBytes = attachments.reduce((sum, attachment) => sum + base64LengthOf(attachment), contentBytes);
  if (messageBytes > messageBytesMax) {
    throw new ComposeError(
      "attachments",
      "too_large",
      `html, text and attachments (as base64) weigh ${messageBytes} bytes; at most ${messageBytesMax}`,
    );
  }
  return { from, ...recipients, replyTo, ...content, headers, attachments, tags, scheduledAt };
}

/**
 * Every envelope recipient (to, cc and bcc), each address once: addresses differing only in case
 * are one mailbox everywhere mail is really delivered, and are sent one copy.
 */
export function envelopeRecipients(email: ComposedEmail): Mailbox[] {
  const byAddress = new Map<string, Mailbox>();
  for (const mailbox of [...email.to, ...email.cc, ...email.bcc]) {
    const key = mailbox.address.toLowerCase();
    if (!byAddress.has(key)) byAddress.set(key, mailbox);
  }
  return [...byAddress.values()];
}

function parseRecipients(request: Record<string, unknown>): Pick<ComposedEmail, "to" | "cc" | "bcc"> {
  if (request.to === undefined || request.to === null) throw new ComposeError("to", "missing_field", "is required");
  const to = parseMailboxList(request.to, "to", toAddressesMax);
  if (to.length === 0) throw new ComposeError("to", "missing_field", "needs at least one address");
  const cc = optional(request.cc, (value) => parseMailboxList(value, "cc", ccAddressesMax), []);
  const bcc = optional(request.bcc, (value) => parseMailboxList(value, "bcc", bccAddressesMax), []);
  const total = to.length + cc.length + bcc.length;
  if (total > recipientsTotalMax) {
    throw new ComposeError("to", "too_many", `at most ${recipientsTotalMax} recipients in to, cc and bcc together; got ${total}`);
  }
  return { to, cc, bcc };
}

type Content = Pick<ComposedEmail, "subject" | "html" | "text" | "templateId">;

async function parseContent(request: Record<string, unknown>, context: SendRequestContext): Promise<Content> {
  const givenSubject = optional(request.subject, (value) => parseSubject(value, "subject"), null);
  if (request.template !== undefined && request.template !== null) {
    if (nonEmpty(request.html, "html") !== null || nonEmpty(request.text, "text") !== null) {
      throw new ComposeError("template", "invalid_value", "give either a template or html/text, not both");
    }
    const resolved = await resolveTemplate(request.template, context.findTemplate, {
      subjectLengthMax,
      htmlBytesMax,
      textBytesMax,
      subjectGiven: givenSubject !== null,
    });
    const subject = givenSubject ?? (resolved.subject === null ? null : parseSubject(resolved.subject, "subject"));
    if (subject === null) throw new ComposeError("subject", "missing_field", "is required (the template has no subject)");
    return {
      subject,
      html: checkedSize(resolved.html, "html", htmlBytesMax),
      text: checkedSize(resolved.text, "text", textBytesMax),
      templateId: resolved.id,
    };
  }
  const html = checkedSize(nonEmpty(request.html, "html"), "html", htmlBytesMax);
  const text = checkedSize(nonEmpty(request.text, "text"), "text", textBytesMax);
  if (html === null && text === null) throw new ComposeError("html", "missing_field", "give html, text or a template");
  if (givenSubject === null) throw new ComposeError("subject", "missing_field", "is required");
  return { subject: givenSubject, html, text, templateId: null };
}

/** A subject is one line of 1 to subjectLengthMax characters (code points). */
export function parseSubject(input: unknown, field: string): string {
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  refuseForbiddenCharacters(input, field, { allowTab: true });
  if (input.trim() === "") throw new ComposeError(field, "invalid_value", "must not be blank");
  const length = [...input].length;
  if (length > subjectLengthMax) {
    throw new ComposeError(field, "too_long", `must be at most ${subjectLengthMax} characters; got ${length}`);
  }
  return input;
}

/** html or text: a string; an empty one counts as not given. */
function nonEmpty(input: unknown, field: string): string | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  return input === "" ? null : input;
}

/** `value` when it is at most `bytesMax` bytes of UTF-8; a template is saved under the same bounds. */
export function checkedSize(value: string | null, field: string, bytesMax: number): string | null {
  const bytes = byteLength(value);
  if (bytes > bytesMax) throw new ComposeError(field, "too_large", `must be at most ${bytesMax} bytes (UTF-8); got ${bytes}`);
  return value;
}

const byteLength = (value: string | null): number => (value === null ? 0 : Buffer.byteLength(value, "utf8"));

const optional = <T>(input: unknown, parse: (value: unknown) => T, absent: T): T =>
  input === undefined || input === null ? absent : parse(input);
